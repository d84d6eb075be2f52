"""Benchmark: the processor's pass per signal, one `/help` at a time, wall and CPU time (no profiler attached).

The same setup as bench/profile_processing.py's `--one-at-a-time`: a scratch database with 500 people, each `/help`
(from the next principal) appended as the ack appends it and worked off by passes without the periodic chores until
its reply reached the fake Telegram server, before the next is appended. The first `--warm` signals (first imports,
compiled statements) are left out of the figures. CPU is this process's (its threads: the fake server's too).
Run it in two trees one after the other, several times, to compare two commits: one run on a shared machine moves
by a third.
Usage: python bench/passes.py [--backend sqlite|postgres] [--signals 150] [--warm 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.actions import scratch_database
from bench.webhook import TimedTelegram, append_help, scratch_context


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[int(q * (len(ordered) - 1))]


def measure(ctx, fake: TimedTelegram, signals: int) -> list[tuple[float, float]]:
    """(wall ms, CPU ms) of the passes that worked off each signal, one signal at a time."""
    from app.pipeline import tick

    times = []
    for done in range(signals):
        append_help(ctx, 1, first=done)  # one principal after another: no chat's pacing holds a reply
        replies = fake.replies
        wall, cpu = time.perf_counter(), time.process_time()
        while fake.replies < replies + 1:
            tick(ctx, chores=False)
        times.append(((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))
    return times


@contextmanager
def scratch_processor(backend: str) -> Iterator[tuple[Any, TimedTelegram]]:
    """A context over a scratch database with the bench's people and the fake Telegram server, after one pass (its
    imports, the people cache, compiled statements); both gone after the block."""
    from app.pipeline import tick

    scratch = scratch_database(backend)
    if scratch is None:
        raise SystemExit(f"no {backend} database (set DEPUTY_TEST_POSTGRES_URL)")
    url, cleanup = scratch
    fake = TimedTelegram().start()
    try:
        ctx = scratch_context(url, fake)
        tick(ctx)
        yield ctx, fake
        ctx.close()
    finally:
        cleanup()
        fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="sqlite")
    parser.add_argument("--signals", type=int, default=150)
    parser.add_argument("--warm", type=int, default=20, help="signals left out of the figures")
    args = parser.parse_args()
    with scratch_processor(args.backend) as (ctx, fake):
        times = measure(ctx, fake, args.warm + args.signals)[args.warm :]
    wall, cpu = [w for w, _ in times], [c for _, c in times]
    figures = " / ".join(f"{_quantile(wall, q):.1f}" for q in (0.5, 0.9, 0.99))
    tree = Path(__file__).resolve().parents[1]
    print(
        f"{tree} {args.backend}: {len(times)} signals, pass wall p50 / p90 / p99 {figures} ms,"
        f" CPU p50 {_quantile(cpu, 0.5):.1f} ms"
    )


if __name__ == "__main__":
    main()
