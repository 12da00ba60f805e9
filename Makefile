# MultipliPotion Classroom. `make run` starts everything with demo data; `make test` runs the suite.
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
APP_PORT ?= 8000
# The stream server's port (docs/deploy.md, "Two servers"): the pages' host, this port.
APP_STREAM_PORT ?= $(shell echo $$(($(APP_PORT) + 1)))
APP_HOST ?= 127.0.0.1
# The first Python 3.12+ on PATH (pyenv and uv read .python-version).
PYTHON ?= $(shell for p in python3.12 python3.13 python3.14 python3 python; do \
	if command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; \
	then echo $$p; break; fi; done)

.PHONY: install messages run test lint format lock soak bench fit clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@if [ -z "$(PYTHON)" ]; then echo "Python 3.12 or newer is needed (see .python-version)." >&2; exit 1; fi
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

# The translations, compiled from locale/<lang>/LC_MESSAGES/django.po with Babel (pure Python;
# GNU gettext is needed only to extract the strings, by makemessages: docs/languages.md).
CATALOGUES := $(patsubst %.po,%.mo,$(wildcard locale/*/LC_MESSAGES/django.po))
messages: install $(CATALOGUES)

locale/%/LC_MESSAGES/django.mo: locale/%/LC_MESSAGES/django.po $(STAMP)
	$(BIN)/pybabel compile --statistics -i $< -o $@

run: install messages
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	@echo "Open http://127.0.0.1:$(APP_PORT)/  (Ctrl+C stops the pages, the streams, worker and beat)"
	APP_HOST=$(APP_HOST) APP_PORT=$(APP_PORT) APP_STREAM_PORT=$(APP_STREAM_PORT) \
	LIVE_STREAM_ORIGIN=$${LIVE_STREAM_ORIGIN-:$(APP_STREAM_PORT)} $(BIN)/honcho start -f Procfile

# On every core (pytest-xdist); a bare `pytest tests/x.py::test_y` runs in one process at once.
test: install messages
	$(BIN)/python -m pytest -n auto --dist worksteal --durations=30

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	$(BIN)/python .ci/private_names.py

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Re-pin every dependency after changing pyproject.toml.
lock:
	rm -rf var/lock-venv && $(PYTHON) -m venv var/lock-venv
	var/lock-venv/bin/python -m pip install --quiet --upgrade pip
	var/lock-venv/bin/python -m pip install --quiet -e '.[dev]'
	var/lock-venv/bin/python -m pip freeze --exclude-editable | grep -v '^-e' > constraints.txt
	rm -rf var/lock-venv

# The long reliability tests (docs/reliability.md); set DATABASE_URL and REDIS_URL for all of
# them. Counts: LEAK_GAMES per game, RACE_TRIALS, FUZZ_EXAMPLES per endpoint. In one process
# (-n 0): -s prints every test's figures, which pytest-xdist workers would not show.
soak: install
	LEAK_GAMES=$${LEAK_GAMES:-1000} LEAK_PLIES=$${LEAK_PLIES:-0} RACE_TRIALS=$${RACE_TRIALS:-1000} \
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-300} STACK_SOAK_TABLES=$${STACK_SOAK_TABLES:-10} \
	STACK_SOAK_SECONDS=$${STACK_SOAK_SECONDS:-1200} \
	$(BIN)/python -m pytest tests/reliability -n 0 -q -s -rA

# Benchmarks (not timed tests): writes bench/results/latest.json and latest.md.
bench: install
	$(BIN)/python bench/run.py

# The knowledge model's parameters, fitted on the tuning seeds (bench/fit_knowledge.py;
# docs/analytics.md says which values come from it). pyBKT lives in a virtual environment of
# its own, not in the product's: pyBKT 1.4.3 passes lists to scikit-learn's metrics at import
# (scikit-learn 1.6 and later raise) and stores arrays into float cells (numpy 2 raises), hence
# the upper bounds, and pandas below 3 for that numpy.
FIT := var/fit-venv
fit: install
	@test -x $(FIT)/bin/python || $(PYTHON) -m venv $(FIT)
	$(FIT)/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e .
	$(FIT)/bin/python -m pip install --quiet --disable-pip-version-check \
		"pybkt==1.4.3" "numpy<2" "pandas<3" "scikit-learn<1.6"
	$(FIT)/bin/python -m bench.fit_knowledge --bkt --search

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .hypothesis
