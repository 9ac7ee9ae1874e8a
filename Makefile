# Two commands on a fresh machine: `make run` (the hub on http://127.0.0.1:8000, SQLite, no
# services) and `make test` (every test). Both create .venv and install requirements-dev.txt.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run worker beat test bench clean

$(VENV)/.installed: requirements.txt requirements-dev.txt cli/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py runserver $(HOST):$(PORT)

# Celery's entry point (hub/celery.py) defaults to the production settings; here it is development.
worker: install
	DJANGO_SETTINGS_MODULE=hub.settings.local $(VENV)/bin/celery -A hub worker --loglevel=info

beat: install
	DJANGO_SETTINGS_MODULE=hub.settings.local $(VENV)/bin/celery -A hub beat --loglevel=info

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

# Needs wrk (apt-get install wrk). DATABASE_URL picks the database; BENCH_ARGS="--json run.json" etc.
bench: install
	$(PY) bench/bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) staticfiles artifacts .pytest_cache
