# The commands: `make run` starts the product, `make test` installs it and runs every test (CI),
# `make check` the fast tier for every commit.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test check bench load install clean translations

# Reinstall whenever the dependency list changes; the editable install picks up code changes by itself.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	$(PY) -m bots.native
	touch $(STAMP)

install: $(STAMP)

CHROMIUM ?= $(or $(MANILLE_CHROMIUM),/usr/bin/chromium)

test: $(STAMP)
	@test -x $(CHROMIUM) || echo "make test: no Chromium at $(CHROMIUM): the browser tests (tests/web) are SKIPPED; install Debian's chromium package to run them"
	@command -v faketime >/dev/null 2>&1 || echo "make test: no faketime: the browser tests (tests/web, on a fixed day) are SKIPPED; install Debian's faketime package to run them"
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || echo "make test: no nginx: the proxy test (tests/service/test_svc_nginx.py) is SKIPPED; install Debian's nginx package to run it"
	$(PY) -m pytest -q
	@echo "make test: the service tests again, with the state on a real Redis Cluster of 3 masters and 3 replicas (MANILLE_TEST_CLUSTER=1)"
	MANILLE_TEST_CLUSTER=1 $(PY) -m pytest -q -p no:cacheprovider tests/service

# The engine, the bots, the command line and the API in process (Flask's test client on the real
# Redis the fixtures start): every test but those marked `stack` (they start the product's
# processes, a browser, nginx, a cluster: all of tests/web) or `slow` (pyproject.toml's markers),
# on every core (pytest-xdist: each process has its own Redis).
check: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -n auto -m "not stack and not slow" --ignore=tests/web

# Redis (embedded, AOF under ./var/, unless REDIS_URL is set), the RQ workers (verification, the two
# analysis queues, the bots' pool) and gunicorn on http://127.0.0.1:8000, supervised
# (service/run_local.py); Ctrl-C stops them all.
run: $(STAMP)
	$(PY) -m service.run_local

# After changing a template's strings: refresh the catalogues, translate the new entries in
# service/web/translations/{fr,nl}/LC_MESSAGES/messages.po, then run this again to compile them.
TRANSLATIONS := service/web/translations
translations: $(STAMP)
	$(VENV)/bin/pybabel extract -F babel.cfg --no-location --omit-header -o $(TRANSLATIONS)/messages.pot .
	$(VENV)/bin/pybabel update --no-fuzzy-matching --ignore-obsolete -i $(TRANSLATIONS)/messages.pot -d $(TRANSLATIONS)
	$(VENV)/bin/pybabel compile --statistics -d $(TRANSLATIONS)

bench: $(STAMP)
	$(VENV)/bin/manille bench

# locust's realistic mix against a make run of its own (limits off), 127.0.0.1 only: 60 s on a cold
# day, then 60 s once the day's warm is done.
load: $(STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(PY) scripts/load_test.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis bots/native/_dds-*.so
