# Two entry points (README): `make demo` and `make test`. Both create the
# virtual environment .venv on first use (llama-cpp-python compiles from source:
# about 5 minutes on 2 cores) and reuse it afterwards.
PYTHON ?= python3
VENV ?= .venv
CORES ?= all
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

# llama.cpp's default -march=native build enables every instruction set the
# build CPU reports; on virtual machines that advertise AMX without enabling it
# that crashes with SIGILL. Build a portable AVX2 CPU backend instead
# (override CMAKE_ARGS to tune for your own CPU).
ifeq ($(shell uname -m),x86_64)
CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON
export CMAKE_ARGS
endif

.PHONY: install demo test lint clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --upgrade pip
	$(VENV)/bin/pip install -e '.[test]'
	touch $@

install: $(VENV)/.installed

demo: install
	snakemake --cores $(CORES)

test: install
	pytest -q

lint: install
	snakemake --lint

clean:
	rm -rf results logs .snakemake
