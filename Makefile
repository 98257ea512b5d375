# The two commands of the README: `make run` starts the lab, `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: run test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

run: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_presets
	$(PY) manage.py runlab

test: $(VENV)/.dev
	$(PY) -m pytest -n auto

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .

bench: $(VENV)/.dev
	for script in benchmarks/*.py; do $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) .run staticfiles
