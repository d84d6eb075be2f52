"""Learned answering hours: the person's own answers of the last four weeks, in their timezone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from person.reachability.learning import Answered, learn

SH = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)


def _answers(*local_hours: int, days_ago: int = 0):
    out = []
    for i, hour in enumerate(local_hours):
        day = datetime(2026, 3, 17, hour, 20, tzinfo=SH) - timedelta(days=days_ago + i % 7)
        answered = day.astimezone(UTC)
        out.append(Answered(asked_at=answered - timedelta(minutes=40), answered_at=answered))
    return out


@pytest.mark.parametrize(
    "answers,hours",
    [
        (_answers(10, 10, 11, 11, 15), {10, 11}),
        (_answers(10, 11, 15, 16), set()),  # too little history: nothing changes
        (_answers(9, 10, 11, 14, 15, 16, 20), set()),  # no rhythm: no hour holds two answers
        (_answers(10, 10, 10, 11, 11, days_ago=30), set()),  # older than four weeks
    ],
)
def test_answering_hours_are_learned_from_recent_answers_in_the_persons_time(answers, hours):
    rhythm = learn(answers, tz=SH, now=NOW)
    assert rhythm.hours == frozenset(hours)
    if rhythm.answers:
        assert rhythm.median_wait == timedelta(minutes=40)
