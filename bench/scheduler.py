"""Benchmark: the cost of a scheduler tick grows with due timers, not with the number of concerns.

Usage: python bench/scheduler.py [--concerns 1000,10000,100000] [--due 20] [--backends sqlite,postgres]
PostgreSQL comes from DEPUTY_BENCH_POSTGRES_URL or DEPUTY_TEST_POSTGRES_URL (a scratch database is created and dropped).
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from sqlalchemy import insert

from bench.actions import scratch_database

NOW = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)


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
        for pid in ("p_boss", "p_target"):
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
                "target_person_id": "p_target",
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
                "next_follow_up_at": NOW - timedelta(minutes=1) if i < due else NOW + timedelta(days=1 + i % 30),
            }
            for i in range(total)
        ]
        for start in range(0, total, 5000):
            uow.session.execute(insert(Concern.__table__), rows[start : start + 5000])
    return ctx


def _tick(ctx) -> tuple[float, int]:
    from concern import timers

    t0 = time.perf_counter()
    fired = timers.fire_due(ctx, limit=100)
    return (time.perf_counter() - t0) * 1000, fired


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concerns", default="1000,10000,100000")
    parser.add_argument("--due", type=int, default=20)
    parser.add_argument("--backends", default="sqlite,postgres")
    args = parser.parse_args()
    table = Table(
        "backend", "concerns", "due", "fired", "tick ms (claim + fire, no sends)", title="scheduler tick cost"
    )
    for backend in args.backends.split(","):
        for total in (int(n) for n in args.concerns.split(",")):
            if (scratch := scratch_database(backend)) is None:
                break
            url, cleanup = scratch
            try:
                ctx = _fill(url, total, args.due)
                ms, fired = _tick(ctx)
                ctx.close()
            finally:
                cleanup()
            table.add_row(backend, str(total), str(args.due), str(fired), f"{ms:.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
