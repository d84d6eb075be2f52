"""Counting the SQL statements a piece of work sends: every cursor execution on a database's engines.

An `executemany` (one batch of rows for one table) counts once, as the database sees one statement.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event


class StatementCounter:
    """Counts statements per first SQL keyword on a `kernel.db.Database`'s engines (the inbound queue's too)."""

    def __init__(self, db: Any) -> None:
        self.engines = db.engines  # the inbound queue's too
        self.total = 0
        self.by_verb: dict[str, int] = {}
        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        self.total += 1
        verb = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "?"
        self.by_verb[verb] = self.by_verb.get(verb, 0) + 1

    def reset(self) -> None:
        """Start counting again from zero."""
        self.total = 0
        self.by_verb = {}

    def close(self) -> None:
        """Stop listening."""
        for engine in self.engines:
            event.remove(engine, "before_cursor_execute", self._seen)

    def summary(self, per: int) -> str:
        """`N per unit (SELECT a, INSERT b, …)` over `per` units of work."""
        verbs = ", ".join(f"{v} {n / per:.1f}" for v, n in sorted(self.by_verb.items(), key=lambda kv: -kv[1]))
        return f"{self.total / max(per, 1):.1f} ({verbs})"


@contextmanager
def counting(db: Any) -> Iterator[StatementCounter]:
    """Count the statements sent to `db` inside the block."""
    counter = StatementCounter(db)
    try:
        yield counter
    finally:
        counter.close()
