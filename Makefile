# samestory: two commands set up everything on a fresh machine.
#   make run   - create .venv, install, start the HTTP service on SQLite (./var) with the bundled model
#                (installs only what that needs; e.g. `make run EXTRAS=postgres DB=postgresql://...`)
#   make test  - create .venv if needed, install with test extras, run ruff, mypy and the tests not marked slow (what CI runs)
#   make check - the fast tier while working: ruff, then the tests not marked heavy or slow (no mypy)
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
DB ?= sqlite:///var/samestory.db
# Extras for `make run`: none for the default (bundled USE model in numpy, SQLite from the stdlib).
EXTRAS ?=
# One stamp per set of extras: with one stamp, `make run EXTRAS=postgres` after a plain `make run`
# found .venv up to date and served without psycopg.
comma := ,
INSTALLED := $(VENV)/.installed$(if $(EXTRAS),-with-$(subst $(comma),-,$(EXTRAS)))

.PHONY: help run test check install install-test lint demo clean

# `make` alone lists the targets (it used to create .venv and stop: the first rule was $(BIN)/python).
.DEFAULT_GOAL := help

# Every target with a `## text` comment, in file order.
help: ## list these targets
	@awk -F ':.*## ' '/^[a-z-]+:.*## / {printf "  make %-13s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e "."
	touch $@

ifneq ($(EXTRAS),)
$(INSTALLED): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e ".[$(EXTRAS)]"
	touch $@
endif

# torch is installed first and pinned: an unpinned torch pulls a multi-GB CUDA build.
$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/pip install --quiet "torch==2.13.0"
	$(BIN)/pip install --quiet -e ".[postgres,redis,e5,st,baselines,bench,ray,batch,dev]"
	touch $@

install: $(INSTALLED) ## create .venv and install the default (what `make run` needs)
install-test: $(VENV)/.installed-test ## install the test extras too (what `make test` needs)

run: $(INSTALLED) ## install, serve the HTTP API on 127.0.0.1:8000 (change with PORT=, HOST=, DB=, EXTRAS=)
	mkdir -p var
	$(BIN)/samestory serve --db $(DB) --host $(HOST) --port $(PORT)

# A fresh store each time (the demo refuses one that already holds documents), kept for `samestory serve --db`.
demo: $(INSTALLED) ## ingest the bundled sample feed into var/demo.db, print its copy groups and stories
	mkdir -p var
	rm -f var/demo.db var/demo.db-wal var/demo.db-shm var/demo.db.faiss var/demo.db.state.npz
	$(BIN)/samestory demo --db sqlite:///var/demo.db

# mypy checks the packages listed in pyproject.toml ([tool.mypy] files), before the tests run.
# Two workers (pytest-xdist), each taking whole files (--dist loadfile: a file's module fixtures are
# built once): the suite ran 31 minutes on one of the CI machine's two cores. PostgreSQL schemas,
# Redis prefixes, ports and temporary folders are per test, so workers do not share state.
test: $(VENV)/.installed-test ## ruff, mypy and the tests not marked slow, on two workers (what CI runs)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -m "not slow" --timeout=900 --durations=15 -n 2 --dist loadfile

# The fast tier: everything but the tests marked heavy (model builds, torch, Ray, Chromium,
# schemathesis, PostgreSQL concurrency, long eval and bench runs; see pyproject.toml's markers)
# and slow. `make test` still runs the heavy ones.
check: $(VENV)/.installed-test ## the fast tier: ruff, then the tests not marked heavy or slow
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -m "not heavy and not slow" --timeout=900 --durations=10

lint: $(VENV)/.installed-test ## ruff and mypy
	$(BIN)/ruff check .
	$(BIN)/mypy

clean: ## remove .venv, var (the stores!) and the caches
	rm -rf $(VENV) var .pytest_cache .ruff_cache *.egg-info
