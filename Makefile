# Two commands for people: `make play` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: play test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/python main.py $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
