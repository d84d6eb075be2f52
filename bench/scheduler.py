"""Benchmark: the cost of a scheduler tick grows with due timers, not with the number of concerns; replicas share.

The fill leaves `due` x `reps` concerns waiting for their first question with `step_at` (the loop's own step) and
`next_follow_up_at` both a minute ago, so `fire` takes the real path: a decision, `timer_fired`, the question
queued in the outbox (no send); `reps` ticks of `due` each are timed (median and max). Fired timers are counted
as `timer_fired` facts in the log, not as claims.
Then `--replicas` processes fire `--replica-due` due concerns side by side: fired per second, and the speed-up.
Usage: python bench/scheduler.py [--concerns 1000,10000,100000] [--due 20] [--reps 5] [--replicas 1,2]
       [--replica-due 600] [--backends sqlite,postgres]
PostgreSQL comes from DEPUTY_BENCH_POSTGRES_URL or DEPUTY_TEST_POSTGRES_URL (a scratch database is created and dropped).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from sqlalchemy import insert, select

from bench.actions import scratch_database

NOW = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)
TARGETS = 50  # the asked people: a fire locks its target's row, so one shared target would serialise replicas


def _fill(url: str, total: int, due: int) -> object:
    from app import migrate
    from app.settings import Settings
    from app.wiring import build_context
    from concern.models import Concern
    from kernel.clock import FrozenClock
    from person import service as persons
    from person.models import PersonCreate
    from tests.fakes.memory_channel import MemoryChannel

    migrate.upgrade(url)
    ctx = build_context(Settings(_env_file=None, database_url=url), clock=FrozenClock(NOW))
    ctx.channels.register(MemoryChannel("telegram"))
    with ctx.uow(actor="bench") as uow:
        for pid in ("p_boss", *(f"p_target_{t}" for t in range(TARGETS))):
            persons.create(
                uow,
                data=PersonCreate.model_validate(
                    {
                        "person_id": pid,
                        "display_name": pid,
                        "role": "principal" if pid == "p_boss" else "member",
                        "channel_bindings": [{"channel": "telegram", "external_user_id": f"tg_{pid}"}],
                        "interaction_policy": {"quiet_hours": []},
                    }
                ),
            )
        rows = [
            {
                "concern_id": f"con_20260318_{i + 1:06d}",
                "originator_id": "p_boss",
                "target_person_id": f"p_target_{i % TARGETS}",
                "question": f"q{i}",
                "priority": "P1",
                "state": "waiting_reply",
                "follow_up_count": 0,
                "kind": "ask",
                "message_refs": [],
                "pending_deliveries": [],
                "version": 1,
                "created_at": NOW,
                "updated_at": NOW,
                # `fire` reads step_at (the loop's own step); next_follow_up_at is what the claim orders by.
                "step_at": (at := NOW - timedelta(minutes=1) if i < due else NOW + timedelta(days=1 + i % 30)),
                "next_follow_up_at": at,
            }
            for i in range(total)
        ]
        for start in range(0, total, 5000):
            uow.session.execute(insert(Concern.__table__), rows[start : start + 5000])
    return ctx


def _ticks(ctx, due: int, reps: int) -> tuple[float, float, int]:
    """`reps` ticks of `due` concerns each (the fill made `due * reps` due): (median ms, max ms, claimed)."""
    from concern import timers
    from kernel.portion import Portion

    times, claimed = [], 0
    for _ in range(reps):
        t0 = time.perf_counter()
        claimed += timers.fire_due(ctx, portion=Portion(due))
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), max(times), claimed


def timer_fired(ctx) -> int:
    """How many `timer_fired` facts the log holds (what was fired, not what was claimed)."""
    from fact.models import Fact

    with ctx.reader() as uow:
        contents = uow.session.scalars(select(Fact.content).where(Fact.fact_type == "concern_changed"))
        return sum(1 for content in contents if content.get("change") == "timer_fired")


def _replica(url: str, barrier) -> tuple[float, float]:
    from app.settings import Settings
    from app.wiring import build_context
    from concern import timers
    from kernel.clock import FrozenClock
    from kernel.portion import Portion
    from tests.fakes.memory_channel import MemoryChannel

    ctx = build_context(Settings(_env_file=None, database_url=url), clock=FrozenClock(NOW))
    ctx.channels.register(MemoryChannel("telegram"))
    barrier.wait()
    start = time.perf_counter()
    while timers.fire_due(ctx, portion=Portion(100)):
        pass
    end = time.perf_counter()
    ctx.close()
    return start, end


def _replicas(backend: str, replicas: int, due: int) -> tuple[int, float] | None:
    """`replicas` processes fire `due` due concerns side by side: (timer_fired facts, fired per second)."""
    if (scratch := scratch_database(backend)) is None:
        return None
    url, cleanup = scratch
    try:
        ctx = _fill(url, due, due)
        spawn = multiprocessing.get_context("spawn")
        barrier = spawn.Manager().Barrier(replicas)
        with spawn.Pool(replicas) as pool:
            spans = pool.starmap(_replica, [(url, barrier)] * replicas)
        fired = timer_fired(ctx)
        ctx.close()
    finally:
        cleanup()
    return fired, fired / (max(end for _, end in spans) - min(start for start, _ in spans))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concerns", default="1000,10000,100000")
    parser.add_argument("--due", type=int, default=20, help="due concerns per tick")
    parser.add_argument("--reps", type=int, default=5, help="ticks timed per size (their median and max shown)")
    parser.add_argument("--replicas", default="1,2")
    parser.add_argument("--replica-due", type=int, default=600)
    parser.add_argument("--backends", default="sqlite,postgres")
    args = parser.parse_args()
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    table = Table(
        "backend",
        "concerns",
        "due (all ticks)",
        "claimed",
        "timer_fired facts",
        "tick ms, median (claim + fire + queue the question, no sends)",
        "max ms",
        title="scheduler tick cost",
    )
    scaling = Table("backend", "replicas", "due", "timer_fired facts", "fired/s", "× 1 replica", title="replicas")
    for backend in args.backends.split(","):
        # The first tick in a process pays for its imports and compiled statements: one at 100 concerns, not shown.
        runs = [(100, False)] + [(int(n), True) for n in args.concerns.split(",")]
        for total, shown in runs:
            if (scratch := scratch_database(backend)) is None:
                break
            url, cleanup = scratch
            try:
                ctx = _fill(url, total, args.due * args.reps)
                median, worst, claimed = _ticks(ctx, args.due, args.reps)
                fired = timer_fired(ctx)
                ctx.close()
            finally:
                cleanup()
            if shown:
                row = (str(total), str(args.due * args.reps), str(claimed), str(fired), f"{median:.1f}", f"{worst:.1f}")
                table.add_row(backend, *row)
        base = None
        for replicas in (int(n) for n in args.replicas.split(",") if n):
            if (run := _replicas(backend, replicas, args.replica_due)) is None:
                break
            fired, rate = run
            base = base or rate
            scaling.add_row(
                backend, str(replicas), str(args.replica_due), str(fired), f"{rate:.0f}", f"{rate / base:.2f}"
            )
    Console(width=200).print(table)
    print(f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    Console().print(scaling)


if __name__ == "__main__":
    main()
