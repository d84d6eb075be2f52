"""Shrink a failing seed to the fewest steps that still break the same invariant (delta debugging).

Each step draws its randomness from (seed, index), so a subset of the steps replays exactly as those
steps did in the full run; what changes is only what the removed steps left behind.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from tests.simulation.runner import Options, Simulation, SimulationFailure


def shrink(
    seed: int, fresh_url: Callable[[], str], options: Options, failure: SimulationFailure, *, budget: float = 180.0
) -> tuple[list[int], SimulationFailure]:
    """The smallest list of step indexes found within `budget` seconds that fails like `failure`, and that failure."""
    probe = Simulation(seed, fresh_url(), options)
    current = [s.index for s in probe.steps]
    if probe.telegram is not None:
        probe.telegram.stop()
    best, deadline, chunks = failure, time.monotonic() + budget, 2

    def fails(only: list[int]) -> SimulationFailure | None:
        try:
            Simulation(
                seed,
                fresh_url(),
                Options(
                    steps=options.steps,
                    only=only,
                    redis_url=options.redis_url,
                    without=options.without,
                    ignore=options.ignore,
                ),
            ).run()
        except SimulationFailure as exc:
            return exc if exc.signature == failure.signature else None
        return None

    while len(current) >= 2 and time.monotonic() < deadline:
        size = math.ceil(len(current) / chunks)
        for start in range(0, len(current), size):
            rest = current[:start] + current[start + size :]
            if rest and (found := fails(rest)) is not None:
                current, best, chunks = rest, found, max(chunks - 1, 2)
                break
        else:
            if chunks >= len(current):
                break
            chunks = min(len(current), chunks * 2)
    return current, best
