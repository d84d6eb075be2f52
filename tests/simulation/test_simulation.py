"""The deterministic simulation on a fixed set of seeds, on SQLite and PostgreSQL (more: `make simulate`)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import redis_url
from tests.simulation.runner import Options, Simulation

# CI's seeds: about 25 s each on this machine, so six per backend (and two with Redis) keep the suite short;
# `make simulate SEEDS=100 DB=both` runs many more (docs/PERFORMANCE.md), DEPUTY_SIM_SEEDS=1,2,3 picks others.
CI_SEEDS = [int(s) for s in os.environ.get("DEPUTY_SIM_SEEDS", "").split(",") if s] or list(range(1, 7))
REDIS_SEEDS = CI_SEEDS[:2]
STEPS = int(os.environ.get("DEPUTY_SIM_STEPS", "70"))


@pytest.mark.simulation
@pytest.mark.parametrize("seed", CI_SEEDS)
def test_no_seed_breaks_an_invariant(seed: int, database_url: str) -> None:
    Simulation(seed, database_url, Options(steps=STEPS)).run()


@pytest.mark.simulation
@pytest.mark.redis
@pytest.mark.parametrize("seed", REDIS_SEEDS)
def test_no_seed_breaks_an_invariant_with_redis_beside_the_database(seed: int, database_url: str) -> None:
    Simulation(seed, database_url, Options(steps=STEPS, redis_url=redis_url())).run()
