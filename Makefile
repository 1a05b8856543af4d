# make demo: a Stoppa Swiss tournament of built-in bots, played to the end, then standings and leaderboard.
# make lint: the static gate: ruff, then mypy (both configured in pyproject.toml).
# make test: make lint (a finding fails the build), then the suite on the embedded defaults (SQLite,
#            eager Celery), then again the tests marked `services` against PostgreSQL, Redis and a
#            real Celery worker (scripts/test-services; skipped when those servers don't answer,
#            except under CI=true).
# make screenshots: every page at 390 and 1280 px into screenshots/, from a sample club played in a
#            throwaway database (needs Debian's Chromium: apt-get install chromium; docs/web.md).

PYTHON_BOOTSTRAP := $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo lint test screenshots clean

# Re-installed only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON_BOOTSTRAP) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo

# ruff checks the whole tree (its rules: pyproject.toml, [tool.ruff]); mypy checks engine/ and bots/
# ([tool.mypy]), incrementally from .mypy_cache: a second run on unchanged code takes about a second.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check --no-fix .
	$(VENV)/bin/mypy

# The first leg runs with none of the service variables the caller's shell may have set, in
# TEST_WORKERS processes (pytest-xdist; each its own SQLite database; worksteal: the long tests
# don't leave one process idle at the end). `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= auto
test: lint
	env -u DATABASE_URL -u CELERY_BROKER_URL -u CELERY_RESULT_BACKEND $(PY) -m pytest -n $(TEST_WORKERS) --dist worksteal
	scripts/test-services

screenshots: $(VENV)/.installed
	env -u DATABASE_URL -u CELERY_BROKER_URL -u CELERY_RESULT_BACKEND $(PY) manage.py screenshots

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache .hypothesis staticfiles .mypy_cache .ruff_cache
