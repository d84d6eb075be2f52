"""Benchmark: signal → reply while every principal's daily brief comes due at once (09:00 for all 200).

A scratch database with the bench's 500 people (200 principals, the brief at the default 09:00 Asia/Shanghai) and
50 `/help` answered the day before, so each brief has something to look through. The processor runs on its
thread as in `deputy process` (`app.pipeline.Processor`), its clock frozen at 09:00:30 that morning; then `/help`
arrives from the principals in turn at `--rate` per second, each appended as the ack appends it and the processor
woken, while the briefs are decided. Prints the signals' signal → reply latency, and how long until every
principal's brief was decided. Run it in two trees to compare them (`git worktree add /tmp/old REV`).
Usage: python bench/brief_morning.py [--backend sqlite|postgres] [--signals 60] [--rate 20]
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.passes import scratch_processor
from bench.webhook import append_help
from bench.webhook_server import PRINCIPALS

BEFORE_NINE = datetime(2026, 12, 9, 0, 30, tzinfo=UTC)  # 08:30 in Asia/Shanghai, the bench's people's timezone
BRIEF_TITLES = ("**今日简报", "**Daily brief")


def _briefs_decided(ctx) -> int:
    from sqlalchemy import func, select

    from fact.models import Fact

    with ctx.reader() as uow:
        return uow.session.scalar(select(func.count()).where(Fact.dedup_key.like("brief:%2026-12-09")))


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def run(backend: str, signals: int, rate: float, *, baseline: bool) -> None:
    """One morning: the stream of `/help` from nine on, the replies timed."""
    from app.pipeline import Processor, tick
    from cognitive_core.language import classifier
    from kernel.clock import FrozenClock

    with scratch_processor(backend) as (ctx, fake):
        clock = FrozenClock(BEFORE_NINE)
        ctx.clock = clock
        append_help(ctx, 50)
        while tick(ctx)["more"]:
            pass
        clock.advance(timedelta(minutes=30, seconds=30))
        while baseline and tick(ctx)["more"]:  # the briefs decided before the stream: what it costs without them
            pass
        classifier.model()  # trained now: `start` trains it on a thread of its own, which would share the stream's time
        processor = Processor(ctx, threaded=True)
        processor.start()
        sent: list[tuple[int, float]] = []
        before = {chat: len(times) for chat, times in fake.arrivals.items()}
        start = time.perf_counter()
        try:
            for i in range(signals):
                time.sleep(max(0.0, start + i / rate - time.perf_counter()))
                append_help(ctx, 1, first=i)
                sent.append((i, time.perf_counter()))
                processor.wake()
            deadline = time.monotonic() + 120
            while _briefs_decided(ctx) < len(PRINCIPALS) and time.monotonic() < deadline:
                time.sleep(0.05)
            decided_after = time.perf_counter() - start
            _quiet(fake, deadline)
        finally:
            processor.stop()
        arrivals = _replies(fake, before)
        latencies = [(arrivals[PRINCIPALS[i]] - sent_at) * 1000 for i, sent_at in sent if PRINCIPALS[i] in arrivals]
    figures = " / ".join(f"{_percentile(latencies, q):.0f}" for q in (0.5, 0.9, 0.99, 1.0))
    briefs = "decided before the stream" if baseline else f"decided {decided_after:.1f} s after the first signal"
    print(
        f"{Path(__file__).resolve().parents[1]} {backend}: {len(latencies)} signals at {rate:.0f}/s from 09:00:30,"
        f" signal → reply p50 / p90 / p99 / max {figures} ms; 200 briefs {briefs}"
    )


def _quiet(fake, deadline: float) -> None:
    """Wait until no message has reached the fake Bot API for half a second (the last replies and briefs sent)."""
    seen = -1
    while seen != fake.replies and time.monotonic() < deadline:
        seen = fake.replies
        time.sleep(0.5)


def _replies(fake, before: dict[int, int]) -> dict[int, float]:
    """When each chat's `/help` reply arrived after `before` (per chat, the arrivals seen until then); briefs, sent
    to the same chats, are told apart by their title."""
    found = {}
    with fake._cond:
        for chat, times in list(fake.arrivals.items()):
            texts = [m.get("text", "") for (c, _), m in sorted(fake.sent.items()) if c == str(chat)]
            for text, arrived in list(zip(texts, times, strict=False))[before.get(chat, 0) :]:
                if not text.startswith(BRIEF_TITLES):
                    found[chat] = arrived
                    break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="sqlite")
    parser.add_argument("--signals", type=int, default=60)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--baseline", action="store_true", help="decide the briefs first, then send the stream")
    args = parser.parse_args()
    run(args.backend, args.signals, args.rate, baseline=args.baseline)


if __name__ == "__main__":
    main()
