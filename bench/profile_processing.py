"""Profile: where the processor's time goes working off `/help` signals from webhook events (cProfile, one process).

The same setup as bench/webhook.py's serial figure: a scratch database with 500 people, N `/help` updates appended
as the ack appends them, then passes (`app.pipeline.tick`) until every reply reached the fake Telegram server.
Prints the time by package (own time of the functions in each: SQLAlchemy, the database driver, Deputy's layers,
the Telegram client and HTTP, the rest) and the top functions by own time.
`--one-at-a-time`: each `/help` (from the next principal) appended alone and worked off by passes without the
periodic chores before the next is appended, as a steady trickle is; also prints the pass stages' time per signal.
Usage: python bench/profile_processing.py [--signals 300] [--backend sqlite|postgres] [--top 25] [--one-at-a-time]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rich.console import Console
from rich.table import Table

from bench.passes import scratch_processor
from bench.webhook import TimedTelegram, append_help

_GROUPS = (
    ("sqlalchemy", "SQLAlchemy"),
    ("sqlite3", "sqlite3 driver"),
    ("psycopg", "psycopg driver"),
    ("telegram", "python-telegram-bot"),
    ("httpx", "httpx / HTTP"),
    ("httpcore", "httpx / HTTP"),
    ("pydantic", "pydantic"),
    ("sklearn", "scikit-learn"),
    ("json", "json"),
    ("logging", "logging"),
)
_LAYERS = ("cognitive_core", "concern", "action", "perception", "person", "fact", "channels", "kernel", "app")


def _group(filename: str) -> str:
    for marker, name in _GROUPS:
        if f"/{marker}/" in filename or filename.endswith(f"/{marker}.py"):
            return name
    for layer in _LAYERS:
        if f"/{layer}/" in filename and "site-packages" not in filename:
            return f"deputy: {layer}"
    return "other (stdlib, C calls)"


_STAGES = (
    ("app/pipeline.py", "tick"),
    ("app/ingest.py", "ingest"),
    ("cognitive_core/inbox.py", "process_pending"),
    ("concern/outbox/drain.py", "drain"),
    ("concern/outbox/drain.py", "_claim"),
    ("action/execution.py", "reserve"),
    ("action/sandbox.py", "born_in"),
    ("action/delivery.py", "send"),
    ("action/execution.py", "finalize"),
)


def _one_at_a_time(ctx, fake: TimedTelegram, signals: int, profile: cProfile.Profile) -> float:
    """Append one `/help` at a time from the next principal and run passes until its reply; seconds taken."""
    from app.pipeline import tick

    elapsed, start_replies = 0.0, fake.replies
    for done in range(signals):
        append_help(ctx, 1, first=done)  # one principal after another: no chat's pacing holds a reply
        start = time.perf_counter()
        profile.enable()
        while fake.replies < start_replies + done + 1:
            tick(ctx, chores=False)
        profile.disable()
        elapsed += time.perf_counter() - start
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--signals", type=int, default=300)
    parser.add_argument("--backend", default="sqlite")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--one-at-a-time", action="store_true", help="one signal per pass, as at a steady rate")
    args = parser.parse_args()
    from app.pipeline import tick

    with scratch_processor(args.backend) as (ctx, fake):
        profile = cProfile.Profile()  # the first pass (imports, the people cache, compiled statements) is outside
        if args.one_at_a_time:
            elapsed = _one_at_a_time(ctx, fake, args.signals, profile)
        else:
            append_help(ctx, args.signals)
            start = time.perf_counter()
            profile.enable()
            while fake.replies < args.signals:
                tick(ctx)
            profile.disable()
            elapsed = time.perf_counter() - start
    stats = pstats.Stats(profile)
    by_group: dict[str, float] = defaultdict(float)
    rows = []
    for (filename, line, name), (_, calls, own, _cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        by_group[_group(filename)] += own
        rows.append((own, calls, f"{Path(filename).name}:{line} {name}", _group(filename)))
    total = sum(by_group.values())
    console = Console(width=160)
    console.print(f"{args.backend}: {args.signals} /help in {elapsed:.2f} s ({args.signals / elapsed:.1f}/s, profiled)")
    groups = Table("package", "own s", "share", "ms per signal", title="time by package")
    for group, own in sorted(by_group.items(), key=lambda kv: -kv[1]):
        groups.add_row(group, f"{own:.2f}", f"{own / total:.0%}", f"{own / args.signals * 1000:.2f}")
    console.print(groups)
    top = Table("own s", "calls", "function", "package", title=f"top {args.top} functions by own time")
    for own, calls, where, group in sorted(rows, reverse=True)[: args.top]:
        top.add_row(f"{own:.3f}", str(calls), where, group)
    console.print(top)
    if args.one_at_a_time:
        stages = Table("stage", "ms per signal (profiled)", title="a pass's stages")
        for where, name in _STAGES:
            found = [v for (f, _, n), v in stats.stats.items() if f.endswith(where) and n == name]  # type: ignore
            if found:
                stages.add_row(f"{where} {name}", f"{found[0][3] / args.signals * 1000:.2f}")
        console.print(stages)


if __name__ == "__main__":
    main()
