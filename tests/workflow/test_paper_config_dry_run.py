"""config/paper.yaml plans the whole grid with `snakemake -n` on a machine with
no GPU and no model weights (split from tests/unit/test_paper_config.py, which
declares the grid). The dry run is the session's one (tests/workflow/conftest.py,
``paper_dry_run``), which test_documented_commands.py compares with the paper's plan."""

import re

import pytest
from dryrun import job_counts
from unit.test_paper_config import JUDGE_CELLS, NULL_MODEL_HELP, PAPER_MODELS
from unit.test_paper_config import paper  # noqa: F401  (a fixture)


def test_dry_run_plans_the_whole_grid_without_gpu_or_weights(paper_dry_run):
    code, out = paper_dry_run
    if code != 0 and "'NoneType' object has no attribute 'setdefault'" in out:
        pytest.fail(NULL_MODEL_HELP)
    assert code == 0, out[-3000:]
    jobs = job_counts(out)
    assert jobs["authority_judge"] == JUDGE_CELLS
    # bias cells feed authority_predictions (Fig. 6, Table 8), every other cell an authority_evaluate job
    assert jobs["authority_evaluate"] == JUDGE_CELLS - 5 * 2
    assert jobs["authority_predictions"] == 5 * 2
    expected = {"fetch_urllog": 1, "fetch_webtext": 1, "domainauth_build": 1, "domainauth_sample": 1,
                "entityauth_build": 3, "entityauth_sample": 3, "domainauth_report": 1, "entityauth_report": 1,
                # self-preference, NQ and MS MARCO: five evaluators (2 rerank prompts, main + style runs
                # each), four of which write their own passages; the released knowledge runs (GPT-3.5,
                # Llama-2-70B-chat) of both datasets re-derived; GPT-2 scores the passages' perplexity; one
                # report per dataset and one of both
                "selfpref_import": 2, "selfpref_sample": 2, "selfpref_shipped_knowledge": 2 * 2,
                "selfpref_generate": 2 * 4, "selfpref_knowledge": 2 * 5, "selfpref_perplexity": 2,
                "selfpref_rerank": 2 * 10, "selfpref_compare": 2 * 10, "selfpref_report": 2,
                "selfpref_datasets_report": 1}
    assert {k: jobs.get(k) for k in expected} == expected
    assert "models_assemble" not in jobs  # vLLM loads hub ids: no local model file is an input


def test_dry_run_asks_the_cluster_for_each_models_gpus(paper_dry_run, paper):
    code, out = paper_dry_run
    assert code == 0, out[-3000:]
    jobs = re.findall(r"^rule authority_judge:\n((?:    .*\n)+)", out, flags=re.M)
    assert len(jobs) == JUDGE_CELLS
    by_model = {}
    for job in jobs:
        model = re.search(r"model=([^,\s]+)", job).group(1)
        by_model.setdefault(model, set()).add(re.search(r"resources: (.*)", job).group(1))
    assert set(by_model) == set(PAPER_MODELS)
    for model, lines in by_model.items():
        assert len(lines) == 1, (model, lines)  # every cell of a model asks for the same
        spec = paper["models"][model]
        expected = {f"gpu={spec['gpus']}", f"mem_mb={spec['mem_mb']}", f"runtime={spec['runtime']}"}
        assert expected <= set(lines.pop().split(", ")), (model, expected)
