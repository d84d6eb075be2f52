"""What the service accepts (SPEC §8): instants in a sane range, text a database can store, JSON nested shallowly.

Pure rules with no I/O; app/api/guards.py applies them to every HTTP request, models and channels reuse them.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime

# Every instant converts to and from any timezone inside this range; nothing the service records
# (messages, facts, deadlines at most a year ahead) lies outside it.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)
RANGE_TEXT = "between 1970-01-01 and 2100-01-01 (UTC)"
# Real payloads (Telegram updates, Feishu events, person policies) nest fewer than 10 levels.
MAX_JSON_DEPTH = 64

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # a JSON string literal, escapes included
_BRACKET = re.compile(rb"[\[\]{}]")


def in_range(value: datetime) -> bool:
    """True when the aware `value` lies in [EARLIEST, LATEST)."""
    return EARLIEST <= value < LATEST  # aware comparison never overflows, unlike astimezone


def check_in_range(value: datetime) -> datetime:
    """`value` itself, or ValueError when it lies outside the accepted range (a pydantic validator)."""
    if not in_range(value):
        raise ValueError(f"must lie {RANGE_TEXT}")
    return value


SaneInstant = Annotated[AwareDatetime, AfterValidator(check_in_range)]


def local_isoformat(value: datetime, tz: tzinfo) -> str:
    """ISO 8601 in `tz`; in UTC when the local time is not representable (a stored extreme instant still reads)."""
    try:
        return value.astimezone(tz).isoformat()
    except OverflowError:
        return value.astimezone(UTC).isoformat()


def text_problem(value: str) -> str | None:
    """Why no backend can store `value` (PostgreSQL refuses U+0000; UTF-8 has no lone surrogates), or None."""
    if "\x00" in value:
        return "text must not contain NUL characters (U+0000)"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "text must be valid Unicode (no lone surrogates)"
    return None


def storable_text(value: str) -> str:
    """`value` itself, or ValueError naming the problem (a pydantic validator)."""
    problem = text_problem(value)
    if problem:
        raise ValueError(problem)
    return value


StorableText = Annotated[str, AfterValidator(storable_text)]


def json_too_deep(raw: bytes, *, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when JSON text nests arrays/objects deeper than `limit`; read from the bytes, before any parser recurses."""
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub(b'""', raw)):  # brackets inside strings do not nest
        depth += 1 if bracket in b"[{" else -1
        if depth > limit:
            return True
    return False
