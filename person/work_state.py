"""A person's work state (SPEC §3.3): available, away or on leave, until when, who stands in; validated and read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator
from pydantic import Field as PField

from kernel.limits import StorableText
from person.fields import OptionalInstant, PersonId

Status = Literal["available", "away", "on_leave"]
AWAY_STATUSES = frozenset({"away", "on_leave"})
ONLY_AWAY = {"properties": {"status": {"enum": sorted(AWAY_STATUSES)}}, "required": ["status"]}
NOTHING_OF_AWAY = {"properties": {"until": {"type": "null"}, "stand_in_id": {"type": "null"}}}


class WorkState(BaseModel):
    """`{"status", "until", "stand_in_id", "note"}`; `away` and `on_leave` both mean the person is away."""

    # The document says what `_away_fields_only_when_away` checks: until and stand_in_id only while away.
    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": [ONLY_AWAY, NOTHING_OF_AWAY]})

    status: Status = "available"
    until: OptionalInstant = None  # null while away: open-ended
    stand_in_id: PersonId | None = None
    note: Annotated[StorableText, PField(max_length=500)] = ""

    @field_validator("until")
    @classmethod
    def _in_utc(cls, value: datetime | None) -> datetime | None:
        return value.astimezone(UTC) if value is not None else None  # stored in UTC; one instant, one form

    @model_validator(mode="after")
    def _away_fields_only_when_away(self) -> WorkState:
        if self.status == "available" and self.until is not None:
            raise ValueError("until is only meaningful while away or on leave (status available has no end)")
        if self.status == "available" and self.stand_in_id is not None:
            raise ValueError("stand_in_id is only meaningful while away or on leave")
        return self

    def away_at(self, now: datetime) -> bool:
        """True when the person is away at `now`: away or on leave, and `until` not yet reached (or open-ended)."""
        return self.status in AWAY_STATUSES and (self.until is None or now < self.until)


AVAILABLE = WorkState()


def stored(state: WorkState) -> dict[str, Any]:
    """The JSON the persons table holds."""
    return state.model_dump(mode="json")


def read(raw: dict[str, Any] | None) -> WorkState:
    """The work state of a stored row; rows written before it was validated keep what still makes sense.

    An old free-form row (`{"status": "on_leave", "until": "2026-04-01"}`) keeps its status and drops the parts
    that do not validate (a date without a time and offset says nothing exact about when the person is back).
    """
    raw = raw or {}
    try:
        return WorkState.model_validate(raw)
    except ValidationError:
        status = raw.get("status")
        if status not in AWAY_STATUSES:
            return AVAILABLE
        kept: dict[str, Any] = {"status": status}
        for name in ("until", "stand_in_id", "note"):
            try:
                WorkState.model_validate({"status": status, name: raw.get(name)})
            except ValidationError:
                continue
            if raw.get(name) is not None:
                kept[name] = raw[name]
        return WorkState.model_validate(kept)
