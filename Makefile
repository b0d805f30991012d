PY ?= .venv/bin/python

.PHONY: install check test fmt snapshots-update bench

install:
	python3 -m venv .venv && $(PY) -m pip install -q -e '.[test]'

check:
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(dir $(PY))lint-imports
	$(PY) -m mypy --strict app widgets
	$(PY) -m pytest -q -n auto

test:
	$(PY) -m pytest -q -n auto

fmt:
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

snapshots-update:
	$(PY) -m pytest -q tests/snapshots/test_snapshots.py --snapshot-update

bench:
	$(PY) -m bench
