# tierplan: `make serve` and `make test` do all the set-up on a fresh machine.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# htmx is vendored into src/tierplan/static/vendor/ from the npm package htmx.org, pinned here.
HTMX_VERSION := 2.0.11
# Swagger UI for /docs, from the npm package swagger-ui-dist, pinned here.
SWAGGER_UI_VERSION := 5.35.0
# axe-core for the browser tests' accessibility checks only (never served), from npm axe-core, pinned here.
AXE_VERSION := 4.11.0
# Mermaid for the browser test that renders the roadmap's charts (never served), from npm mermaid, pinned here.
MERMAID_VERSION := 11.17.2
PORT ?= 8000  # make serve PORT=8010
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: serve test test-fast lint install chromium vendor bench lock clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# Dependencies come from the lock files (`make lock` refreshes them from pyproject.toml), the app itself after.
$(VENV)/.installed: requirements.lock pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-test: requirements-dev.lock pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.lock
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed

serve: $(VENV)/.installed
	$(BIN)/tierplan serve --port $(PORT)

# Debian's Chromium drives the browser tests (Playwright's own browser download does not work here).
chromium:
	@test -x /usr/bin/chromium || ($(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q chromium)

# ruff and mypy, configured in pyproject.toml; `make test` runs this first.
lint: $(VENV)/.installed-test
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

# The tests run in one process a core (pytest-xdist, at most 4: each may start servers and a browser); tests on
# PostgreSQL take turns on the one `test` database (tests/conftest.py). `make test WORKERS=0` runs them in one process.
WORKERS ?= auto --maxprocesses 4
test: lint chromium
	$(BIN)/pytest -n $(WORKERS)

# The core, the importers and the pages in-process (no browser, no server processes, no PostgreSQL): minutes less.
test-fast: lint
	$(BIN)/pytest -n $(WORKERS) tests/unit tests/web

lock: $(VENV)/.installed-test
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 --quiet --custom-compile-command "make lock" \
	  -o requirements.lock
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 --quiet --custom-compile-command "make lock" \
	  --extra test --extra dev -o requirements-dev.lock

bench: $(VENV)/.installed-test
	$(BIN)/python bench/plan.py
	$(BIN)/python bench/import.py
	$(BIN)/python bench/pages.py
	$(BIN)/python bench/fidelity.py
	$(BIN)/python bench/load.py
	$(BIN)/python bench/uploads.py
	$(BIN)/python bench/writers.py

vendor:
	cd $$(mktemp -d) && npm pack --silent htmx.org@$(HTMX_VERSION) && tar xzf htmx.org-$(HTMX_VERSION).tgz && \
	  { echo '/* htmx.org@$(HTMX_VERSION) (npm package htmx.org, dist/htmx.min.js), vendored unmodified below; refresh with `make vendor`. */'; \
	    cat package/dist/htmx.min.js; } > $(CURDIR)/src/tierplan/static/vendor/htmx.min.js
	cd $$(mktemp -d) && npm pack --silent swagger-ui-dist@$(SWAGGER_UI_VERSION) && \
	  tar xzf swagger-ui-dist-$(SWAGGER_UI_VERSION).tgz && mkdir -p $(CURDIR)/src/tierplan/static/vendor/swagger-ui && \
	  cp package/swagger-ui-bundle.js package/swagger-ui.css package/LICENSE package/NOTICE \
	    $(CURDIR)/src/tierplan/static/vendor/swagger-ui/
	cd $$(mktemp -d) && npm pack --silent axe-core@$(AXE_VERSION) && tar xzf axe-core-$(AXE_VERSION).tgz && \
	  mkdir -p $(CURDIR)/tests/browser/vendor && cp package/axe.min.js package/LICENSE $(CURDIR)/tests/browser/vendor/ && \
	  echo 'axe-core@$(AXE_VERSION) (npm package axe-core), vendored unmodified for the tests; refresh with `make vendor`.' \
	    > $(CURDIR)/tests/browser/vendor/VERSION
	cd $$(mktemp -d) && npm pack --silent mermaid@$(MERMAID_VERSION) && tar xzf mermaid-$(MERMAID_VERSION).tgz && \
	  cp package/dist/mermaid.min.js $(CURDIR)/tests/browser/vendor/ && \
	  cp package/LICENSE $(CURDIR)/tests/browser/vendor/LICENSE.mermaid && \
	  echo 'mermaid@$(MERMAID_VERSION) (npm package mermaid, dist/mermaid.min.js), vendored unmodified for the tests.' \
	    >> $(CURDIR)/tests/browser/vendor/VERSION

clean:
	rm -rf $(VENV) var .pytest_cache
