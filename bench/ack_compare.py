"""Benchmark: two trees' webhook ack at one concurrency, each as a ratio to the bare endpoint measured just before it.

Serves `deputy serve` from this tree and from `--other` (a `git worktree add /tmp/old REV` of the commit to compare,
with this tree's .venv linked in), each on a scratch database of its own, and the bare FastAPI endpoint; then
`--reps` rounds, alternating which tree goes first, of: the bare endpoint, then one tree, `--requests` updates at
c = `--conc`. A tree's ratio is its rate over the bare rate just before it, so a machine that speeds up or slows
down between rounds moves both. Prints each round's ratios and their medians, and the p99 of the ack.
Usage: python bench/ack_compare.py --other /tmp/old [--backend postgres] [--case unknown|help] [--conc 8]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.trees import beside_bare
from bench.webhook import _load, _percentile, _requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", required=True, help="the other tree (a git worktree)")
    parser.add_argument("--backend", default="postgres")
    parser.add_argument("--case", default="unknown", choices=("unknown", "help"))
    parser.add_argument("--conc", type=int, default=8)
    parser.add_argument("--requests", type=int, default=600)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    trees = {"this": str(Path(__file__).resolve().parents[1]), "other": str(Path(args.other).resolve())}
    ratios: dict[str, list[float]] = {"this": [], "other": []}
    latencies: dict[str, list[float]] = {"this": [], "other": []}
    with beside_bare(trees, args.backend, warm=args.case) as (bare_port, served):
        for rep in range(args.reps):
            for name in ("this", "other") if rep % 2 == 0 else ("other", "this"):
                bare_wall, _, _ = asyncio.run(_load(bare_port, _requests(args.case, args.requests), args.conc))
                wall, lat, statuses = asyncio.run(
                    _load(served.ports[name], _requests(args.case, args.requests), args.conc)
                )
                if set(statuses) != {200}:
                    raise RuntimeError(f"{name} answered {dict(statuses)}")
                ratios[name].append(bare_wall / wall)
                latencies[name] += lat
                time.sleep(1.0)  # the processors' share of the last round settles
    for name, tree in trees.items():
        rounds = " ".join(f"{r:.3f}" for r in ratios[name])
        print(
            f"{name} ({tree}): ack ÷ bare at c = {args.conc}, {args.case}: median {statistics.median(ratios[name]):.3f}"
            f" (rounds {rounds}); ack p99 {_percentile(latencies[name], 0.99):.1f} ms"
        )


if __name__ == "__main__":
    main()
