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

.PHONY: help setup dev demo test test-rust test-py bench bench-scaling lint fmt docs clean wheel fuzz ns3 ns3-reference reproduce-full

help: ## list the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "} {printf "  make %-10s %s\n", $$1, $$2}'

$(VENV)/.deps: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "maturin>=1.5,<2"
	touch $@

# maturin installs the package's dependencies (and the dev extra: pytest, ruff) from PyPI and
# builds the Rust extension into python/aqmlab/ (an editable install), profile-guided when the
# toolchain's llvm-profdata is available (tools/pgo.sh; `make setup PGO=0` for a plain build).
PGO ?= 1
# The package's modules compiled once, as an installed wheel ships them: with
# PYTHONDONTWRITEBYTECODE set nothing writes them later, and every `aqmlab` process would compile
# them from source (~0.03 s of CPU each). A module edited since is compiled from source again.
# The same for the page templates (aqmlab/template_cache.py: ~0.015 s of CPU per run's page).
$(VENV)/.built: $(VENV)/.deps $(RUST_SOURCES) tools/pgo.sh tools/pgo_train.py
	PGO=$(PGO) VENV=$(VENV) tools/pgo.sh
	$(PY) -m compileall -q python/aqmlab
	$(PY) -c "from aqmlab import pages; pages.compile_templates()"
	touch $@

setup: $(VENV)/.built ## create .venv, install the Python dependencies, build the extension

# The dev and dask extras (pytest, ruff, mypy, dask, ...), for test and lint only: `make demo`
# installs what running needs. Read from pyproject.toml, so the list lives in one place.
$(VENV)/.dev: $(VENV)/.deps pyproject.toml tools/dev_deps.py
	$(PY) tools/dev_deps.py dev dask | $(PY) -m pip install --quiet -r /dev/stdin
	touch $@

dev: $(VENV)/.built $(VENV)/.dev ## setup plus the test and lint tools (the dev and dask extras)

# ns-3.44 for `aqmlab crosscheck --against ns3`: the `ns3` wheel's files (~300 MB) into the
# user's cache, and the project's ns-3 program compiled against them (about a minute of g++).
ns3: $(VENV)/.deps ## install ns-3.44 (PyPI wheel) and build the crosscheck's ns-3 program
	nice $(PY) python/aqmlab/ns3/build.py

# Re-records bench/reference/ns3_*.json (what tests/ns3_reference.rs compares aqmlab with) from
# bench/reference/scenarios/*.toml with the cross-check's ns-3 program; about 15 min of one core.
ns3-reference: setup ## re-record the ns-3 reference runs of bench/reference (needs `make ns3`)
	bench/reference/record.sh

demo: setup ## run DropTail vs RED vs gentle RED (30 flows, 150 s); results under results/demo/
	$(PY) -m aqmlab.demo --out results/demo

test: lint test-rust test-py ## all checks: fmt, clippy, ruff, then cargo test (core and binding) + pytest

test-rust: setup ## Rust tests (core, the live bottleneck, then the binding's unit tests)
	$(CARGO) test
	$(CARGO) test -p aqmlab-live
	$(CARGO) test -p aqmlab-py

test-py: dev ## pytest (API, CLI, bad input, determinism, every scenario file)
	$(PY) -m pytest -q

# Two figures per dumbbell: the plain `bench` example (comparable with earlier rows of
# docs/performance.md), then the installed extension, which is what `aqmlab run` and the API use
# (profile-guided when tools/pgo.sh could build it so), timed around `_core.run` alone. Last,
# the per-flow delay statistics' share: the same run with and without them, as a ratio.
bench: setup ## bottleneck packets per CPU-second on the 155 Mbps dumbbells: 100 and 400 flows, 400 with RED and GREEN-TCP
	$(CARGO) build --release -p aqmlab-core --example bench --example flow_delay_cost
	./target/release/examples/bench bench/scenarios/dumbbell_155mbps_100flows.toml 3
	./target/release/examples/bench bench/scenarios/dumbbell_155mbps_400flows.toml 3
	./target/release/examples/bench bench/scenarios/dumbbell_155mbps_400flows_red.toml 3
	./target/release/examples/bench bench/scenarios/dumbbell_155mbps_400flows_green_tcp.toml 3
	$(PY) bench/bench_extension.py bench/scenarios/dumbbell_155mbps_100flows.toml 3
	$(PY) bench/bench_extension.py bench/scenarios/dumbbell_155mbps_400flows.toml 3
	./target/release/examples/flow_delay_cost bench/scenarios/dumbbell_155mbps_400flows.toml 3

bench-scaling: ## packets per CPU-second, 10..10^4 flows x 10 Mbps..10 Gbps, into docs/performance.md
	$(CARGO) build --release -p aqmlab-core --example scaling
	./target/release/examples/scaling --write docs/performance.md

# A portable wheel: manylinux2014 (glibc 2.17) through zig as the linker, built with the `wheel`
# profile (release, no debug info, stripped). ziglang comes from PyPI into .venv.
wheel: $(VENV)/.deps ## build a portable (manylinux2014), stripped wheel into dist/
	$(PY) -c "import ziglang" 2>/dev/null || $(PY) -m pip install --quiet "ziglang>=0.13"
	PATH="$(abspath $(VENV))/bin:$$PATH" $(VENV)/bin/maturin build --profile wheel \
		--compatibility manylinux2014 --zig --out dist
	@ls -l dist/*.whl

REPRODUCE_OUT ?= results/reproduce
reproduce-full: setup ## every paper at full length (about half an hour of CPU), then CPU per section and the claims beside their earlier state
	AQMLAB_RUN_TIMES=$(REPRODUCE_OUT)-run-times.jsonl nice -n 10 $(VENV)/bin/aqmlab reproduce all --out $(REPRODUCE_OUT) --workers 2
	$(PY) bench/reproduce_cost.py $(REPRODUCE_OUT) $(REPRODUCE_OUT)-run-times.jsonl > $(REPRODUCE_OUT)-cost.md
	$(PY) tools/claims_history.py docs/claims-history/before.json $(REPRODUCE_OUT) > $(REPRODUCE_OUT)-claims-history.md
	@echo "$(REPRODUCE_OUT)/index.html, $(REPRODUCE_OUT)-cost.md, $(REPRODUCE_OUT)-claims-history.md"

fuzz: dev ## long fuzz campaign: >= 10,000 scenario cases, >= 10^6 replay events per algorithm
	$(PY) tests/fuzz/campaign.py --scenarios 10000 --run-every 25 --replay-events 1000000

lint: dev ## cargo fmt --check, clippy -D warnings, ruff check / format --check, stubtest
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/ruff check python tests bench tools
	$(VENV)/bin/ruff format --check python tests bench tools
	$(PY) -m mypy.stubtest aqmlab._core
	$(PY) -m mypy python/aqmlab

docs: ## regenerate schema/aqmlab-scenario.schema.json and the reference tables of docs/scenarios.md
	AQMLAB_BLESS=1 $(CARGO) test -p aqmlab-core --test schema_docs

fmt: dev ## format Rust and Python sources
	$(CARGO) fmt --all
	$(VENV)/bin/ruff format python tests bench tools
	$(VENV)/bin/ruff check --fix python tests bench tools

clean: ## remove .venv, build outputs and results/
	rm -rf $(VENV) target results dist .pytest_cache .ruff_cache .hypothesis python/aqmlab/_core*.so
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
