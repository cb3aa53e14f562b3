# Everything installs into .venv; nothing relies on what was installed by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-slow test-min test-latest bench report clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,dask,remote]'
	touch $(STAMP)

# a comparison free of seat bias: every policy in every seat equally often, on the same dice
demo: $(STAMP)
	$(BIN)/smsim compare balanced greedy walls random --players 4 --games 20000 --seed 2026

# the suite on every core (pytest-xdist), a test file to a worker: a file's module fixtures are
# built once; plain `pytest` runs it in one process
XDIST := -n $(or $(TEST_WORKERS),auto) --dist loadfile

test: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST)

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow $(XDIST)

# The version floors in pyproject.toml are claims: test-min installs the lowest versions they admit
# of each direct dependency (uv's lowest-direct resolution), test-latest the newest ones (numba's
# pin caps numpy), each in its own venv with its own numba cache, and runs the default suite.
# Run them with the lowest Python admitted (3.11) or pass PYTHON=...; to pick up releases newer
# than an existing .venv-latest, remove it first.
MIN_VENV := .venv-min
LATEST_VENV := .venv-latest

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

test-min: $(MIN_VENV)/.installed
	$(MIN_VENV)/bin/python -m pip list 2>/dev/null | grep -iE '^(numba|numpy|pandas|pyarrow|matplotlib|click|rich|cma|pytest|pytest-xdist|hypothesis|dask|distributed|fsspec) '
	SMSIM_CACHE_DIR=$(MIN_VENV)/numba-cache $(MIN_VENV)/bin/python -m pytest -q $(XDIST)

test-latest: $(LATEST_VENV)/.installed
	$(LATEST_VENV)/bin/python -m pip list 2>/dev/null | grep -iE '^(numba|numpy|pandas|pyarrow|matplotlib|click|rich|cma|pytest|pytest-xdist|hypothesis|dask|distributed|fsspec) '
	SMSIM_CACHE_DIR=$(LATEST_VENV)/numba-cache $(LATEST_VENV)/bin/python -m pytest -q $(XDIST)

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

# the committed sample report at three strengths of play: mirrors of balanced and learned (150,000
# games each per player count), of rollout-learned at every player count (5,000 games at 2 and 4
# players, 2,000 at 3 and 5, or SEARCH_GAMES at each: about 12 core-hours; SEARCH_HOURS=H stops them
# and the ladder after H hours in all and reports what is done), the skill studies, sweeps and fairness searches, the keep regret of every built-in at 4
# players (mirrors; the search one seat against learned, 40 games), and the ladder of play (random to
# rollout-learned at 2 and 4 players, the search's cells capped at 1,000 games: about a core-hour)
# (scripts/baseline_report.py; datasets in runs/baseline/)
# RUNS=DIR keeps the datasets elsewhere (say, outside the checkout, to resume them from a later clone)
RUNS ?= runs/baseline
report: $(STAMP)
	$(BIN)/python scripts/baseline_report.py --runs $(RUNS) $(if $(SEARCH_GAMES),--search-games $(SEARCH_GAMES)) $(if $(SEARCH_HOURS),--search-hours $(SEARCH_HOURS))

clean:
	rm -rf $(VENV) $(MIN_VENV) $(LATEST_VENV) .pytest_cache build *.egg-info
