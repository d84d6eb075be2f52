"""The validated field types of people and their policy: ids, names, timezones, times of day, durations."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, available_timezones

from pydantic import AfterValidator, BeforeValidator, StrictFloat, StrictInt
from pydantic import Field as PField

from kernel.channel_names import ChannelName
from kernel.instants import OptionalInstant
from kernel.limits import storable_text

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


def _char_class(chars: set[str]) -> str:
    """`[0-35]` for {0, 1, 2, 3, 5}: digits, consecutive runs as ranges."""
    ordered, runs = sorted(chars), []
    for c in ordered:
        if runs and ord(c) == ord(runs[-1][1]) + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    body = "".join(a if a == b else f"{a}{b}" if ord(b) == ord(a) + 1 else f"{a}-{b}" for a, b in runs)
    return body if len(ordered) == 1 else f"[{body}]"


def _alternation(values: list[str]) -> str:
    """A regex matching exactly these two-character strings (first characters sharing their seconds merged)."""
    seconds: dict[str, set[str]] = {}
    for v in values:
        seconds.setdefault(v[0], set()).add(v[1])
    groups: dict[frozenset[str], set[str]] = {}
    for first, after in seconds.items():
        groups.setdefault(frozenset(after), set()).add(first)
    parts = [_char_class(firsts) + _char_class(set(after)) for after, firsts in groups.items()]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(sorted(parts)) + ")"


def _hhmm_where(position: int, digits: set[str]) -> str:
    """HHMM_PATTERN narrowed to times whose character at `position` (0, 1, 3 or 4) is one of `digits`."""
    hours, minutes = [f"{h:02d}" for h in range(24)], [f"{m:02d}" for m in range(60)]
    if position < 2:
        hours = [h for h in hours if h[position] in digits]
    else:
        minutes = [m for m in minutes if m[position - 3] in digits]
    return f"^{_alternation(hours)}:{_alternation(minutes)}$"


def differing_times(first: str, second: str) -> dict[str, Any]:
    """JSON Schema for an object whose HH:MM fields `first` and `second` differ: they differ in some digit."""
    branches = []
    for position in (0, 1, 3, 4):
        possible = {t[position] for t in (f"{h:02d}:{m:02d}" for h in range(24) for m in range(60))}
        for digit in sorted(possible):
            first_is = _hhmm_where(position, {digit})
            second_is_not = _hhmm_where(position, possible - {digit})
            branches.append({"properties": {first: {"pattern": first_is}, second: {"pattern": second_is_not}}})
    return {"anyOf": branches}


def _document_zones(schema: dict[str, Any]) -> None:
    """The OpenAPI document lists the zone names `check_timezone` accepts on this host."""
    schema["enum"] = sorted(_zones() - _NOT_IANA)


Timezone = Annotated[str, AfterValidator(check_timezone), PField(json_schema_extra=_document_zones)]
HHMM = Annotated[str, PField(json_schema_extra={"pattern": HHMM_PATTERN}), AfterValidator(_check_hhmm)]
WeeklyAt = Annotated[str, PField(json_schema_extra={"pattern": WEEKLY_PATTERN}), AfterValidator(_check_weekly)]
Wait = Annotated[str, PField(json_schema_extra={"pattern": WAIT_PATTERN}), AfterValidator(_check_wait)]
Text = Annotated[str, PField(min_length=1, max_length=200), AfterValidator(storable_text)]
ExternalId = Annotated[str, PField(min_length=1, max_length=128), AfterValidator(storable_text)]


def _whole(value: Any) -> Any:
    """`5.0` as 5: JSON Schema's integer is any number without a fraction; a bool or a text stays refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def whole(low: int, high: int) -> Any:
    """An integer from `low` to `high` as JSON Schema means one (5 or 5.0), never true, "5" or 5.5."""
    return Annotated[StrictInt, PField(ge=low, le=high), BeforeValidator(_whole)]


def _number(value: Any) -> Any:
    """`2` as 2.0: JSON Schema's number includes integers; a bool or a text stays refused (StrictFloat then)."""
    return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


# `interaction_policy.follow_up_stretch`: how much longer this person's follow-up waits are (1.0–4.0).
Stretch = Annotated[StrictFloat, PField(ge=MIN_STRETCH, le=MAX_STRETCH, allow_inf_nan=False), BeforeValidator(_number)]


QuietDays = Annotated[
    list[whole(1, 7)],
    PField(max_length=7, json_schema_extra={"uniqueItems": True}),
    AfterValidator(_unique_sorted_days),
]
PausedUntil = OptionalInstant
