# Everything installs into .venv; nothing relies on what was installed by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo test test-slow bench report clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/smsim simulate --games 20000 --players 4 --policy balanced --policy greedy --policy walls --policy random --seed 2026

test: $(STAMP)
	$(BIN)/python -m pytest -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

bench: $(STAMP)
	$(BIN)/python scripts/bench.py

# the committed sample report: about 1,050,000 games from fixed seeds (datasets in runs/baseline/)
report: $(STAMP)
	$(BIN)/python scripts/baseline_report.py

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
