# Quick start: `make run` serves the embedded store with demo data; `make test` runs every test.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
STORE ?= var/store
HOST ?= 127.0.0.1
PORT ?= 8080
# The served catalogue and the benchmarks read the benchmark files from the shared mirror (the
# tests find it themselves: tests/layers.py, so that `pytest` alone runs as `make test` does).
run bench: export GERBIL_QA_DATA ?= $(abspath ../shared/data)

.PHONY: install run test bench soak lint typecheck format contracts clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)
	# The editable install leaves our modules uncompiled; compile once so start-up stays fast
	# even where PYTHONDONTWRITEBYTECODE is set.
	$(PY) -m compileall -q service

run: install
	$(VENV)/bin/gerbil-qa serve --store $(STORE) --host $(HOST) --port $(PORT)

# Every layer, or a stop naming what is missing (GERBIL_QA_SKIP=shared,browser,proxy skips layers;
# tests/layers.py). Options are in pyproject.toml, so `.venv/bin/pytest` alone does the same.
test: install
	bash scripts/ensure-debian browser chromium chromium-driver:chromedriver
	bash scripts/ensure-debian proxy nginx
	# pytest keeps each test module's rewritten assertions in __pycache__ unless
	# PYTHONDONTWRITEBYTECODE is set (as on our machines): then every pytest the suite starts
	# (tests/test_layers.py) rewrote all ~290 modules again, ~9 s each time
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest

bench: install
	$(PY) -m compileall -q service
	$(PY) bench/evaluate.py
	$(PY) bench/sparql.py
	$(PY) bench/store.py
	$(PY) bench/http.py
	$(PY) bench/systems.py
	$(PY) bench/responses.py
	$(PY) bench/statistics.py
	$(PY) bench/pages.py
	$(PY) bench/scale.py
	$(PY) bench/bigfile.py
	$(PY) bench/catalog.py

# The reliability suite at full size (bench/soak.py): kill -9 50 times per kind of write, 50
# clients for 60 s with and without a private run, the flood, leak, SSRF and upload corpora;
# the remote-store tests (replicas, kill -9, leaks) and the Virtuoso test (installed first when
# it can be); prints a table of figures, fails when a test fails. About 25 minutes.
soak: install
	bash scripts/ensure-virtuoso
	$(PY) bench/soak.py

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: install
	$(VENV)/bin/mypy

# Regenerate the vocabulary and shapes files that come from the registries (measures, profiles,
# formats, experiment types); `$(PY) -m service.contracts check` (and a test) fails while stale.
contracts: install
	$(PY) -m service.contracts write

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
