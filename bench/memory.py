"""Benchmark: resident memory of Deputy's web process and its processor process, idle and after a load.

Each is started as `deputy serve` starts them (`bench.webhook_server deputy`: migrations in a child, then the web
process and the processor process) on a scratch database with 500 people, Telegram configured against a fake Bot
API (PostgreSQL with Redis when DEPUTY_BENCH_REDIS_URL or DEPUTY_TEST_REDIS_URL is set), Feishu and the LLM off.
Measured once the port answers and the processes have settled (idle), after one GET of /readyz and /healthz each
(what an orchestrator's checks make the process load: they ask Redis), and again after `--load` webhook updates at
c = 8 (half from unknown senders, half `/help` from principals, every reply arrived). Also: which of the packages
only some paths need each process has imported at idle. The bare FastAPI endpoint of bench/webhook.py is measured
the same way. `--save FILE` keeps the figures; `--before FILE` prints them beside this run's (before → after).
Usage: python bench/memory.py [--backends sqlite,postgres] [--settle 5] [--load 400] [--save F] [--before F]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from bench.actions import scratch_database
from bench.webhook import TimedTelegram, _load, _requests, _start, _wait_replies, processes, rss_mb
from bench.webhook_server import deputy_env, setup_directory

# Imported only on the paths that need them: the Feishu SDK, the LLM's HTTP client, the Bot API client (sending),
# the console's templates, migrations; and the drivers that the database in use needs.
WATCHED = (
    "lark_oapi",
    "cognitive_core.llm.client",
    "httpx",
    "telegram",
    "jinja2",
    "alembic",
    "psycopg",
    "redis",
)


def _modules(pid: int, folder: Path) -> set[str]:
    """The modules `pid` has imported (it writes them on SIGUSR1: bench.webhook_server)."""
    target = folder / str(pid)
    target.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + 10
    while not target.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return set(target.read_text().split()) if target.exists() else set()


def _probe(port: int) -> None:
    """GET /readyz and /healthz once each, as Kubernetes' and Compose's checks do (any answer will do)."""
    for path in ("/readyz", "/healthz"):
        with contextlib.suppress(OSError):  # the bare app has no such route (a 404 is an HTTPError, an OSError)
            urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10).read()


def _measure(kind: str, env: dict[str, str], args: argparse.Namespace, fake: TimedTelegram) -> list[dict]:
    """One row per process of the server: its role, idle RSS, the watched modules at idle, RSS after the load."""
    folder = Path(tempfile.mkdtemp(prefix="deputy-bench-modules-"))
    proc, port = _start(kind, {**env, "DEPUTY_BENCH_MODULES_DIR": str(folder)})
    try:
        time.sleep(args.settle)
        pids = processes(proc.pid)
        rows = []
        for index, pid in enumerate(pids):
            loaded = _modules(pid, folder)
            rows.append(
                {
                    "process": "web" if index == 0 else "processor",
                    "idle": rss_mb(pid),
                    "watched": [m for m in WATCHED if m in loaded],
                    "modules": len(loaded),
                }
            )
        _probe(port)  # what an orchestrator's health checks make the process load (/readyz asks Redis)
        time.sleep(1)
        for row, pid in zip(rows, pids, strict=True):
            row["probed"] = rss_mb(pid)
        if args.load:
            before = fake.replies
            unknown, known = args.load // 2, args.load - args.load // 2
            asyncio.run(_load(port, _requests("unknown", unknown) + _requests("help", known), 8))
            if kind != "bare":
                _wait_replies(fake, before + known)
            time.sleep(2)  # what the load left behind, not what is still being freed
        for row, pid in zip(rows, pids, strict=True):
            row["after"] = rss_mb(pid)
        return rows
    finally:
        proc.terminate()
        proc.wait(30)


def _table(results: dict[str, list[dict]], before: dict[str, list[dict]]) -> Table:
    columns = ["backend / shape", "process", "idle MB", "after load MB", "modules", "of the watched, imported at idle"]
    columns.insert(3, "after probes MB")
    if before:
        columns[2:5] = ["idle MB before → after", "after probes MB before → after", "after load MB before → after"]
    table = Table(*columns, title="resident memory (VmRSS)")
    for shape, rows in results.items():
        old = {row["process"]: row for row in before.get(shape, [])}
        for row in rows:
            keys = ("idle", "probed", "after")
            figures = [f"{row[key]:.0f}" for key in keys]
            if before and (was := old.get(row["process"])):
                figures = [f"{was.get(key, 0):.0f} → {now}" for key, now in zip(keys, figures, strict=True)]
            elif before:
                figures = [f"– → {now}" for now in figures]
            table.add_row(shape, row["process"], *figures, str(row["modules"]), " ".join(row["watched"]) or "–")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--shapes", default="deputy,thread", help="deputy (web + processor process), thread")
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--load", type=int, default=400, help="webhook updates between the idle and after figures")
    parser.add_argument("--save", type=Path, help="write this run's figures here (JSON)")
    parser.add_argument("--before", type=Path, help="a --save file of an earlier run, printed beside this one")
    args = parser.parse_args()
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    results: dict[str, list[dict]] = {}
    fake = TimedTelegram().start()
    try:
        results["bare FastAPI"] = _measure("bare", {}, args, fake)
        for backend in args.backends.split(","):
            if (scratch := scratch_database(backend)) is None:
                continue
            url, cleanup = scratch
            try:
                setup_directory(url)
                env = deputy_env(url, fake)
                name = f"{backend}{' + redis' if 'DEPUTY_REDIS_URL' in env else ''}"
                for kind in args.shapes.split(","):
                    shape = f"{name} / {'deputy serve' if kind == 'deputy' else 'processor thread'}"
                    results[shape] = _measure(kind, env, args, fake)
                    print(shape, json.dumps(results[shape]), flush=True)
            finally:
                cleanup()
    finally:
        fake.stop()
    if args.save:
        args.save.write_text(json.dumps(results, indent=1))
    before = json.loads(args.before.read_text()) if args.before else {}
    Console(width=200).print(_table(results, before))
    print(f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
