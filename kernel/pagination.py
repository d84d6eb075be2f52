"""Opaque keyset cursors shared by every list endpoint."""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import and_, or_

from kernel.errors import Invalid
from kernel.limits import text_problem


class InvalidCursor(ValueError):
    """The cursor was not produced by this service."""


class Page(BaseModel):
    """`{"items": [...], "next_cursor": ...}`, newest first."""

    items: list[Any]
    next_cursor: str | None = None


def encode_cursor(key: Any) -> str:
    """Wrap a keyset position into an opaque token."""
    return base64.urlsafe_b64encode(json.dumps({"k": key}).encode()).decode().rstrip("=")


def decode_cursor(token: str) -> Any:
    """Unwrap a token from `encode_cursor`; raises InvalidCursor on anything else."""
    try:
        padded = token + "=" * (-len(token) % 4)
        return json.loads(base64.urlsafe_b64decode(padded.encode()).decode())["k"]
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidCursor("cursor is not valid") from exc


_MAX_PK = 2**63 - 1


def like_pattern(text: str, *, field: str = "q") -> str:
    """`%text%` with LIKE wildcards in `text` taken literally (use with escape="\\")."""
    if problem := text_problem(text):
        raise Invalid(f"{field}: {problem}", field=field)
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def key_position(cursor: str | None) -> int | None:
    """The key a `page_by_key` cursor continues below (None without a cursor); raises InvalidCursor."""
    if not cursor:
        return None
    position = decode_cursor(cursor)
    # A key is a positive BIGINT: anything else (bools, floats, out-of-range ints) was not issued here.
    if not isinstance(position, int) or isinstance(position, bool) or not 0 < position <= _MAX_PK:
        raise InvalidCursor("cursor is not valid")
    return position


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
    return page, encode_cursor(getattr(page[-1], attr or key.key)) if len(rows) > limit else None


def page_by_time(
    session: Any, stmt: Any, created: Any, ident: Any, *, limit: int, cursor: str | None, ident_pattern: str
) -> tuple[list[Any], str | None]:
    """Newest first by (creation time, id), for tables whose key is not an insertion counter."""
    if cursor:
        position = decode_cursor(cursor)
        if not (isinstance(position, list) and len(position) == 2 and all(isinstance(p, str) for p in position)):
            raise InvalidCursor("cursor is not valid")
        try:
            at = datetime.fromisoformat(position[0])
            # Issued cursors carry an offset and a valid id; anything else would reach the database.
            if at.tzinfo is None or not re.fullmatch(ident_pattern, position[1]):
                raise ValueError(position)
            at = at.astimezone(UTC)
        except (ValueError, OverflowError) as exc:
            raise InvalidCursor("cursor is not valid") from exc
        stmt = stmt.where(or_(created < at, and_(created == at, ident < position[1])))
    rows = list(session.scalars(stmt.order_by(created.desc(), ident.desc()).limit(limit + 1)))
    page = rows[:limit]
    last = page[-1] if page else None
    return page, encode_cursor([getattr(last, created.key).isoformat(), getattr(last, ident.key)]) if len(
        rows
    ) > limit else None
