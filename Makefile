# Two commands for people: `make play` and `make test`. Both build .venv on first use.
# `make test-fast`: the quick loop, every test but those marked slow.
# `make dist [PLATFORMS=linux|windows|macos|all]`: packaged builds (tools/build_apps.py).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The test files spread over the cores, each file whole in one worker (its module fixtures
# made once); at most 4 workers, so that a big machine does not start a game per core.
PARALLEL := -n auto --maxprocesses 4 --dist loadfile

.PHONY: play test test-fast dist clean

PLATFORMS ?= linux

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/python main.py $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(PARALLEL) $(PYTEST_ARGS)

test-fast: $(STAMP)
	$(BIN)/python -m pytest $(PARALLEL) -m "not slow" $(PYTEST_ARGS)

# build_apps reads pyproject.toml through setuptools, which needs 77 or newer for its
# licence fields; it fetches each platform's wheels from the package index.
dist: $(STAMP)
	$(BIN)/python -m pip install --quiet 'setuptools>=77'
	$(BIN)/python tools/build_apps.py $(PLATFORMS)

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info
