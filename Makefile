# The two commands of the README: `make run` starts the lab, `make test` runs every test.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: run test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# The project itself in editable mode: its kinds are found by their entry points (pyproject.toml).
$(VENV)/.runtime: requirements.txt pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	$(PY) -m pip install --quiet --no-deps -e .
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
