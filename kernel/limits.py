"""What the service accepts (SPEC §8): instants in a sane range, text a database can store, JSON nested shallowly.

Pure rules with no I/O; app/api/guards.py applies them to every HTTP request, models and channels reuse them.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from typing import Annotated, Any

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


# The only characters some backend cannot store: PostgreSQL refuses U+0000 in text and jsonb, and a lone
# surrogate has no UTF-8 form (SQLite's driver and psycopg both fail to encode it). Every other control
# character (U+0001-U+001F, U+007F, U+0080-U+009F) is stored and read back unchanged by both databases
# (tests/integration/test_bad_bytes.py proves it), so it is kept: refusing a tab would refuse real messages.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def text_problem(value: str) -> str | None:
    """Why no backend can store `value` (PostgreSQL refuses U+0000; UTF-8 has no lone surrogates), or None."""
    if "\x00" in value:
        return "text must not contain NUL characters (U+0000)"
    if UNSTORABLE.search(value) is not None:
        return "text must be valid Unicode (no lone surrogates)"
    return None


def storable(value: str) -> str:
    """`value` with every unstorable character replaced by U+FFFD, for text kept as received (errors, raw output)."""
    return UNSTORABLE.sub(REPLACEMENT, value)


def storable_data(value: Any) -> Any:
    """A copy of JSON-like `value` with every string (keys too) made `storable`."""
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, dict):
        return {storable_data(k): storable_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [storable_data(v) for v in value]
    return value


def bad_text(document: Any) -> tuple[str, str] | None:
    """(dotted path, problem) of the first string in a JSON-like document, key or value, no backend can store."""
    pending: list[tuple[Any, tuple[str, ...]]] = [(document, ())]
    while pending:
        item, path = pending.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                problem = text_problem(key) if isinstance(key, str) else None
                if problem:
                    return ".".join(path) or "body", problem
                pending.append((value, (*path, str(key))))
        elif isinstance(item, (list, tuple)):
            pending.extend((value, (*path, str(i))) for i, value in reversed(list(enumerate(item))))
        elif isinstance(item, str) and (problem := text_problem(item)):
            return ".".join(path) or "body", problem
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
