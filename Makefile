# aqmlab: `make help` lists the targets. Needs only python3 (>= 3.10), cargo and make; everything
# else is installed from PyPI into .venv on first use.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
CARGO  ?= cargo
# The Python that pyo3's build script and maturin build against.
export PYO3_PYTHON := $(abspath $(PY))

RUST_SOURCES := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)

.PHONY: help setup demo test test-rust test-py bench lint fmt docs clean

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "} {printf "  make %-10s %s\n", $$1, $$2}'

$(VENV)/.deps: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "maturin>=1.5,<2"
	touch $@

# maturin installs the package's dependencies (and the dev extra: pytest, ruff) from PyPI and
# builds the Rust extension into python/aqmlab/ (an editable install).
$(VENV)/.built: $(VENV)/.deps $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --extras dev,dask
	touch $@

setup: $(VENV)/.built ## create .venv, install the Python dependencies, build the extension

demo: setup ## run DropTail vs RED vs gentle RED (30 flows, 150 s); results under results/demo/
	$(PY) -m aqmlab.demo --out results/demo

test: lint test-rust test-py ## all checks: fmt, clippy, ruff, then cargo test (core and binding) + pytest

test-rust: setup ## Rust tests (core, then the binding's unit tests)
	$(CARGO) test
	$(CARGO) test -p aqmlab-py

test-py: setup ## pytest (API, CLI, bad input, determinism, every scenario file)
	$(PY) -m pytest -q

bench: ## whole-run benchmark (release build of the core)
	$(CARGO) run --release -p aqmlab-core --example bench

lint: setup ## cargo fmt --check, clippy -D warnings, ruff check / format --check, stubtest
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests
	$(VENV)/bin/ruff format --check python tests
	$(PY) -m mypy.stubtest aqmlab._core

docs: ## regenerate schema/aqmlab-scenario.schema.json and the reference tables of docs/scenarios.md
	AQMLAB_BLESS=1 $(CARGO) test -p aqmlab-core --test schema_docs

fmt: setup ## format Rust and Python sources
	$(CARGO) fmt --all
	$(VENV)/bin/ruff format python tests
	$(VENV)/bin/ruff check --fix python tests

clean: ## remove .venv, build outputs and results/
	rm -rf $(VENV) target results .pytest_cache .ruff_cache python/aqmlab/_core*.so
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
