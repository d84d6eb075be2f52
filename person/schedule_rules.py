"""Pure rules of the principal's day: when the daily brief and the weekly review are due, in the person's time."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from person.models import InteractionPolicy
from person.rules import _at, _hhmm, quiet_until

WEEKDAYS = ("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN")


def _moment(policy: InteractionPolicy, tz: ZoneInfo, day: date, clock: str) -> datetime | None:
    """The local `clock` on `day`, moved past a pause and out of quiet time (None: quiet all week)."""
    at = _at(day, _hhmm(clock), tz)
    if policy.paused_until is not None and policy.paused_until > at:
        at = policy.paused_until
    return quiet_until(policy, tz, at)


def brief_moment(policy: InteractionPolicy, tz: ZoneInfo, day: date) -> datetime | None:
    """When the brief of local `day` goes out: `daily_brief_at`, or when quiet time or a pause ends; None: off."""
    if policy.daily_brief_at is None:
        return None
    return _moment(policy, tz, day, policy.daily_brief_at)


def next_brief_at(policy: InteractionPolicy, tz: ZoneInfo, now: datetime) -> datetime | None:
    """The next scheduled brief at or after `now` (UTC), or None when briefs are off.

    A brief time inside quiet hours counts from when they end; a day whose brief is already past is not
    looked at again (whether it was sent is the caller's to know).
    """
    if policy.daily_brief_at is None:
        return None
    today = now.astimezone(tz).date()
    for offset in range(-1, 9):
        moment = brief_moment(policy, tz, today + timedelta(days=offset))
        if moment is not None and moment >= now:
            return moment
    return None


def due_brief_day(policy: InteractionPolicy, tz: ZoneInfo, now: datetime) -> tuple[date, datetime] | None:
    """The local day whose brief is due at `now`, with its moment: passed, on the local day it is now, and the
    next day's time not yet come.

    Yesterday's brief is still due in the morning when quiet hours pushed its moment past midnight. A brief that
    did not go out on its moment's day (the service was down) is not sent the day after, where it would be a second
    brief that day: the next one says what it would have (what happened since the last brief sent).
    """
    if policy.daily_brief_at is None:
        return None
    today = now.astimezone(tz).date()
    for day in (today, today - timedelta(days=1)):
        moment = brief_moment(policy, tz, day)
        following = _at(day + timedelta(days=1), _hhmm(policy.daily_brief_at), tz)
        if moment is not None and moment <= now < following and moment.astimezone(tz).date() == today:
            return day, moment
    return None


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def due_review_week(policy: InteractionPolicy, tz: ZoneInfo, now: datetime) -> tuple[date, datetime] | None:
    """The week (its Monday) whose review is due at `now`, with its moment; None when off or not yet."""
    if policy.weekly_review_at is None:
        return None
    weekday, clock = policy.weekly_review_at.split(" ")
    monday = _week_start(now.astimezone(tz).date())
    for start in (monday, monday - timedelta(days=7)):
        day = start + timedelta(days=WEEKDAYS.index(weekday))
        moment = _moment(policy, tz, day, clock)
        following = _at(day + timedelta(days=7), _hhmm(clock), tz)
        if moment is not None and moment <= now < following:
            return start, moment
    return None
