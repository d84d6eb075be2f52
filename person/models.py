"""Person, channel binding and interaction policy (SPEC §3.3): tables and validated shapes."""

from __future__ import annotations

import math
import re
from datetime import datetime
from functools import lru_cache
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, available_timezones

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    StrictBool,
    StrictInt,
    model_validator,
)
from pydantic import Field as PField
from sqlalchemy import JSON, Boolean, Column, ForeignKey, Integer, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from kernel.channel_names import ChannelName
from kernel.db import UTCDateTime
from kernel.limits import SaneInstant

PERSON_ID_PATTERN = r"^p_[a-z0-9_]{1,48}$"
Channel = ChannelName  # an installed channel plugin (the composition root installs their names)
Role = Literal["principal", "member"]
Locale = Literal["zh", "en"]
PersonId = Annotated[str, PField(pattern=PERSON_ID_PATTERN)]
PERSON_ID_RE = re.compile(r"p_[a-z0-9_]{1,48}")  # use with fullmatch (`$` would allow a trailing newline)
_HHMM = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")  # fullmatch; ASCII digits only
# Names in the system zoneinfo directory that are not IANA zones: their meaning depends on the host.
_NOT_IANA = frozenset({"localtime", "posixrules"})
MAX_WORK_STATE_DEPTH = 32


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


def _storable_text(value: str) -> str:
    """PostgreSQL text and JSON cannot hold NUL characters."""
    if "\x00" in value:
        raise ValueError("text must not contain NUL characters")
    return value


def _storable_json(value: dict[str, Any]) -> dict[str, Any]:
    """Free-form JSON the database can store and the API can return: finite numbers, UTF-8 text without NUL."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:  # iterative: a deeply nested body must not exhaust the stack
        item, depth = pending.pop()
        if depth > MAX_WORK_STATE_DEPTH:
            raise ValueError(f"nested deeper than {MAX_WORK_STATE_DEPTH} levels")
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError("numbers must be finite (no NaN or Infinity)")
        texts = [item] if isinstance(item, str) else list(item) if isinstance(item, dict) else []
        for text in texts:
            if not isinstance(text, str):
                continue
            if "\x00" in text:
                raise ValueError("text must not contain NUL characters")
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise ValueError("text must be valid Unicode (no lone surrogates)") from exc
        if isinstance(item, dict):
            pending.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            pending.extend((v, depth + 1) for v in item)
    return value


def _unique_sorted_days(days: list[int]) -> list[int]:
    if len(set(days)) != len(days):
        raise ValueError("quiet_days must not repeat a weekday")
    return sorted(days)


def _no_bare_number(value: Any) -> Any:
    """paused_until is an ISO 8601 text (or null), not a Unix timestamp."""
    if isinstance(value, (int, float)):
        raise ValueError("must be an ISO 8601 datetime with offset, e.g. 2026-03-20T10:00:00+08:00")
    return value


_WEEKLY = re.compile(r"(MON|TUE|WED|THU|FRI|SAT|SUN) ([01][0-9]|2[0-3]):[0-5][0-9]")
_WAIT = re.compile(r"([1-9][0-9]{0,3})([mhd])")
_WAIT_UNITS = {"m": 60, "h": 3600, "d": 86400}
MAX_DIGEST_WAIT_S = 7 * 86400


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


Timezone = Annotated[str, AfterValidator(check_timezone)]
HHMM = Annotated[str, AfterValidator(_check_hhmm)]
WeeklyAt = Annotated[str, AfterValidator(_check_weekly)]
Wait = Annotated[str, AfterValidator(_check_wait)]
Text = Annotated[str, PField(min_length=1, max_length=200), AfterValidator(_storable_text)]
ExternalId = Annotated[str, PField(min_length=1, max_length=128), AfterValidator(_storable_text)]
WorkState = Annotated[dict[str, Any], AfterValidator(_storable_json)]
QuietDays = Annotated[
    list[Annotated[StrictInt, PField(ge=1, le=7)]], PField(max_length=7), AfterValidator(_unique_sorted_days)
]
PausedUntil = Annotated[SaneInstant | None, BeforeValidator(_no_bare_number)]


class Strict(BaseModel):
    """Input shapes reject unknown fields."""

    model_config = ConfigDict(extra="forbid")


class QuietWindow(Strict):
    """A daily quiet window in the person's timezone; may cross midnight (22:00-07:00)."""

    start: HHMM
    end: HHMM

    @model_validator(mode="after")
    def _not_empty(self) -> QuietWindow:
        if self.start == self.end:
            raise ValueError("quiet window start and end must differ")
        return self


def _default_quiet_hours() -> list[QuietWindow]:
    return [QuietWindow(start="23:00", end="08:00")]


class InteractionPolicy(Strict):
    """How and when the bot may contact a person on its own initiative."""

    allow_proactive_ping: StrictBool = True
    max_proactive_contacts_per_day: StrictInt = PField(5, ge=0, le=100)
    preferred_channel: Channel | None = None
    quiet_hours: list[QuietWindow] = PField(default_factory=_default_quiet_hours, max_length=24)
    quiet_days: QuietDays = PField(default_factory=list)
    paused_until: PausedUntil = None
    daily_brief_at: HHMM | None = "09:00"  # principals get their brief then (local); None: no brief
    weekly_review_at: WeeklyAt | None = None  # "MON 09:00" local; None: no scheduled review
    digest: StrictBool = False  # hold what can wait for one digest
    digest_max_wait: Wait = "4h"  # the longest a digested item waits


class InteractionPolicyPatch(Strict):
    """Partial policy update: only the fields given change."""

    allow_proactive_ping: StrictBool | None = None
    max_proactive_contacts_per_day: StrictInt | None = PField(None, ge=0, le=100)
    preferred_channel: Channel | None = None
    quiet_hours: list[QuietWindow] | None = PField(None, max_length=24)
    quiet_days: QuietDays | None = None
    paused_until: PausedUntil = None
    daily_brief_at: HHMM | None = None
    weekly_review_at: WeeklyAt | None = None
    digest: StrictBool | None = None
    digest_max_wait: Wait | None = None


class ChannelBindingIn(Strict):
    """Where a person can be reached on one platform."""

    channel: Channel
    external_user_id: ExternalId
    chat_id: ExternalId | None = None
    reachable: StrictBool = True


def _unique_bindings(bindings: list[ChannelBindingIn]) -> list[ChannelBindingIn]:
    seen = set()
    for b in bindings:
        key = (b.channel, b.external_user_id)
        if key in seen:
            raise ValueError(f"binding {b.channel}:{b.external_user_id} is listed twice")
        seen.add(key)
    return bindings


Bindings = Annotated[list[ChannelBindingIn], AfterValidator(_unique_bindings), PField(max_length=20)]


class PersonCreate(Strict):
    """A whole person, as `POST /v1/persons` accepts it."""

    person_id: PersonId
    display_name: Text
    aliases: list[Text] = PField(default_factory=list, max_length=50)
    role: Role = "member"
    manager_id: PersonId | None = None
    timezone: Timezone | None = None
    locale: Locale = "zh"
    work_state: WorkState = PField(default_factory=dict)
    channel_bindings: Bindings = PField(default_factory=list)
    interaction_policy: InteractionPolicy = PField(default_factory=InteractionPolicy)


class PersonUpdate(Strict):
    """`PATCH /v1/persons/{id}`: only the fields given change."""

    display_name: Text | None = None
    aliases: list[Text] | None = PField(None, max_length=50)
    role: Role | None = None
    manager_id: PersonId | None = None
    timezone: Timezone | None = None
    locale: Locale | None = None
    work_state: WorkState | None = None
    active: StrictBool | None = None


class ChannelBindingsIn(Strict):
    """`PUT /v1/persons/{id}/channel_bindings` body."""

    channel_bindings: Bindings


class ChannelBindingOut(BaseModel):
    channel: Channel
    external_user_id: str
    chat_id: str | None = None
    reachable: bool = True


class PersonOut(BaseModel):
    """A person as the API returns it."""

    person_id: str
    display_name: str
    aliases: list[str]
    role: Role
    manager_id: str | None
    timezone: str
    locale: Locale
    work_state: dict[str, Any]
    channel_bindings: list[ChannelBindingOut]
    interaction_policy: InteractionPolicy
    active: bool
    created_at: datetime
    updated_at: datetime


class Person(SQLModel, table=True):
    """A person record; deactivated persons keep their id and facts."""

    __tablename__ = "persons"

    person_id: str = Field(sa_column=Column(String(64), primary_key=True))
    display_name: str = Field(sa_column=Column(String(200), nullable=False))
    aliases: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    role: str = Field(sa_column=Column(String(16), nullable=False))
    manager_id: str | None = Field(
        default=None, sa_column=Column(String(64), ForeignKey("persons.person_id"), index=True)
    )
    timezone: str = Field(sa_column=Column(String(64), nullable=False))
    locale: str = Field(sa_column=Column(String(8), nullable=False))
    work_state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    interaction_policy: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    active: bool = Field(default=True, sa_column=Column(Boolean, nullable=False))
    created_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False, index=True))
    updated_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))


class ChannelBinding(SQLModel, table=True):
    """One platform identity of a person; (channel, external_user_id) resolves a sender."""

    __tablename__ = "channel_bindings"
    __table_args__ = (UniqueConstraint("channel", "external_user_id", name="uq_channel_bindings_identity"),)

    id: int | None = Field(default=None, sa_column=Column(Integer, primary_key=True, autoincrement=True))
    person_id: str = Field(sa_column=Column(String(64), ForeignKey("persons.person_id"), nullable=False, index=True))
    channel: str = Field(sa_column=Column(String(16), nullable=False))
    external_user_id: str = Field(sa_column=Column(String(128), nullable=False))
    chat_id: str | None = Field(default=None, sa_column=Column(String(128)))
    reachable: bool = Field(default=True, sa_column=Column(Boolean, nullable=False))
