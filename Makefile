# tierplan: `make serve` and `make test` do all the set-up on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# htmx is vendored into static/vendor/ from the npm package htmx.org, pinned here.
HTMX_VERSION := 2.0.11
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: serve test install chromium vendor bench screenshot clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

serve: $(VENV)/.installed
	$(BIN)/tierplan serve

# Debian's Chromium drives the browser tests (Playwright's own browser download does not work here).
chromium:
	@test -x /usr/bin/chromium || ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q chromium)

test: $(VENV)/.installed-test chromium
	$(BIN)/pytest

bench: $(VENV)/.installed-test
	$(BIN)/python bench/plan.py
	$(BIN)/python bench/import.py
	$(BIN)/python bench/pages.py
	$(BIN)/python bench/fidelity.py

vendor:
	cd $$(mktemp -d) && npm pack --silent htmx.org@$(HTMX_VERSION) && tar xzf htmx.org-$(HTMX_VERSION).tgz && \
	  { echo '/* htmx.org@$(HTMX_VERSION) (npm package htmx.org, dist/htmx.min.js), vendored unmodified below; refresh with `make vendor`. */'; \
	    cat package/dist/htmx.min.js; } > $(CURDIR)/static/vendor/htmx.min.js

clean:
	rm -rf $(VENV) var .pytest_cache
