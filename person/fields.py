"""The validated field types of people and their policy: ids, names, timezones, times of day, durations."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, available_timezones

from pydantic import AfterValidator, BeforeValidator, StrictInt
from pydantic import Field as PField

from kernel.channel_names import ChannelName
from kernel.limits import SaneInstant, storable_text

PERSON_ID_PATTERN = r"^p_[a-z0-9_]{1,48}$"
Channel = ChannelName  # an installed channel plugin (the composition root installs their names)
Role = Literal["principal", "member"]
Locale = Literal["zh", "en"]
PersonId = Annotated[str, PField(pattern=PERSON_ID_PATTERN)]
PERSON_ID_RE = re.compile(r"p_[a-z0-9_]{1,48}")  # use with fullmatch (`$` would allow a trailing newline)
_HHMM = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")  # fullmatch; ASCII digits only
# Names in the system zoneinfo directory that are not IANA zones: their meaning depends on the host.
_NOT_IANA = frozenset({"localtime", "posixrules"})


@lru_cache(maxsize=1)
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def check_timezone(value: str) -> str:
    """Accept IANA zone names only (`Asia/Shanghai`, `America/New_York`, `UTC`)."""
    if value not in _zones() or value in _NOT_IANA:
        raise ValueError(f"{value!r} is not an IANA timezone name")
    ZoneInfo(value)
    return value


def _check_hhmm(value: str) -> str:
    if not _HHMM.fullmatch(value):
        raise ValueError(f"{value!r} is not a time of day HH:MM (00:00-23:59)")
    return value


def _unique_sorted_days(days: list[int]) -> list[int]:
    if len(set(days)) != len(days):
        raise ValueError("quiet_days must not repeat a weekday")
    return sorted(days)


def _no_bare_number(value: Any) -> Any:
    """An instant (paused_until, work_state.until) is an ISO 8601 text or null, not a Unix timestamp."""
    if isinstance(value, (int, float)):
        raise ValueError("must be an ISO 8601 datetime with offset, e.g. 2026-03-20T10:00:00+08:00")
    return value


_WEEKLY = re.compile(r"(MON|TUE|WED|THU|FRI|SAT|SUN) ([01][0-9]|2[0-3]):[0-5][0-9]")
_WAIT = re.compile(r"([1-9][0-9]{0,3})([mhd])")
_WAIT_UNITS = {"m": 60, "h": 3600, "d": 86400}
MAX_DIGEST_WAIT_S = 7 * 86400
# interaction_policy.follow_up_stretch: how much longer than the schedule this person's follow-ups wait.
MIN_STRETCH, MAX_STRETCH = 1.0, 4.0


def _check_weekly(value: str) -> str:
    if not _WEEKLY.fullmatch(value):
        raise ValueError('must be a weekday and a 24-hour time like "MON 09:00"')
    return value


def wait_seconds(value: str) -> int:
    """`4h` → 14400 (units m, h, d)."""
    amount, unit = _WAIT.fullmatch(value).groups()
    return int(amount) * _WAIT_UNITS[unit]


def _check_wait(value: str) -> str:
    if not _WAIT.fullmatch(value):
        raise ValueError('must be a duration like "30m", "4h" or "1d"')
    if wait_seconds(value) > MAX_DIGEST_WAIT_S:
        raise ValueError("must be at most 7 days")
    return value


# The patterns say in the OpenAPI document what the checks enforce; the checks validate (and explain what is wrong).
HHMM_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
WEEKLY_PATTERN = r"^(MON|TUE|WED|THU|FRI|SAT|SUN) ([01][0-9]|2[0-3]):[0-5][0-9]$"
# 1-9999 minutes, 1-168 hours or 1-7 days: at most MAX_DIGEST_WAIT_S
WAIT_PATTERN = r"^([1-9][0-9]{0,3}m|([1-9]|[1-9][0-9]|1[0-5][0-9]|16[0-8])h|[1-7]d)$"
Timezone = Annotated[str, AfterValidator(check_timezone)]
HHMM = Annotated[str, PField(json_schema_extra={"pattern": HHMM_PATTERN}), AfterValidator(_check_hhmm)]
WeeklyAt = Annotated[str, PField(json_schema_extra={"pattern": WEEKLY_PATTERN}), AfterValidator(_check_weekly)]
Wait = Annotated[str, PField(json_schema_extra={"pattern": WAIT_PATTERN}), AfterValidator(_check_wait)]
Text = Annotated[str, PField(min_length=1, max_length=200), AfterValidator(storable_text)]
ExternalId = Annotated[str, PField(min_length=1, max_length=128), AfterValidator(storable_text)]
QuietDays = Annotated[
    list[Annotated[StrictInt, PField(ge=1, le=7)]],
    PField(max_length=7, json_schema_extra={"uniqueItems": True}),
    AfterValidator(_unique_sorted_days),
]
OptionalInstant = Annotated[SaneInstant | None, BeforeValidator(_no_bare_number)]
PausedUntil = OptionalInstant
