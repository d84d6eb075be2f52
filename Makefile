# Two commands on a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-all lint migrate bench simulate clean intent-rows

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/deputy serve

migrate: $(STAMP)
	$(BIN)/deputy migrate

# Tests needing PostgreSQL, Redis or the browser are skipped when those are missing; the run ends saying how many.
# The suite runs on every core (pytest-xdist; each worker has its own databases): `make test WORKERS=0` runs it in
# this one process, e.g. to debug with `-x --pdb`.
WORKERS ?= auto
test: $(STAMP)
	$(BIN)/python -m pytest -n $(WORKERS) $(PYTEST_ARGS)

# The whole suite as CI runs it: starts PostgreSQL and Redis (and installs Chromium as root) where it can, and a
# service that cannot be had fails its tests instead of skipping them (scripts/test-all).
test-all: $(STAMP)
	scripts/test-all $(PYTEST_ARGS)

# The intent classifier's training rows, exported from the tuning corpus (tests/unit/cognitive_core/corpus) into
# cognitive_core/language/intent_rows.json with the threshold cross-validation chooses; run it after changing the
# corpus (tests/unit/cognitive_core/test_classifier.py fails until then). The held-out set is never read.
intent-rows: $(STAMP)
	$(BIN)/python -m tests.unit.cognitive_core.intent_rows

# The layer map (import-linter contracts in pyproject.toml) and the style (ruff): a violation names the import or line.
lint: $(STAMP)
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# `make bench SEARCH_FACTS=100000` for a quicker fact-search run (the figures in docs/PERFORMANCE.md are at 1 M).
SEARCH_FACTS ?= 1000000
bench: $(STAMP)
	$(BIN)/python bench/actions.py
	$(BIN)/python bench/scheduler.py
	$(BIN)/python bench/webhook.py
	$(BIN)/python bench/burst.py
	$(BIN)/python bench/passes.py
	$(BIN)/python bench/brief_morning.py
	$(BIN)/python bench/ack_auth.py
	$(BIN)/python bench/ack_beside_processing.py
	$(BIN)/python bench/memory.py
	$(BIN)/python bench/redis_hang.py
	$(BIN)/python bench/feishu_reconnect.py --samples 3
	$(BIN)/python bench/search.py --facts $(SEARCH_FACTS)

# `make simulate SEEDS=1000 DB=both` runs many more seeds than CI; `SEED=17` replays one (STEPS, ONLY= to narrow);
# each failure is shrunk for up to SHRINK seconds to the fewest steps that still fail the same way (0: no shrinking).
SEEDS ?= 100
SHRINK ?= 60
STEPS ?= 70
DB    ?= both
simulate: $(STAMP)
	$(BIN)/python -m tests.simulation --seeds $(SEEDS) --steps $(STEPS) --db $(DB) $(if $(SEED),--seed $(SEED)) \
		$(if $(ONLY),--only $(ONLY)) --shrink $(SHRINK)

clean:
	rm -rf $(VENV) var .pytest_cache
