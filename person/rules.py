"""Pure rules of a person's interaction policy: quiet hours, quiet days, local days, and easing off."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from person.fields import MAX_STRETCH
from person.models import InteractionPolicy, QuietWindow

CAP_FLOOR = 1  # "too many messages" never lowers the daily cap below this: that would be "never", a different request
STRETCH_STEP = 1.5  # once the cap is at its floor, each "too many" spaces the follow-ups this much further

_SEARCH_DAYS = 9


def _hhmm(value: str) -> time:
    hours, minutes = value.split(":")
    return time(int(hours), int(minutes))


def _at(day: date, clock: time, tz: ZoneInfo) -> datetime:
    """The UTC instant of a local wall-clock time (zoneinfo resolves DST gaps and folds)."""
    return datetime.combine(day, clock, tzinfo=tz).astimezone(UTC)


def local_day_bounds(now: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[start, end) in UTC of the person's local calendar day containing `now` (23 h or 25 h on DST days)."""
    day = now.astimezone(tz).date()
    return _at(day, time(0), tz), _at(day + timedelta(days=1), time(0), tz)


def _in_window(clock: time, window: QuietWindow) -> bool:
    start, end = _hhmm(window.start), _hhmm(window.end)
    if start < end:
        return start <= clock < end
    return clock >= start or clock < end  # crosses midnight


def is_quiet(policy: InteractionPolicy, tz: ZoneInfo, now: datetime) -> bool:
    """True when `now` falls on a quiet day or inside a quiet window, in the person's timezone."""
    local = now.astimezone(tz)
    if local.isoweekday() in policy.quiet_days:
        return True
    clock = local.time().replace(tzinfo=None)
    return any(_in_window(clock, w) for w in policy.quiet_hours)


def _boundaries(policy: InteractionPolicy, tz: ZoneInfo, now: datetime) -> list[datetime]:
    """Every instant after `now` (within the search horizon) where quietness may end."""
    today = now.astimezone(tz).date()
    points = []
    for offset in range(-1, _SEARCH_DAYS):
        day = today + timedelta(days=offset)
        points.append(_at(day, time(0), tz))
        points.extend(_at(day, _hhmm(w.end), tz) for w in policy.quiet_hours)
    return sorted(p for p in set(points) if p > now)


def quiet_until(policy: InteractionPolicy, tz: ZoneInfo, now: datetime) -> datetime | None:
    """`now` if contact is allowed now, else the first later instant outside all quiet time.

    None when every moment of the next week is quiet (e.g. all seven days are quiet days).
    """
    if not is_quiet(policy, tz, now):
        return now
    for candidate in _boundaries(policy, tz, now):
        if not is_quiet(policy, tz, candidate):
            return candidate
    return None


def next_local(clock: str, tz: ZoneInfo, now: datetime) -> datetime:
    """The next instant after `now` when the local wall clock reads `clock` ("09:00"), in UTC."""
    today = now.astimezone(tz).date()
    for offset in range(3):
        candidate = _at(today + timedelta(days=offset), _hhmm(clock), tz)
        if candidate > now:
            return candidate
    raise AssertionError("a wall-clock time recurs within three days")  # pragma: no cover


def next_morning(policy: InteractionPolicy, tz: ZoneInfo, now: datetime, *, clock: str = "09:00") -> datetime:
    """ "Tomorrow": the next local `clock`, or the end of quiet time then if that is later."""
    morning = next_local(clock, tz, now)
    return quiet_until(policy, tz, morning) or morning


@dataclass(frozen=True)
class Easing:
    """One step less: which policy field changes, from what to what."""

    field: str  # max_proactive_contacts_per_day | follow_up_stretch
    before: float
    after: float


def eased(policy: InteractionPolicy) -> Easing | None:
    """The person's own "too many messages": their daily cap one lower (never below CAP_FLOOR); once it is there,
    their follow-up waits STRETCH_STEP times longer (at most MAX_STRETCH); None when both are at their limit."""
    cap = policy.max_proactive_contacts_per_day
    if cap > CAP_FLOOR:
        return Easing("max_proactive_contacts_per_day", cap, cap - 1)
    stretch = policy.follow_up_stretch
    if stretch < MAX_STRETCH:
        return Easing("follow_up_stretch", stretch, min(MAX_STRETCH, round(stretch * STRETCH_STEP, 2)))
    return None
