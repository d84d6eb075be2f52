"""Learned answering hours (pure): from a person's own answers of the last weeks, when they usually answer."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median
from zoneinfo import ZoneInfo

LOOKBACK = timedelta(days=28)
MIN_ANSWERS = 5  # fewer answers say nothing about a rhythm: nothing changes
MIN_SHARE = 0.15  # an hour is "usual" when at least this share of the answers (and two of them) fell in it


@dataclass(frozen=True)
class Answered:
    """One answer of the person: when they were asked and when they answered (UTC)."""

    asked_at: datetime
    answered_at: datetime


@dataclass(frozen=True)
class Rhythm:
    """What the history says: the usual local hours, the median time to answer, and how many answers it rests on."""

    hours: frozenset[int]
    median_wait: timedelta | None
    answers: int


def learn(answers: list[Answered], *, tz: ZoneInfo, now: datetime) -> Rhythm:
    """The person's usual answering hours in their own timezone over the last four weeks (empty with too little)."""
    recent = [a for a in answers if now - LOOKBACK <= a.answered_at <= now]
    waits = [a.answered_at - a.asked_at for a in recent if a.answered_at >= a.asked_at]
    median_wait = median(waits) if waits else None
    if len(recent) < MIN_ANSWERS:
        return Rhythm(frozenset(), median_wait, len(recent))
    counts: dict[int, int] = {}
    for answer in recent:
        hour = answer.answered_at.astimezone(tz).hour
        counts[hour] = counts.get(hour, 0) + 1
    floor = max(2, math.ceil(len(recent) * MIN_SHARE))
    return Rhythm(frozenset(h for h, n in counts.items() if n >= floor), median_wait, len(recent))
