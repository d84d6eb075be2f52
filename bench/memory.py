"""Benchmark: resident memory of Deputy's web process and its processor process, idle after start-up.

Each is started as `deputy serve` starts them (`bench.webhook_server deputy`: migrations in a child, then the web
process and the processor process) on a scratch database with 500 people, and measured once /readyz answers
and the processes have settled. The bare FastAPI endpoint of bench/webhook.py is measured the same way.
Usage: python bench/memory.py [--backends sqlite,postgres] [--settle 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.actions import scratch_database
from bench.webhook import _start, processes, rss_mb
from bench.webhook_server import deputy_env, setup_directory
from tests.fakes.telegram_server import FakeTelegram


def _measure(kind: str, env: dict[str, str], settle: float) -> list[float]:
    proc, _ = _start(kind, env)
    try:
        time.sleep(settle)
        return [rss_mb(pid) for pid in processes(proc.pid)]
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--settle", type=float, default=5.0)
    args = parser.parse_args()
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    fake = FakeTelegram().start()
    try:
        print(f"bare FastAPI: {_measure('bare', {}, args.settle)[0]:.0f} MB")
        for backend in args.backends.split(","):
            if (scratch := scratch_database(backend)) is None:
                continue
            url, cleanup = scratch
            try:
                setup_directory(url)
                for kind in ("deputy", "thread"):
                    sizes = _measure(kind, deputy_env(url, fake), args.settle)
                    shape = "web + processor process" if kind == "deputy" else "web with the processor thread"
                    print(f"{backend} {shape}: " + " + ".join(f"{mb:.0f}" for mb in sizes) + " MB")
            finally:
                cleanup()
    finally:
        fake.stop()
    print(f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
