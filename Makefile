# The loops of CONTRIBUTING.md. VENV: the virtual environment (`python3 -m venv .venv && .venv/bin/pip install -e '.[test]'`).
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: fast test lint docs bench

fast:  ## everything but the tests that start a process
	$(PY) -m pytest -n auto -m "not e2e"

test:  ## the whole suite, as CI runs it (.ci/run also starts PostgreSQL)
	$(PY) -m pytest -n auto

lint:  ## formatting, ruff, mypy
	$(PY) -m ruff format --check .
	$(PY) -m ruff check .
	$(PY) -m mypy

docs:  ## the docs, strict: a broken link or a page left out of the navigation fails
	$(VENV)/bin/mkdocs build --strict

bench:  ## every benchmark, each printing its figures beside a baseline measured in the same run
	for script in bench/cli_startup.py bench/ack_latency.py bench/load.py bench/digest.py bench/report.py \
	    bench/discover.py bench/price_ingest.py; do $(PY) $$script || exit 1; done
