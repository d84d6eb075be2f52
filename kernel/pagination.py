"""Keyset cursors shared by every list endpoint: plain positions in a documented form."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel
from sqlalchemy import and_, or_

from kernel.errors import Invalid
from kernel.limits import text_problem


class InvalidCursor(ValueError):
    """The cursor is not in the form the list documents (its OpenAPI `pattern`)."""


class Page(BaseModel):
    """`{"items": [...], "next_cursor": ...}`, newest first."""

    items: list[Any]
    next_cursor: str | None = None


# A cursor is a plain position, not a sealed token: every value of the documented form is a place in the list
# and yields a page (possibly empty), so a changed cursor only moves within rows the caller may already read.
# Empty means the first page. Key lists: the key to continue below. Time lists: microseconds since 1970 (UTC)
# and the id to continue below at that instant.
KEY_CURSOR = re.compile(r"[0-9]{0,19}")
TIME_CURSOR = re.compile(r"(?:([0-9]{1,16})_([a-z0-9_]{1,64}))?")
KEY_CURSOR_SCHEMA = {"anyOf": [{"type": "string", "pattern": f"^{KEY_CURSOR.pattern}$"}]}
TIME_CURSOR_SCHEMA = {"anyOf": [{"type": "string", "pattern": f"^{TIME_CURSOR.pattern}$"}]}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MAX_PK = 2**63 - 1


def like_pattern(text: str, *, field: str = "q") -> str:
    """`%text%` with LIKE wildcards in `text` taken literally (use with escape="\\")."""
    if problem := text_problem(text):
        raise Invalid(f"{field}: {problem}", field=field)
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def key_cursor(key: int) -> str:
    """The cursor continuing below `key`."""
    return str(key)


def key_position(cursor: str | None) -> int | None:
    """The key a key cursor continues below; None for the first page (no cursor, or one above every key)."""
    if cursor is not None and not KEY_CURSOR.fullmatch(cursor):
        raise InvalidCursor("cursor must be the next_cursor of a previous page (digits)")
    if not cursor:
        return None
    position = int(cursor)
    return position if position <= _MAX_PK else None  # above every BIGINT key: from the top


def time_cursor(at: datetime, ident: str) -> str:
    """The cursor continuing below (`at`, `ident`)."""
    return f"{(at - _EPOCH) // timedelta(microseconds=1)}_{ident}"


def time_position(cursor: str | None) -> tuple[datetime, str] | None:
    """The (instant, id) a time cursor continues below; None for the first page."""
    if cursor is None:
        return None
    if not (match := TIME_CURSOR.fullmatch(cursor)):
        raise InvalidCursor("cursor must be the next_cursor of a previous page (digits, _, an id)")
    if not cursor:
        return None
    micros, ident = match.groups()
    return _EPOCH + timedelta(microseconds=int(micros)), ident  # at most 16 digits: before the year 2287


def page_by_key(
    session: Any, stmt: Any, key: Any, *, limit: int, cursor: str | None, attr: str | None = None
) -> tuple[list[Any], str | None]:
    """Newest first by an increasing integer key (insertion order); stable while rows are added.

    `key` may be a joined index's column equal to the rows' own key (so the database walks that index in order);
    `attr` then names the rows' attribute holding the same value.
    """
    if (position := key_position(cursor)) is not None:
        stmt = stmt.where(key < position)
    rows = list(session.scalars(stmt.order_by(key.desc()).limit(limit + 1)))
    page = rows[:limit]
    return page, key_cursor(getattr(page[-1], attr or key.key)) if len(rows) > limit else None


def page_by_time(
    session: Any, stmt: Any, created: Any, ident: Any, *, limit: int, cursor: str | None
) -> tuple[list[Any], str | None]:
    """Newest first by (creation time, id), for tables whose key is not an insertion counter."""
    if (position := time_position(cursor)) is not None:
        at, below = position
        stmt = stmt.where(or_(created < at, and_(created == at, ident < below)))
    rows = list(session.scalars(stmt.order_by(created.desc(), ident.desc()).limit(limit + 1)))
    page = rows[:limit]
    last = page[-1] if len(rows) > limit else None
    return page, time_cursor(getattr(last, created.key), getattr(last, ident.key)) if last is not None else None
