"""Benchmark: `GET /v1/facts` (text search, person filter, cursor pages) on a large fact log, against direct SQL.

Usage: python bench/search.py [--facts 1000000] [--backends sqlite,postgres] [--repeat 15] [--explain]
The log (bench/search_corpus.py) is written at migration 0006 by a bulk path, indexed by migration 0007 (timed,
with its progress), then grown through the real append path (timed). `deputy serve` (one uvicorn worker) then
answers every case over HTTP on a kept-alive connection: once to warm the caches, then `--repeat` times, and
the same page is fetched by hand-written SQL through SQLAlchemy Core. Figures are medians.
PostgreSQL: database `deputy_bench_search` on DEPUTY_BENCH_POSTGRES_URL or DEPUTY_TEST_POSTGRES_URL (dropped after).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
from rich.console import Console
from rich.table import Table
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench import search_corpus
from bench.search_sql import content_scan, direct_page, explain

END = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
TZ = ZoneInfo("Asia/Shanghai")
TOKEN = "bench-admin-token-0123456789"
APPENDS = 1000
SINCE = (END - timedelta(hours=24)).isoformat()  # what `since=24h` means at END
ACTIVE = [f"p_bench_{i}" for i in range(0, 480, 7)]
QUIET = [f"p_bench_{i}" for i in range(search_corpus.PERSONS - search_corpus.QUIET, search_corpus.PERSONS)]
CASES: list[tuple[str, dict[str, Any]]] = [
    ("q 提测 (common, 2 chars)", {"q": "提测"}),
    ("q review (common)", {"q": "review"}),
    ("q 灰度 (rare, 2 chars)", {"q": "灰度"}),
    ("q 回滚方案 (rare)", {"q": "回滚方案"}),
    ("q Kubernetes (rare)", {"q": "Kubernetes"}),
    ("q 量子 (absent, 2 chars)", {"q": "量子"}),
    ("q 量子纠缠 (absent)", {"q": "量子纠缠"}),
    ("q xylophone (absent)", {"q": "xylophone"}),
    ("q review + fact_type", {"q": "review", "fact_type": "message_received"}),
    ("q 提测 + person_id", {"q": "提测", "person_id": ACTIVE}),
    ("person_id + since=24h", {"person_id": ACTIVE, "since": SINCE}),
    ("quiet person_id + since=24h", {"person_id": QUIET, "since": SINCE}),
    ("person_id, page 10 by cursor", {"person_id": ACTIVE, "page": 10}),
    ("q 提测, page 10 by cursor", {"q": "提测", "page": 10}),
    ("no filter, page 10 by cursor", {"page": 10}),
]


def _database(backend: str) -> tuple[str, Callable[[], None]] | None:
    if backend == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="deputy-bench-search-"))
        return f"sqlite:///{folder}/bench.db", lambda: [p.unlink() for p in folder.iterdir()] and folder.rmdir()
    admin_url = os.environ.get("DEPUTY_BENCH_POSTGRES_URL") or os.environ.get("DEPUTY_TEST_POSTGRES_URL")
    if not admin_url:
        Console(stderr=True).print("[yellow]postgres skipped: set DEPUTY_BENCH_POSTGRES_URL[/yellow]")
        return None
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")

    def drop() -> None:
        with admin.connect() as conn:
            conn.execute(text('DROP DATABASE IF EXISTS "deputy_bench_search" WITH (FORCE)'))

    drop()
    with admin.connect() as conn:
        conn.execute(text('CREATE DATABASE "deputy_bench_search"'))
    return make_url(admin_url).set(database="deputy_bench_search").render_as_string(hide_password=False), drop


def _prepare(url: str, total: int) -> dict[str, str]:
    """Fill at 0006, migrate to 0007, grow through the real append path; returns what each step cost."""
    from app import migrate
    from app.settings import Settings
    from app.wiring import build_context
    from fact import service as facts
    from kernel.clock import FrozenClock

    notes: dict[str, str] = {}
    migrate.upgrade(url, "0006")
    started = time.perf_counter()
    search_corpus.fill(url, total, END, TZ)
    notes["bulk fill at 0006"] = f"{total:,} facts in {time.perf_counter() - started:.0f} s"
    started, out = time.perf_counter(), io.StringIO()
    with contextlib.redirect_stdout(out):
        migrate.upgrade(url, "0007")
    lines = [line for line in out.getvalue().splitlines() if line.startswith("0007")]
    notes["migration 0007"] = (
        f"{time.perf_counter() - started:.0f} s; last progress line: {lines[-1] if lines else '-'}"
    )
    migrate.upgrade(url)
    clock = FrozenClock(END)
    ctx = build_context(Settings(_env_file=None, database_url=url, scheduler_enabled=False), clock=clock)
    rng, costs = search_corpus.random.Random(7), []
    for n in range(APPENDS):
        clock.advance(timedelta(milliseconds=10))
        person = ACTIVE[n % len(ACTIVE)]
        content = {"channel": "feishu", "text": search_corpus.sentence(rng), "person_id": person}
        started = time.perf_counter()
        with ctx.uow(actor="bench") as uow:
            facts.append(uow, fact_type="message_received", source="perception", content=content, person_refs=[person])
        costs.append(time.perf_counter() - started)
    ctx.close()
    notes["real append path"] = f"{APPENDS} facts, p50 {statistics.median(costs) * 1000:.2f} ms per transaction"
    engine = create_engine(url)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if engine.dialect.name == "postgresql":  # what autovacuum does after a load; the planner needs statistics
            conn.execute(text("VACUUM ANALYZE"))
            notes["database size"] = conn.execute(
                text("SELECT pg_size_pretty(pg_database_size(current_database()))")
            ).scalar()
        else:
            notes["database size"] = f"{Path(make_url(url).database).stat().st_size / 2**20:,.0f} MB"
    engine.dispose()
    return notes


@contextlib.contextmanager
def _server(url: str) -> Iterator[httpx.Client]:
    """`deputy serve` on a free port over the bench database, and a kept-alive client for it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEPUTY_")}
    env |= {"DEPUTY_DATABASE_URL": url, "DEPUTY_ADMIN_TOKENS": f"bench:{TOKEN}", "DEPUTY_SCHEDULER_ENABLED": "false"}
    env |= {"DEPUTY_LOG_LEVEL": "WARNING", "DEPUTY_TIMEZONE": TZ.key}
    deputy = Path(sys.executable).with_name("deputy")
    command = [str(deputy), "serve", "--host", "127.0.0.1", "--port", str(port)]
    with tempfile.TemporaryDirectory() as cwd:  # no stray .env is read
        server = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {TOKEN}"}) as c:
                for _ in range(300):
                    with contextlib.suppress(httpx.TransportError):
                        if c.get("/healthz").status_code == 200:
                            break
                    time.sleep(0.1)
                yield c
        finally:
            server.terminate()
            server.wait(timeout=30)


def _pages(client: httpx.Client, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The request of each repetition: persons rotate; `page` follows cursors from the first page."""
    width = max((len(v) for v in spec.values() if isinstance(v, list)), default=1)
    requests = []
    for i in range(width):
        params = {k: (v[i % len(v)] if isinstance(v, list) else v) for k, v in spec.items() if k != "page"}
        for _ in range(spec.get("page", 1) - 1):
            params["cursor"] = client.get("/v1/facts", params=params).json()["next_cursor"]
        requests.append(params)
    return requests


def _timed(run: Callable[[dict[str, Any]], int], requests: list[dict[str, Any]], repeat: int) -> tuple[float, int]:
    rows = [run(r) for r in requests][0]  # warm every variant once
    costs = []
    for n in range(repeat):
        started = time.perf_counter()
        run(requests[n % len(requests)])
        costs.append(time.perf_counter() - started)
    return statistics.median(costs) * 1000, rows


def _measure(url: str, client: httpx.Client, repeat: int, show_plans: bool) -> list[tuple[str, int, Any, float]]:
    engine = create_engine(url)
    results: list[tuple[str, int, Any, float]] = []

    def api(params: dict[str, Any]) -> int:
        response = client.get("/v1/facts", params=params)
        assert response.status_code == 200, response.text
        return len(response.json()["items"])

    def sql(params: dict[str, Any]) -> int:
        with engine.connect() as conn:
            return direct_page(conn, params)

    for label, spec in CASES:
        requests = _pages(client, spec)
        api_ms, rows = _timed(api, requests, repeat)
        sql_ms, sql_rows = _timed(sql, requests, repeat)
        assert sql_rows == rows, f"{label}: the API returned {rows} rows, direct SQL {sql_rows}"
        results.append((label, rows, api_ms, sql_ms))
        if show_plans:
            Console().print(f"[bold]{label}[/bold] {requests[0]}\n{explain(url, requests[0])}\n")
    fact_id = client.get("/v1/facts", params={"limit": 1}).json()["items"][0]["fact_id"]

    def one(_: dict[str, Any]) -> int:
        assert client.get(f"/v1/facts/{fact_id}").status_code == 200
        return 1

    def one_sql(_: dict[str, Any]) -> int:
        with engine.connect() as conn:
            return len(conn.execute(text("SELECT * FROM facts WHERE fact_id = :id"), {"id": fact_id}).all())

    results.append(
        ("one fact by id (the HTTP floor)", 1, _timed(one, [{}], repeat)[0], _timed(one_sql, [{}], repeat)[0])
    )
    statement, binds = content_scan(engine.dialect.name, "回滚方案")

    def scan(_: dict[str, Any]) -> int:
        with engine.connect() as conn:
            return len(conn.execute(statement, binds).all())

    scan_ms, scan_rows = _timed(scan, [{}], 2)
    results.append(("before (0006): content LIKE, q 回滚方案", scan_rows, None, scan_ms))
    engine.dispose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1_000_000)
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--explain", action="store_true", help="print the plan of the query each case runs")
    args = parser.parse_args()
    console = Console(width=120)
    for backend in args.backends.split(","):
        if (database := _database(backend)) is None:
            continue
        url, cleanup = database
        try:
            notes = _prepare(url, args.facts)
            with _server(url) as client:
                results = _measure(url, client, args.repeat, args.explain)
        finally:
            cleanup()
        table = Table("case", "rows", "API ms", "direct SQL ms", "API / SQL", title=f"{backend}: {args.facts:,} facts")
        for label, rows, api_ms, sql_ms in results:
            api = f"{api_ms:.2f}" if api_ms is not None else "-"
            table.add_row(label, str(rows), api, f"{sql_ms:.2f}", f"{api_ms / sql_ms:.1f}" if api_ms else "-")
        console.print(table)
        for what, figure in notes.items():
            console.print(f"  {what}: {figure}")
        console.print(
            f"  load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a shared machine)"
        )
        console.print(
            "  cold cache: not measured (it needs dropping the OS page cache and restarting the shared server)"
        )


if __name__ == "__main__":
    main()
