"""`python -m tests.simulation`: run many seeds (what `make simulate SEEDS=… DB=…` calls)."""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

from tests.simulation.databases import Databases
from tests.simulation.runner import Options, Simulation, SimulationFailure
from tests.simulation.shrink import shrink


def main() -> int:
    """Run the seeds; print each failure with its trace; exit 1 if any failed."""
    parser = argparse.ArgumentParser(prog="python -m tests.simulation")
    parser.add_argument("--seeds", type=int, default=100, help="how many seeds, starting at --first")
    parser.add_argument("--first", type=int, default=1)
    parser.add_argument("--seed", type=int, help="run only this seed")
    parser.add_argument("--steps", type=int, default=70)
    parser.add_argument("--only", help="comma-separated step indexes to replay")
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="sqlite")
    parser.add_argument("--redis", help="Redis URL for the replicas (optional)")
    parser.add_argument("--without", default="", help="comma-separated step kinds to leave out, e.g. hostile,rewrite")
    parser.add_argument("--ignore", default="", help="comma-separated invariants not to check, e.g. language")
    parser.add_argument(
        "--shrink",
        type=float,
        default=0,
        metavar="SECONDS",
        help="after a failure, look this long for the fewest steps that still fail the same way",
    )
    parser.add_argument(
        "--keep-going", action="store_true", help="report every violation at the end instead of stopping"
    )
    parser.add_argument("--verbose", action="store_true", help="show the service's own logs")
    args = parser.parse_args()
    if args.verbose:
        logging.basicConfig(level=logging.INFO)
    without = frozenset(k for k in args.without.split(",") if k)
    seeds = [args.seed] if args.seed is not None else list(range(args.first, args.first + args.seeds))
    only = [int(i) for i in args.only.split(",")] if args.only else None
    backends = ("sqlite", "postgres") if args.db == "both" else (args.db,)
    failed = []
    with tempfile.TemporaryDirectory() as tmp, Databases(Path(tmp)) as dbs:
        for backend in backends:
            started = time.monotonic()
            for seed in seeds:
                url = dbs.fresh(backend)
                options = Options(
                    steps=args.steps,
                    only=only,
                    redis_url=args.redis,
                    without=without,
                    ignore=frozenset(k for k in args.ignore.split(",") if k),
                    keep_going=args.keep_going,
                )
                try:
                    Simulation(seed, url, options).run()
                except SimulationFailure as exc:
                    failed.append((backend, seed))
                    print(exc, file=sys.stderr)
                    if args.shrink:
                        steps, smallest = shrink(seed, lambda b=backend: dbs.fresh(b), options, exc, budget=args.shrink)
                        print(f"\nshrunk to {len(steps)} steps:\n{smallest}", file=sys.stderr)
                finally:
                    dbs.drop(url)
            print(
                f"{backend}: {len(seeds)} seeds in {time.monotonic() - started:.1f}s, "
                f"{sum(1 for b, _ in failed if b == backend)} failed"
            )
    if failed:
        print("failed:", " ".join(f"{b}:{s}" for b, s in failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
