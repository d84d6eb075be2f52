"""Benchmark: what a full garbage collection walks and costs in a processor, frozen at start-up only or again after
its first replies (`app.collector`).

One process as the processor is after start-up (the intent model trained, a pass run, `gc.freeze()`), then rounds
of N `/help` from principals appended as the ack appends them and worked off by passes until every reply reached
the fake Telegram server; after each round, the objects a full collection walks and the time of one. With
`--refreeze` the collector's watcher looks once after the first round, as it does every 5 s in a served process.
Usage: python bench/collector.py [--backend sqlite|postgres] [--signals 400] [--rounds 3] [--refreeze]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from bench.actions import scratch_database
from bench.webhook import TimedTelegram, append_help, scratch_context


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="sqlite")
    parser.add_argument("--signals", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--refreeze", action="store_true", help="the watcher looks once after the first round")
    args = parser.parse_args()
    from app import collector
    from app.pipeline import tick
    from cognitive_core.language import classifier

    fake = TimedTelegram().start()
    if (scratch := scratch_database(args.backend)) is None:
        raise SystemExit(f"no {args.backend} database (set DEPUTY_TEST_POSTGRES_URL)")
    url, cleanup = scratch
    table = Table("round", "modules loaded", "objects frozen", "objects walked", "full collection ms")
    try:
        ctx = scratch_context(url, fake)
        classifier.warm()
        tick(ctx)
        collector.freeze()  # what a served processor does once start-up is over
        watcher = collector.Refreezer()
        for n in range(args.rounds):
            expected = fake.replies + args.signals
            append_help(ctx, args.signals, first=n * args.signals)
            while fake.replies < expected:
                tick(ctx)
            if n == 0 and args.refreeze:
                watcher.check()
            walked = len(gc.get_objects())
            start = time.perf_counter()
            gc.collect()
            took = (time.perf_counter() - start) * 1000
            table.add_row(str(n + 1), str(len(sys.modules)), str(gc.get_freeze_count()), str(walked), f"{took:.1f}")
        ctx.close()
    finally:
        cleanup()
        fake.stop()
    Console(width=160).print(f"{args.backend}, {'refrozen after round 1' if args.refreeze else 'start-up frozen only'}")
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
