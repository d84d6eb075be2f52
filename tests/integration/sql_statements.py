"""Counting the SQL statements a piece of work sends (a count, not a timing: a read added to a hot path shows)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event

from kernel.context import AppContext


@contextmanager
def sent(ctx: AppContext, *, width: int = 100) -> Iterator[list[str]]:
    """The statements sent on the context's engines while the block runs, whitespace folded and
    cut at `width` characters."""
    seen: list[str] = []

    def count(_conn, _cursor, statement, *_):
        seen.append(" ".join(statement.split())[:width])

    engines = ctx.db.engines
    for engine in engines:
        event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", count)
