"""The real CPU vLLM's model config (tests/vllm/test_vllm.py and the served
model of tests/slurm/test_slurm.py): a plain module, not a conftest, so that
`from vllmrun import ...` means this file whichever conftest loaded last."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

VLLM_PY = ROOT / ".venv-vllm" / "bin" / "python"
SPEC = "parts:qwen2.5-coder-0.5b-instruct-q4_k_m"
MODEL_DIR_NAME = "qwen"
CPU_ENV = {"VLLM_CPU_KVCACHE_SPACE": 1, "VLLM_ENABLE_V1_MULTIPROCESSING": 0}
# float32: this CPU has AVX2 but no native bfloat16, where vLLM's bfloat16 decoding ran
# 3.3x slower (8 PairJudge prompts with page text: 76 s vs 248 s, same replies)
VLLM_OPTIONS = {"dtype": "float32", "max_model_len": 1024, "chunk_size": 8,
                "engine_args": {"enforce_eager": True}, "env": CPU_ENV}


def vllm_model(python, model=SPEC, **changes) -> dict:
    """A model config: the instruct model through the in-process vllm engine."""
    return {"engine": "vllm", "model": str(model), "python": str(python), "prompt_format": "chat", "threads": 2,
            "vllm": dict(VLLM_OPTIONS), "generate": {"temperature": 0.0, "seed": 0, "max_tokens": 48}, **changes}
