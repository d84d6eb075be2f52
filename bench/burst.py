"""Benchmark: how fast `deputy serve` works off a burst of known senders' `/help` (processing, not the ack).

Starts the server as bench/webhook.py does (web process + processor process, a scratch database with 500 people,
the fake Bot API), sends `--requests` `/help` updates from different principals at c = 8, and times the burst's
start to the last reply, `--reps` times per backend. Run it in two trees (`git worktree add /tmp/old REV`) one after
the other, alternating, to compare two commits in one window.
Usage: python bench/burst.py [--backends sqlite,postgres] [--requests 300] [--reps 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.actions import scratch_database
from bench.webhook import TimedTelegram, _load, _requests, _start, _wait_replies
from bench.webhook_server import deputy_env, setup_directory


def bursts(backend: str, n: int, reps: int, fake: TimedTelegram) -> list[float] | None:
    """`/help` per second over each of `reps` bursts of `n` (None when the backend is not available)."""
    if (scratch := scratch_database(backend)) is None:
        return None
    url, cleanup = scratch
    try:
        setup_directory(url)
        server, port = _start("deputy", deputy_env(url, fake))
        try:
            time.sleep(2)  # start-up done
            asyncio.run(_load(port, _requests("unknown", 50), 4))  # warm up
            rates = []
            for _ in range(reps):
                before, started = fake.replies, time.perf_counter()
                asyncio.run(_load(port, _requests("help", n), 8))
                rates.append(n / (_wait_replies(fake, before + n) - started))
                time.sleep(1)
            return rates
        finally:
            server.terminate()
            server.wait(30)
    finally:
        cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    fake = TimedTelegram().start()
    try:
        for backend in args.backends.split(","):
            rates = bursts(backend, args.requests, args.reps, fake)
            if rates is not None:
                each = ", ".join(f"{r:.1f}" for r in rates)
                print(f"{backend}: burst /help per s {each} | median {statistics.median(rates):.1f}", flush=True)
    finally:
        fake.stop()


if __name__ == "__main__":
    main()
