# Everything installs into .venv; nothing relies on what was installed by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Python's bytecode caches on, whatever the environment says (some images set
# PYTHONDONTWRITEBYTECODE): without them every test process compiles smsim's sources and pytest
# rewrites every test module again, 4-5 s of each worker's start and of each process a test starts.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install demo test test-slow test-min test-latest lint format docs-check coverage bench report clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dask,remote,lint]'
	touch $(STAMP)

# a comparison free of seat bias: every policy in every seat equally often, on the same dice
demo: $(STAMP)
	$(BIN)/smsim compare balanced greedy walls random --players 4 --games 20000 --seed 2026

# The suite on every core (pytest-xdist), a test file to a worker: a file's module fixtures are
# built once; plain `pytest` runs it in one process. Before the workers start, the engine's loops
# are compiled once, in two processes of about the same length (the search's loop takes as long as
# the other three; on a warm cache this only loads them, in about 2 s):
# otherwise each worker compiles the same loops beside the other on a fresh clone. `make test`
# prints its 20 slowest tests and the suite's test time against its budget (tests/timing.py).
XDIST := -n $(or $(TEST_WORKERS),auto) --dist loadfile
# files handed out longest first, by their seconds in the last run (tests/timing.py), not by xdist's
# count of tests (the flag is xdist's since 3.6; test-min's lowest xdist keeps the collected order)
ORDERED := --no-loadscope-reorder
WARM = $(1)/python -c 'from smsim.warmup import warmup; warmup(["play", "trace", "learned"])' & \
	$(1)/python -c 'from smsim.warmup import warmup; warmup(["search"])'; wait

test: $(STAMP)
	$(call WARM,$(BIN))
	$(BIN)/python -m pytest -q $(XDIST) $(ORDERED) --durations=20

# the long statistical and large-sample tests, and those that start processes or compile in an
# empty cache (docs/development.md lists them)
test-slow: $(STAMP)
	$(call WARM,$(BIN))
	$(BIN)/python -m pytest -q -m slow $(XDIST) $(ORDERED) --durations=20

# The version floors in pyproject.toml are claims: test-min installs the lowest versions they admit
# of each direct dependency (uv's lowest-direct resolution), test-latest the newest ones (numba's
# pin caps numpy), each in its own venv with its own numba cache. They run the tests whose outcome
# can depend on those versions (COMPAT: docs/development.md says why these and not the rest).
# Run them with the lowest Python admitted (3.11) or pass PYTHON=...; to pick up releases newer
# than an existing .venv-latest, remove it first.
MIN_VENV := .venv-min
LATEST_VENV := .venv-latest
COMPAT := tests/runs tests/cli tests/report tests/engine tests/play/test_loop.py tests/play/test_api.py \
	tests/policies/test_interface.py tests/policies/test_registry.py tests/studies/test_compare.py \
	tests/studies/test_sweep.py tests/studies/test_tune.py tests/studies/test_bonus.py \
	tests/test_stats.py tests/test_cache.py tests/test_checks.py \
	tests/studies/test_learn.py::test_a_fit_is_the_same_whatever_the_blas_threads
# Left out of COMPAT's files: the tests that compile a loop of their own beyond the heuristic
# one (the learned, exact-keep and search line-ups' fixed-seed games, the replay page's valued
# moves and pages written by play --html, the win-probability and keep-regret commands, restricted
# play, round snapshots; and, marked own_loop, those reading study folders or levels of play
# built with such loops: the ladder's levels, every kind of folder, the report's levels and feel).
# Under the lowest numba they compile for half an hour of CPU in all, and what they check of numba
# is the heuristic loop's contract, which the fixed-seed test of heuristic games checks here.
COMPAT_DESELECT := not learned_exact_and_search and not replay and not winprob and not regret \
	and not a_seat_without_a_part and not round_snapshots and not page_into_directories
DEPS := '^(numba|numpy|pandas|pyarrow|matplotlib|click|rich|cma|threadpoolctl|pytest|pytest-xdist|hypothesis|dask|distributed|fsspec) '

$(MIN_VENV)/.installed: pyproject.toml
	rm -rf $(MIN_VENV)
	$(PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/pip install --quiet uv
	$(MIN_VENV)/bin/uv pip install --quiet --python $(MIN_VENV)/bin/python --resolution lowest-direct -e '.[test,dask,remote]'
	touch $@

$(LATEST_VENV)/.installed: pyproject.toml
	rm -rf $(LATEST_VENV)
	$(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/pip install --quiet uv
	$(LATEST_VENV)/bin/uv pip install --quiet --python $(LATEST_VENV)/bin/python --resolution highest --refresh -e '.[test,dask,remote]'
	touch $@

COMPAT_WARM = $(1)/python -c 'from smsim.warmup import warmup; warmup(["play"])' & \
	$(1)/python -c 'from smsim.warmup import warmup; warmup(["trace"])'; wait

test-min: $(MIN_VENV)/.installed
	$(MIN_VENV)/bin/python -m pip list 2>/dev/null | grep -iE $(DEPS)
	export SMSIM_CACHE_DIR=$(MIN_VENV)/numba-cache; $(call COMPAT_WARM,$(MIN_VENV)/bin)
	SMSIM_CACHE_DIR=$(MIN_VENV)/numba-cache $(MIN_VENV)/bin/python -m pytest -q $(XDIST) -p no:cacheprovider \
		-m 'not slow and not own_loop' -k '$(COMPAT_DESELECT)' --durations=10 $(COMPAT)

test-latest: $(LATEST_VENV)/.installed
	$(LATEST_VENV)/bin/python -m pip list 2>/dev/null | grep -iE $(DEPS)
	export SMSIM_CACHE_DIR=$(LATEST_VENV)/numba-cache; $(call COMPAT_WARM,$(LATEST_VENV)/bin)
	SMSIM_CACHE_DIR=$(LATEST_VENV)/numba-cache $(LATEST_VENV)/bin/python -m pytest -q $(XDIST) -p no:cacheprovider \
		-m 'not slow and not own_loop' -k '$(COMPAT_DESELECT)' --durations=10 $(COMPAT)

# ruff (pinned in the lint extra): the linter and the formatter's check on the whole tree;
# `make format` rewrites what the check would refuse
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# the documents against the code: every module in docs/architecture.md, every rules citation a
# section, every command the README shows parsed and the cheap ones run, the public API
# offering every command's study (they run in the default suite too)
DOCS_TESTS := tests/test_docs.py tests/test_readme.py tests/test_package.py
docs-check: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider $(DOCS_TESTS)

# line coverage of smsim by the default suite (coverage.py through pytest-cov, installed here on
# first use: only this target needs it)
coverage: $(STAMP)
	$(BIN)/python -c 'import pytest_cov' 2>/dev/null || $(BIN)/pip install --quiet 'pytest-cov>=5'
	$(call WARM,$(BIN))
	$(BIN)/python -m pytest -q $(XDIST) --cov=smsim --cov-report=term:skip-covered --cov-report=json:coverage.json

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

# the committed sample report: `smsim study` of the printed rules with the balance report's studies
# (docs/study.md): its arms (L1 and L2 mirrors, each wall bonus withheld, L2 among L1 at 2 to 5
# players) played until their verdicts settle, at least 40,000 games an arm (what the report's own
# verdicts on those arms need: the bonuses' VP across levels, the two 2-coin sides) and at most
# 150,000; then the baseline's fixed-count
# studies (studies/balance.py), the search's slow mirrors last, stopped at REPORT_TIME (they resume
# on the next run and the report reads what is done). Datasets in RUNS (not committed; RUNS=DIR
# keeps them outside the checkout, to resume from a later clone).
RUNS ?= runs/baseline
REPORT_TIME ?= 3h
report: $(STAMP)
	$(BIN)/smsim study --balance --seed 2026 --players 2,3,4,5 --first-games 40000 --max-games 150000 \
		--time $(REPORT_TIME) --out $(RUNS) --report reports/baseline --title "Saint Malo balance report: baseline" \
		$(if $(wildcard reports/feel/report.md),--see-also reports/feel)

clean:
	rm -rf $(VENV) $(MIN_VENV) $(LATEST_VENV) .pytest_cache build *.egg-info .coverage coverage.json
