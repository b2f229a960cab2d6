# Set-up and test entry points. `make test` is what CI (.ci/run) and the README run.
# Everything installs into a project virtual environment, .venv (python3 -m venv): never into the
# system interpreter, so it works under PEP 668 (Debian/Ubuntu's externally-managed Python) and on
# macOS alike. Needs Python 3.11+ with venv (on Debian/Ubuntu: apt-get install python3-venv).
PYTHON ?= python3
VENV ?= .venv
VPY := $(VENV)/bin/python
PIP := $(VPY) -m pip --disable-pip-version-check --quiet
# the venv's tools (evalgate, pytest, ruff, hadolint, check-jsonschema) come first for every recipe
export PATH := $(abspath $(VENV))/bin:$(PATH)

.PHONY: install install-test test demo lint bench

# The venv, checked: a Debian python3 without python3-venv leaves a venv with no pip behind, so a
# failed creation removes it and says what to install.
$(VPY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
	  || { echo "evalgate needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) -V 2>&1)" >&2; exit 1; }
	@$(PYTHON) -m venv $(VENV) && $(VPY) -m pip --version >/dev/null 2>&1 \
	  || { rm -rf $(VENV); echo "could not create $(VENV) with '$(PYTHON) -m venv'" \
	       "(on Debian/Ubuntu: apt-get install python3-venv)" >&2; exit 1; }

# Stamps: reinstall only when pyproject.toml changes (the install is editable, code edits need none).
$(VENV)/.demo: $(VPY) pyproject.toml
	$(PIP) install -e .
	@touch $@

$(VENV)/.test: $(VPY) pyproject.toml package-lock.json
	$(PIP) install -e '.[test]'
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@ $(VENV)/.demo

install: $(VENV)/.demo

install-test: $(VENV)/.test

# The main job on the bundled gold set: structural checks, no credentials. The gold set holds
# deliberately failing items, so evalgate exits 1 by design; the demo reports that exit code in a
# sentence and itself ends with 0. A usage or configuration error (2) still fails the demo.
demo: $(VENV)/.demo
	@$(VENV)/bin/evalgate check gold/research-loop/; code=$$?; \
	if [ $$code -eq 0 ]; then \
	  echo "The gate's exit code was 0: every file passed, so CI would pass."; \
	elif [ $$code -eq 1 ]; then \
	  echo "The gate's exit code was 1: in CI this run would fail, as it should here, because the gold set holds deliberately failing items."; \
	else \
	  echo "evalgate exited $$code: a usage or configuration error, see above." >&2; exit $$code; \
	fi

test: $(VENV)/.test
	$(VPY) -m pytest -n 2 -q

lint: $(VENV)/.test
	ruff check evalgate tests bench entrypoint.py
	ruff format --check evalgate tests bench entrypoint.py

bench: $(VENV)/.demo
	$(VPY) bench/structural.py
