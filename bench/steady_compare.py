"""Benchmark: two trees' signal → reply latency at a steady 20 `/help` per second, in alternating rounds.

Serves `deputy serve` from this tree and from `--other` (a `git worktree add /tmp/old REV`), each on a scratch
database of its own. Each is first loaded as `bench/webhook.py` loads it before its steady figure (`--preload`
unknown senders, principals' `/help` and presses at c = 8, then its backlog worked off), so the steady rounds meet
the database and the processes in the state that benchmark leaves them in. Then `--reps` rounds, alternating
which tree goes first, of `--seconds` at 20/s against one tree while the other is idle. Prints each round's p50 /
p90 / p99 and the pooled ones per tree.
Usage: python bench/steady_compare.py --other /tmp/old [--backend postgres] [--preload 1200] [--reps 4]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.trees import Trees
from bench.webhook import TimedTelegram, _load, _percentile, _requests, _settled, _steady, _wait_replies

RATE = 20.0


def _preload(port: int, fake: TimedTelegram, n: int) -> None:
    """What bench/webhook.py sends before its steady figure: each case at c = 8, the replies awaited."""
    for case in ("unknown", "help", "press"):
        before = fake.replies
        asyncio.run(_load(port, _requests(case, n), 8))
        if case == "help":
            _wait_replies(fake, before + n)


def _figures(latencies: list[float]) -> str:
    return " / ".join(f"{_percentile(latencies, p):.1f}" for p in (0.5, 0.9, 0.99))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="the other tree (a git worktree)")
    parser.add_argument("--backend", default="postgres")
    parser.add_argument("--preload", type=int, default=1200, help="events per case before the rounds")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--reps", type=int, default=4)
    args = parser.parse_args()
    print(f"load average at the start: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    fake = TimedTelegram().start()
    trees = {"this": str(Path(__file__).resolve().parents[1]), "other": str(Path(args.other).resolve())}
    latencies: dict[str, list[float]] = {"this": [], "other": []}
    served = None
    try:
        served = Trees(trees, args.backend, fake)
        time.sleep(2)  # start-up done
        for port in served.ports.values():
            _preload(port, fake, args.preload)
            _settled(port)
        for rep in range(args.reps):
            for name in ("this", "other") if rep % 2 == 0 else ("other", "this"):
                port = served.ports[name]
                _settled(port)
                lat = _steady(port, fake, RATE, args.seconds)
                latencies[name] += lat
                print(f"round {rep + 1} {name}: p50 / p90 / p99 {_figures(lat)} ms", flush=True)
    finally:
        if served is not None:
            served.stop()
        fake.stop()
    print(f"load average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, tree in trees.items():
        print(
            f"{name} ({tree}), {args.backend}: signal → reply at {RATE:.0f}/s, pooled p50 / p90 / p99 "
            f"{_figures(latencies[name])} ms ({len(latencies[name])} signals)"
        )


if __name__ == "__main__":
    main()
