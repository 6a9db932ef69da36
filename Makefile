# Two commands set everything up on a fresh machine:
#   make book   create the environment, build the website into _build/html
#   make test   the whole test suite (installs first when needed)
# The virtual environment lives outside the clone, keyed by a hash of requirements.txt, so a
# second clone or a second run reuses it and a changed requirements file builds a new one.
# .venv is a link to it.

SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
CACHE_DIR ?= $(HOME)/.cache/gradient-mechanics
REQ_HASH := $(shell sha256sum requirements.txt | cut -c1-16)
VENV_DIR := $(CACHE_DIR)/venv-$(REQ_HASH)
BIN := .venv/bin
NOTEBOOKS := $(sort $(wildcard notebooks/*.ipynb))
ZH_NOTEBOOKS := $(sort $(wildcard notebooks/zh/*.ipynb))
NB ?= $(NOTEBOOKS)
PYTEST_WORKERS ?= 2

.PHONY: install _venv book catalogs slides student test execute lab bench gpu-check format clean

install:
	@mkdir -p "$(CACHE_DIR)"
	@flock "$(CACHE_DIR)/install.lock" $(MAKE) --no-print-directory _venv
	@ln -sfn "$(VENV_DIR)" .venv

# Only ever run under the lock above, so that two makes never build the same environment at once.
_venv:
	@if [ ! -f "$(VENV_DIR)/.installed" ]; then \
	  echo "Creating $(VENV_DIR) (first run: a few minutes)"; \
	  rm -rf "$(VENV_DIR)" && \
	  $(PYTHON) -m venv "$(VENV_DIR)" && \
	  "$(VENV_DIR)/bin/python" -m pip install --quiet --upgrade pip && \
	  "$(VENV_DIR)/bin/python" -m pip install --quiet -r requirements.txt && \
	  touch "$(VENV_DIR)/.installed"; \
	fi

book: install
	$(BIN)/jupyter-book build . -W -n --keep-going
	$(BIN)/python book/_ext/edition.py config
	$(BIN)/jupyter-book build . --config _config.zh.yml --path-output _build/zh -W -n --keep-going
	rm -rf _build/html/zh && cp -r _build/zh/_build/html _build/html/zh
	$(BIN)/python book/_ext/notebook_runner.py slides $(NOTEBOOKS)
	$(BIN)/python book/_ext/notebook_runner.py slides --out _build/html/zh/slides $(ZH_NOTEBOOKS)
	@echo "Open file://$(CURDIR)/_build/html/index.html (Chinese edition: _build/html/zh/)"

# After changing English prose: update the translation catalogs (book/locales/), then translate
# what `edition.py check` lists as untranslated or stale.
catalogs: install
	$(BIN)/python book/_ext/edition.py catalogs
	$(BIN)/python book/_ext/edition.py notebooks
	$(BIN)/python book/_ext/edition.py check

# Lecture slides (reveal.js, no network needed) into _build/html/slides/ (Chinese: _build/html/zh/slides/),
# linked from the teacher's guide.
slides: install
	$(BIN)/python book/_ext/notebook_runner.py slides $(NOTEBOOKS)
	$(BIN)/python book/_ext/notebook_runner.py slides --out _build/html/zh/slides $(ZH_NOTEBOOKS)

# Handouts for students: solutions removed, outputs cleared, in _build/student/ (Chinese: _build/student/zh/).
student: install
	$(BIN)/python book/_ext/notebook_runner.py student $(NOTEBOOKS)
	$(BIN)/python book/_ext/notebook_runner.py student --out _build/student/zh $(ZH_NOTEBOOKS)

test: install
	$(BIN)/python -m pytest tests -n $(PYTEST_WORKERS) --dist loadgroup

# Re-run notebooks in place from a fresh kernel, saving widget state (how notebooks are committed).
execute: install
	$(BIN)/python book/_ext/notebook_runner.py execute $(NB)
	$(BIN)/python book/_ext/edition.py notebooks

# Run every notebook from a fresh kernel and print the time budget table (not part of make test).
bench: install
	$(BIN)/python book/_ext/notebook_runner.py bench $(NOTEBOOKS)

# On a machine with a GPU: every notebook runs on CUDA; asserts must hold (outputs are not compared).
# Format and lint-fix the notebooks and Python files (ruff.toml); make test checks the result.
format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

gpu-check: install
	$(BIN)/python book/_ext/notebook_runner.py gpu-check $(NOTEBOOKS)

lab: install
	$(BIN)/python -m pip install --quiet jupyterlab
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf _build .pytest_cache
