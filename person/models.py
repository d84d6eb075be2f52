"""Person, channel binding and interaction policy (SPEC §3.3): tables and validated shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    StrictBool,
    model_validator,
)
from pydantic import Field as PField
from sqlalchemy import JSON, Boolean, Column, ForeignKey, Integer, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from kernel.channel_names import installed
from kernel.db import UTCDateTime
from person.fields import (  # noqa: F401  (the field types are part of this module's vocabulary)
    HHMM,
    MAX_DIGEST_WAIT_S,
    MAX_STRETCH,
    MIN_STRETCH,
    PERSON_ID_PATTERN,
    PERSON_ID_RE,
    Channel,
    ExternalId,
    Locale,
    PausedUntil,
    PersonId,
    QuietDays,
    Role,
    Stretch,
    Text,
    Timezone,
    Wait,
    WeeklyAt,
    check_timezone,
    differing_times,
    wait_seconds,
    whole,
)
from person.work_state import WorkState


def _not_null(schema: dict[str, Any]) -> None:
    """The document of a field a patch may leave out but not set to null: its type without null, no default."""
    schema.pop("default", None)
    kept = [branch for branch in schema.pop("anyOf", []) if branch != {"type": "null"}]
    if len(kept) == 1:
        schema.update(kept[0])
    elif kept:
        schema["anyOf"] = kept


def unset() -> Any:
    """The default of a patch field that may be left out but not null (person.service refuses null, naming it)."""
    return PField(None, json_schema_extra=_not_null)


class Strict(BaseModel):
    """Input shapes reject unknown fields."""

    model_config = ConfigDict(extra="forbid")


class QuietWindow(Strict):
    """A daily quiet window in the person's timezone; may cross midnight (22:00-07:00)."""

    # The document says what `_not_empty` checks: start and end differ (in some digit).
    model_config = ConfigDict(json_schema_extra=differing_times("start", "end"))

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
    max_proactive_contacts_per_day: whole(0, 100) = 5
    preferred_channel: Channel | None = None
    quiet_hours: list[QuietWindow] = PField(default_factory=_default_quiet_hours, max_length=24)
    quiet_days: QuietDays = PField(default_factory=list)
    paused_until: PausedUntil = None
    daily_brief_at: HHMM | None = "09:00"  # principals get their brief then (local); None: no brief
    weekly_review_at: WeeklyAt | None = None  # "MON 09:00" local; None: no scheduled review
    digest: StrictBool = False  # hold what can wait for one digest
    digest_max_wait: Wait = "4h"  # the longest a digested item waits
    # Multiplies the waits before this person's follow-ups (1.0: the schedule as configured); see concern.rules.
    follow_up_stretch: Stretch = MIN_STRETCH


class InteractionPolicyPatch(Strict):
    """Partial policy update: only the fields given change (those `unset()` may be left out, never null)."""

    allow_proactive_ping: StrictBool | None = unset()
    max_proactive_contacts_per_day: whole(0, 100) | None = unset()
    preferred_channel: Channel | None = None
    quiet_hours: Annotated[list[QuietWindow], PField(max_length=24)] | None = unset()
    quiet_days: QuietDays | None = unset()
    paused_until: PausedUntil = None
    daily_brief_at: HHMM | None = None
    weekly_review_at: WeeklyAt | None = None
    digest: StrictBool | None = unset()
    digest_max_wait: Wait | None = unset()
    follow_up_stretch: Stretch | None = unset()


class ChannelBindingIn(Strict):
    """Where a person can be reached on one platform."""

    channel: Channel
    external_user_id: ExternalId
    chat_id: ExternalId | None = None
    reachable: StrictBool = True


def _unique_bindings(bindings: list[ChannelBindingIn]) -> list[ChannelBindingIn]:
    seen = set()
    for b in bindings:
        key = (b.channel, b.external_user_id, b.chat_id, b.reachable)
        if key in seen:
            raise ValueError(f"binding {b.channel}:{b.external_user_id} is listed twice")
        seen.add(key)
    return bindings


# uniqueItems says what `_unique_bindings` checks: two equal listings are refused (a 422). Two that share only
# channel and user, which JSON Schema cannot say, are the service's 409 (`person.service._check_distinct`).
Bindings = Annotated[
    list[ChannelBindingIn],
    AfterValidator(_unique_bindings),
    PField(max_length=20, json_schema_extra={"uniqueItems": True}),
]


def _preferred_is_bound(schema: dict[str, Any]) -> None:
    """The document says what `_check_preferred` checks: a preferred channel is one the bindings list."""
    none = {"properties": {"interaction_policy": {"properties": {"preferred_channel": {"type": "null"}}}}}
    bound = [
        {
            "properties": {
                "interaction_policy": {
                    "properties": {"preferred_channel": {"const": name}},
                    "required": ["preferred_channel"],
                },
                "channel_bindings": {"contains": {"properties": {"channel": {"const": name}}}},
            },
            "required": ["interaction_policy", "channel_bindings"],
        }
        for name in installed()
    ]
    schema["anyOf"] = [none, *bound]


class PersonCreate(Strict):
    """A whole person, as `POST /v1/persons` accepts it."""

    model_config = ConfigDict(json_schema_extra=_preferred_is_bound)

    person_id: PersonId
    display_name: Text
    aliases: list[Text] = PField(default_factory=list, max_length=50)
    role: Role = "member"
    manager_id: PersonId | None = None
    timezone: Timezone | None = None
    locale: Locale = "zh"
    work_state: WorkState = PField(default_factory=WorkState)
    channel_bindings: Bindings = PField(default_factory=list)
    interaction_policy: InteractionPolicy = PField(default_factory=InteractionPolicy)


class PersonUpdate(Strict):
    """`PATCH /v1/persons/{id}`: only the fields given change (those `unset()` may be left out, never null)."""

    display_name: Text | None = unset()
    aliases: Annotated[list[Text], PField(max_length=50)] | None = unset()
    role: Role | None = unset()
    manager_id: PersonId | None = None
    timezone: Timezone | None = unset()
    locale: Locale | None = unset()
    work_state: WorkState | None = unset()
    active: StrictBool | None = unset()


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
    work_state: WorkState
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
