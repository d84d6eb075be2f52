"""The process's copy of busy time (person.calendar): at most one read per person per five minutes, failures kept
and logged once, a timeout or rate limit pausing every read, and work rerun once the calendar it needed is read.

The platform behind the port is a small in-memory calendar here; lark-oapi against the fake Feishu is tested in
tests/integration/test_feishu_freebusy.py and tests/integration/test_calendar_holds.py.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from kernel.clock import FrozenClock
from person.calendar import FRESH, HORIZON, MAX_READS, PAUSE, Calendar, CalendarFailed, CalendarNeeded, with_calendar
from person.reachability.models import Busy

NOON = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)
M = timedelta(minutes=1)
ZHANG = [("telegram", "1001"), ("feishu", "ou_zs")]
LI = [("feishu", "ou_ls")]


class Platform:
    """A calendar platform: busy blocks per user, and failures to give before answering."""

    channel = "feishu"

    def __init__(self) -> None:
        self.blocks: dict[str, list[tuple[datetime, datetime]]] = {}
        self.failures: list[Exception] = []
        self.asked: list[tuple[str, datetime, datetime]] = []

    def busy(self, *, external_id: str, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
        self.asked.append((external_id, start, end))
        if self.failures:
            raise self.failures.pop(0)
        return self.blocks.get(external_id, [])


def _read(calendar: Calendar, bindings, now: datetime):
    """What the gate sees, reading the calendar outside first when the copy lacks it (as the callers do)."""
    try:
        return calendar.seen(bindings, now=now)
    except CalendarNeeded as need:
        calendar.read(need, now=now)
        return calendar.seen(bindings, now=now)


def test_a_person_is_read_once_per_five_minutes_over_the_next_day():
    platform = Platform()
    platform.blocks["ou_zs"] = [(NOON + 2 * M, NOON + 60 * M), (NOON - 60 * M, NOON - 30 * M)]
    calendar = Calendar([platform])
    read = _read(calendar, ZHANG, NOON)
    assert read.state == "ok" and read.busy == (Busy(NOON - 60 * M, NOON - 30 * M), Busy(NOON + 2 * M, NOON + 60 * M))
    assert platform.asked == [("ou_zs", NOON, NOON + HORIZON)]
    assert calendar.seen(ZHANG, now=NOON + FRESH - M) is read
    with pytest.raises(CalendarNeeded) as needed:
        calendar.seen(ZHANG, now=NOON + FRESH)
    assert (needed.value.channel, needed.value.external_id) == ("feishu", "ou_zs")


def test_someone_without_a_binding_on_the_calendars_platform_has_no_calendar():
    assert Calendar([Platform()]).seen([("telegram", "1001")], now=NOON) is None


def test_a_failed_read_counts_as_unreadable_for_five_minutes_and_is_logged_once(caplog):
    platform = Platform()
    platform.failures.append(CalendarFailed("invalid_request (190002): no user"))
    calendar = Calendar([platform])
    with caplog.at_level(logging.WARNING, logger="deputy.person.calendar"):
        first = _read(calendar, ZHANG, NOON)
        again = _read(calendar, ZHANG, NOON + 4 * M)
    assert (first.state, first.why, again) == ("failed", "invalid_request (190002): no user", first)
    assert len(platform.asked) == 1 and len(caplog.records) == 1
    assert _read(calendar, LI, NOON).state == "ok"  # one person's refusal says nothing of the others


def test_a_timeout_pauses_every_read_for_a_minute():
    platform = Platform()
    platform.failures.append(CalendarFailed("transient (timeout): no answer", everyone=True))
    calendar = Calendar([platform])
    assert _read(calendar, ZHANG, NOON).state == "failed"
    assert calendar.seen(LI, now=NOON + PAUSE - M).why == "transient (timeout): no answer"  # not read, not waited
    assert len(platform.asked) == 1
    assert _read(calendar, LI, NOON + PAUSE).state == "ok"


@pytest.mark.parametrize(("retry_after", "pause"), [(3.0, timedelta(seconds=3)), (3600.0, FRESH)])
def test_a_rate_limit_pauses_reads_until_the_platform_resets_but_no_longer_than_a_read_is_kept(retry_after, pause):
    platform = Platform()
    platform.failures.append(CalendarFailed("rate_limited (99991400)", everyone=True, retry_after=retry_after))
    calendar = Calendar([platform])
    _read(calendar, ZHANG, NOON)
    assert calendar.seen(LI, now=NOON + pause - timedelta(seconds=1)).state == "failed"
    with pytest.raises(CalendarNeeded):
        calendar.seen(LI, now=NOON + pause)


def test_an_unexpected_error_of_the_platform_is_an_unreadable_calendar_not_a_crash():
    platform = Platform()
    platform.failures.append(KeyError("start_time"))
    read = _read(Calendar([platform]), ZHANG, NOON)
    assert read.state == "failed" and read.why == "KeyError: 'start_time'"


def test_work_is_rerun_after_each_calendar_it_needs_is_read_outside_it():
    platform = Platform()
    calendar = Calendar([platform])
    ctx = SimpleNamespace(calendar=calendar, clock=FrozenClock(NOON))
    runs: list[str] = []

    def work() -> tuple[str, str]:
        runs.append("run")
        return calendar.seen(ZHANG, now=NOON).state, calendar.seen(LI, now=NOON).state

    assert with_calendar(ctx, work) == ("ok", "ok")
    assert len(runs) == 3 and [a[0] for a in platform.asked] == ["ou_zs", "ou_ls"]


def test_work_that_keeps_needing_calendars_ends_treating_the_rest_as_unreadable():
    platform = Platform()
    calendar = Calendar([platform])
    clock = FrozenClock(NOON)
    ctx = SimpleNamespace(calendar=calendar, clock=clock)

    def work() -> str:
        clock.advance(FRESH)  # every run outlives the read before it
        return calendar.seen(ZHANG, now=clock.now()).state

    assert with_calendar(ctx, work) == "failed" and len(platform.asked) == MAX_READS
