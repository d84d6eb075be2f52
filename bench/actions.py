"""Benchmark: notify actions through all four layers with the in-memory channel.

Prints actions/s, p50/p99 latency and SQL statements per action (by verb) per backend and worker-process count.
Usage: python bench/actions.py [--actions 2000] [--workers 1,4] [--backends sqlite,postgres]
PostgreSQL comes from DEPUTY_BENCH_POSTGRES_URL or DEPUTY_TEST_POSTGRES_URL (a scratch database is created and dropped).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PERSONS = 200
TYPES = 50


def _setup(url: str) -> None:
    from app import migrate
    from app.settings import Settings
    from app.wiring import build_context
    from person import service as persons
    from person.models import PersonCreate

    migrate.upgrade(url)
    ctx = build_context(Settings(_env_file=None, database_url=url))
    with ctx.uow(actor="bench") as uow:
        for i in range(PERSONS):
            persons.create(
                uow,
                data=PersonCreate.model_validate(
                    {
                        "person_id": f"p_bench_{i}",
                        "display_name": f"bench {i}",
                        "channel_bindings": [
                            {"channel": "feishu", "external_user_id": f"ou_{i}"},
                            {"channel": "telegram", "external_user_id": f"tg_{i}"},
                        ],
                        "interaction_policy": {"quiet_hours": [], "max_proactive_contacts_per_day": 100},
                    }
                ),
            )
    ctx.close()


def _worker(url: str, worker: int, count: int, barrier) -> tuple[list[float], dict[str, int], float, float, dict]:
    from action import service
    from action.models import ActionRequest
    from app.settings import Settings
    from app.wiring import build_context
    from bench.statements import StatementCounter
    from tests.fakes.memory_channel import MemoryChannel

    ctx = build_context(Settings(_env_file=None, database_url=url))
    ctx.channels.register(MemoryChannel("feishu"))
    ctx.channels.register(MemoryChannel("telegram"))
    latencies, results = [], Counter()
    statements = StatementCounter(ctx.db)
    barrier.wait()
    start = time.perf_counter()
    for n in range(count):
        i = worker * count + n
        request = ActionRequest(
            action_type="notify",
            decision_ref="dec_20261129_001",
            target_person_id=f"p_bench_{i % PERSONS}",
            text=f"bench notice {i}",
            notification_type=f"type_{(i // PERSONS) % TYPES}",
        )
        t0 = time.perf_counter()
        results[service.execute(ctx, request=request).result] += 1
        latencies.append(time.perf_counter() - t0)
    end = time.perf_counter()
    statements.close()
    ctx.close()
    return latencies, dict(results), start, end, {"total": statements.total, **statements.by_verb}


def _run(url: str, workers: int, per_worker: int) -> dict:
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Manager().Barrier(workers)
    with spawn.Pool(workers) as pool:
        out = pool.starmap(_worker, [(url, w, per_worker, barrier) for w in range(workers)])
    latencies = sorted(latency for o in out for latency in o[0])
    results = Counter()
    for o in out:
        results.update(o[1])
    wall = max(o[3] for o in out) - min(o[2] for o in out)
    statements: Counter = Counter()
    for o in out:
        statements.update(o[4])
    return {
        "actions": len(latencies),
        "per_s": len(latencies) / wall,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
        "results": dict(results),
        "statements": {k: v / len(latencies) for k, v in statements.items()},
    }


def raw_commits_per_s(url: str, seconds: float = 3.0) -> float:
    """The engine's own limit: single-row INSERT + COMMIT through the driver, one connection, for `seconds`."""
    from kernel.db import Database

    db = Database(url)  # the same engine settings (WAL, synchronous, pool) as the service
    with db.engine.connect() as conn:
        conn.exec_driver_sql("CREATE TABLE IF NOT EXISTS bench_raw_commits (id INTEGER, note VARCHAR(40))")
        conn.commit()
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            conn.execute(text("INSERT INTO bench_raw_commits VALUES (:i, 'raw commit')"), {"i": done})
            conn.commit()
            done += 1
        elapsed = time.perf_counter() - start
        conn.exec_driver_sql("DROP TABLE bench_raw_commits")
        conn.commit()
    db.dispose()
    return done / elapsed


def _postgres_scratch(admin_url: str) -> tuple[str, Callable[[], None]]:
    name = f"deputy_bench_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return make_url(admin_url).set(database=name).render_as_string(hide_password=False), drop


def scratch_database(backend: str) -> tuple[str, Callable[[], None]] | None:
    """A fresh database URL for `backend` and how to drop it; None when PostgreSQL is not configured."""
    if backend == "sqlite":
        return f"sqlite:///{tempfile.mkdtemp(prefix='deputy-bench-')}/bench.db", (lambda: None)
    pg_admin = os.environ.get("DEPUTY_BENCH_POSTGRES_URL") or os.environ.get("DEPUTY_TEST_POSTGRES_URL")
    if not pg_admin:
        Console(stderr=True).print("[yellow]postgres skipped: set DEPUTY_BENCH_POSTGRES_URL[/yellow]")
        return None
    return _postgres_scratch(pg_admin)


def _statements(per_action: dict[str, float]) -> str:
    """`12.0 (SELECT 6.0, INSERT 4.0, …)`: the total per action, then by verb, most first."""
    verbs = sorted(((k, v) for k, v in per_action.items() if k != "total"), key=lambda kv: -kv[1])
    return f"{per_action.get('total', 0):.1f} (" + ", ".join(f"{k} {v:.1f}" for k, v in verbs) + ")"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=2000, help="actions per run (split across workers)")
    parser.add_argument("--workers", default="1,4")
    parser.add_argument("--backends", default="sqlite,postgres")
    args = parser.parse_args()
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    table = Table(
        "backend",
        "workers",
        "actions",
        "actions/s",
        "p50 ms",
        "p99 ms",
        "statements/action",
        "results",
        "raw commits/s",
        "÷ (raw/2)",
        title="notify through L1–L4, in-memory channel",
    )
    for backend in args.backends.split(","):
        for workers in (int(w) for w in args.workers.split(",")):
            if (scratch := scratch_database(backend)) is None:
                break
            url, cleanup = scratch
            try:
                _setup(url)
                raw = raw_commits_per_s(url)
                r = _run(url, workers, args.actions // workers)
            finally:
                cleanup()
            table.add_row(
                backend,
                str(workers),
                str(r["actions"]),
                f"{r['per_s']:.0f}",
                f"{r['p50_ms']:.2f}",
                f"{r['p99_ms']:.2f}",
                _statements(r["statements"]),
                " ".join(f"{k}={v}" for k, v in sorted(r["results"].items())),
                f"{raw:.0f}",
                f"{r['per_s'] / (raw / 2):.2f}",  # an action needs two commits: reserve, then finalise
            )
    Console(width=200).print(table)
    print(f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
