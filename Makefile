# Two commands on a fresh machine: `make run` (the hub on http://127.0.0.1:8000, SQLite, no
# services, its manual built and served at /docs/) and `make test` (every test). Both create .venv
# and install requirements-dev.txt.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
OIDC_DEV_KEY := .oidc-dev-key.pem
HUB_DEV_KEY := .hub-dev-key.pem

.PHONY: install run docs reference client worker beat test lint bench fuzz stack stack-check soak vps-check clean

$(VENV)/.installed: requirements.txt requirements-postgres.txt requirements-dev.txt requirements-docs.txt cli/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

run: install docs $(OIDC_DEV_KEY) $(HUB_DEV_KEY)
	@$(MAKE) --no-print-directory client || echo "make run: the client's wheel was not built (above); /client/ says how"
	$(PY) manage.py migrate --noinput
	LTM_OIDC_RSA_KEY="$${LTM_OIDC_RSA_KEY:-$$(cat $(OIDC_DEV_KEY))}" LTM_WEBAUTHN_ALLOW_HTTP=1 \
		LTM_HUB_KEY="$${LTM_HUB_KEY:-$$(cat $(HUB_DEV_KEY))}" \
		$(PY) manage.py runserver $(HOST):$(PORT)

# The hub as an OpenID Connect provider in development signs ID tokens with a key made once and
# kept out of git (docs/sign-in.md); passkeys work on http://localhost:$(PORT) there.
$(OIDC_DEV_KEY): | $(VENV)/.installed
	$(PY) manage.py ltm_oidc_key > $@

# The hub's federation key in development (docs/federation.md), made once and kept out of git.
$(HUB_DEV_KEY): | $(VENV)/.installed
	$(PY) manage.py ltm_hub_key > $@

# The manual: docs/ (mkdocs.yml) built into docs_site/, which the hub serves at /docs/. Strict: a
# broken link or a page missing from the navigation fails (CI runs this too).
docs: install
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(VENV)/bin/mkdocs build --strict --quiet

# The manual's generated reference pages (the CLI, the MCP tools, the API's operations), written
# from the code; a test fails when the committed pages differ from what the code gives.
reference: install
	$(PY) docs/generate/reference.py

# The Python client (cli/) as a wheel the hub serves at /client/ (connect/wheel.py), in
# client_dist/; built again when cli/ changes. `pip wheel` fetches setuptools, so it needs the
# package index; without it `make run` still starts, and /client/ says how to build the wheel.
CLIENT_SOURCES := cli/pyproject.toml $(shell find cli/ltm -type f \( -name '*.py' -o -name '*.json' \) 2>/dev/null)

client: client_dist/.built

client_dist/.built: $(VENV)/.installed $(CLIENT_SOURCES)
	$(PY) -m connect.wheel client_dist
	touch $@

# Celery's entry point (hub/celery.py) defaults to the production settings; here it is development.
worker: install
	DJANGO_SETTINGS_MODULE=hub.settings.local $(VENV)/bin/celery -A hub worker --loglevel=info

beat: install
	DJANGO_SETTINGS_MODULE=hub.settings.local $(VENV)/bin/celery -A hub beat --loglevel=info

# ruff's rules and style (ruff.toml) first: a quick failure; `ruff format .` fixes the style.
test: lint
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

# Needs wrk (apt-get install wrk). DATABASE_URL picks the database; BENCH_ARGS="--json run.json" etc.
bench: install
	$(PY) bench/bench.py $(BENCH_ARGS)

# The production stack without Docker: the Procfile under honcho with the production settings, on
# loopback, against local PostgreSQL and Redis (the database must exist: `createdb ltm_stack`).
# Needs SECRET_KEY; the other variables have local defaults (web and worker count their metrics
# under artifacts/metrics: /metrics answers with LTM_METRICS_TOKEN set). Static files are collected first,
# as the Docker image does at build time; then `release` (migrate), then proxy, web, worker and
# beat. The proxy (nginx: apt-get install nginx) listens on HOST:PORT; honcho gives each process
# type the next hundred ports, so web (granian, on loopback only) is on PORT+100.
STACK_ENV = PATH="$(CURDIR)/$(VENV)/bin:$$PATH" DJANGO_SETTINGS_MODULE=hub.settings.production \
	DATABASE_URL="$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/ltm_stack}" \
	REDIS_URL="$${REDIS_URL:-redis://127.0.0.1:6379/0}" ALLOWED_HOSTS="$${ALLOWED_HOSTS:-127.0.0.1,localhost}" \
	SECURE_COOKIES="$${SECURE_COOKIES:-0}" LTM_TRUST_PROXY_HEADERS=1 WEB_HOST=127.0.0.1 \
	PROMETHEUS_MULTIPROC_DIR="$${PROMETHEUS_MULTIPROC_DIR:-$(CURDIR)/artifacts/metrics}" \
	PROXY_HOST="$(HOST)" PROXY_UPSTREAMS="127.0.0.1:$$(($(PORT) + 100))" PORT="$(PORT)"

stack: install docs client
	@test -n "$$SECRET_KEY" || { echo "make stack: set SECRET_KEY (and keep it: sessions depend on it)"; exit 2; }
	$(STACK_ENV) $(PY) manage.py collectstatic --noinput -v0
	$(STACK_ENV) $(VENV)/bin/honcho start release
	$(STACK_ENV) $(VENV)/bin/honcho start proxy web worker beat

# CI's checks (checks/): schemathesis against a live hub on PostgreSQL (DATABASE_URL, default
# ltm_fuzz; FUZZ_ARGS="--seed 7"), then the stack: a smoke journey with outages, then a soak
# (SOAK_ARGS="--minutes 10").
fuzz: install
	$(PY) checks/fuzz.py $(FUZZ_ARGS)

stack-check: install
	$(PY) checks/stack_check.py $(STACK_CHECK_ARGS)

soak: install
	$(PY) checks/soak.py $(SOAK_ARGS)

# The $5 VPS profile (docs/production.md): its stack on SQLite, 20,000 mixed requests, then the
# proportional set size of all its processes, which must stay under 150 MiB. The hub runs from
# $(VPS_VENV), which holds requirements.txt alone, as the profile installs it: not .venv's
# PostgreSQL driver, test and documentation tools (psycopg, Jinja2 and Markdown, which Django and
# DRF import when they find them). VPS_CHECK_ARGS="--profile default" measures the default profile.
VPS_VENV ?= .venv-vps
$(VPS_VENV)/.installed: requirements.txt cli/pyproject.toml
	$(PYTHON) -m venv $(VPS_VENV)
	$(VPS_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VPS_VENV)/bin/python -m pip install --quiet -r requirements.txt
	touch $@

vps-check: install $(VPS_VENV)/.installed
	$(PY) checks/vps_check.py --python $(VPS_VENV)/bin/python $(VPS_CHECK_ARGS)

clean:
	rm -rf $(VENV) $(VPS_VENV) staticfiles docs_site client_dist artifacts .pytest_cache
