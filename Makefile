# Set-up and test entry points. `make test` is what CI (.ci/run) and the README run.
PYTHON ?= python3

.PHONY: install install-test test demo lint bench

install:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -e .

install-test:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	npm ci --no-audit --no-fund --loglevel=error

# The main job on the bundled gold set: structural checks, no credentials. The gold set holds
# deliberately failing items, so evalgate exits 1 by design (make then reports `Error 1`, exit 2).
demo: install
	evalgate check gold/research-loop/

test: install-test
	$(PYTHON) -m pytest -n 2 -q

lint:
	ruff check evalgate tests bench entrypoint.py
	ruff format --check evalgate tests bench entrypoint.py

bench: install
	$(PYTHON) bench/structural.py
