"""The one written form of an instant the API reads (RFC 3339 with an offset), and its OpenAPI statement.

Every instant a request carries (`since`, `until`, `paused_until`, `work_state.until`, `occurred_at`, a
concern's `deadline`) is text in this form, and lies in SPEC §8's range (kernel.limits). The document states
both: `format: date-time` with a `pattern` for the form and the range. A pattern cannot compare a local time
with its offset, so on the range's first and last local days (1970-01-01, 2099-12-31) it admits only the offsets
that keep every time of that day inside, and no time on the days just outside; an instant there that still lies
inside (1970-01-01T05:00:00+03:00) is accepted but not documented. Everything the pattern admits is accepted.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from kernel.limits import SaneInstant

# Upper-case T and Z, seconds, at most microseconds: what both backends and every parser here read alike.
_LOCAL = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?"
LOCAL_FORM = re.compile(_LOCAL)  # the form without its offset: a naive instant
INSTANT_FORM = re.compile(_LOCAL + r"(?:Z|[+-][0-9]{2}:[0-9]{2})")
FORM_TEXT = "must be an ISO 8601 datetime with seconds and an offset, e.g. 2026-03-20T10:00:00+08:00"

_TIME = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?"
_HOURS = r"(?:[01][0-9]|2[0-3]):[0-5][0-9]"
_DAY, _MONTH = r"[0-3][0-9]", r"(?:0[1-9]|1[0-2])"
_INSIDE_DAYS = (  # 1970-01-02 to 2099-12-30: inside at every time and offset (an offset is under 24 h)
    rf"(?:197[1-9]|19[89][0-9]|20[0-8][0-9]|209[0-8])-{_MONTH}-{_DAY}",
    rf"1970-(?:01-(?:0[2-9]|[12][0-9]|3[01])|(?:0[2-9]|1[0-2])-{_DAY})",
    rf"2099-(?:(?:0[1-9]|1[01])-{_DAY}|12-(?:[0-2][0-9]|30))",
)
INSTANT_PATTERN = (
    f"^(?:(?:{'|'.join(_INSIDE_DAYS)})T{_TIME}(?:Z|[+-]{_HOURS})"
    f"|1970-01-01T{_TIME}(?:Z|-{_HOURS}|\\+00:00)"  # no positive offset: it could reach back into 1969
    f"|2099-12-31T{_TIME}(?:Z|\\+{_HOURS}|-00:00))$"  # no negative offset: it could reach into 2100
)
INSTANT_SCHEMA = {
    "type": "string",
    "format": "date-time",
    "pattern": INSTANT_PATTERN,
    "description": "RFC 3339 with an offset (2026-03-20T10:00:00+08:00), from 1970-01-01 to 2100-01-01 UTC",
}


def written_form(value: Any) -> Any:
    """`value` itself when it is text in INSTANT_FORM or already a datetime; a validation error otherwise."""
    if isinstance(value, datetime) or (isinstance(value, str) and INSTANT_FORM.fullmatch(value)):
        return value
    raise PydanticCustomError("datetime_parsing", FORM_TEXT)  # pydantic's own type: readers get its words


def written_form_or_none(value: Any) -> Any:
    """None, or `value` in the written form (one message for a number, not one per member of the union)."""
    return None if value is None else written_form(value)


def _document(schema: dict[str, Any]) -> None:
    schema.clear()
    schema.update(INSTANT_SCHEMA)


# An instant in a request body: the written form, SPEC §8's range, stated so in the OpenAPI document.
Instant = Annotated[SaneInstant, BeforeValidator(written_form), Field(json_schema_extra=_document)]
OptionalInstant = Annotated[Instant | None, BeforeValidator(written_form_or_none)]
