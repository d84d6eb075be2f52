"""PostgreSQL: one fact, its person refs and its search row in one statement (data-modifying CTEs).

A fact appended on its own cost three round trips there (the fact, its refs, its search row), each a wait on the
network while the transaction holds its locks; the processor appends several per signal and the action layer one
per action. Written as `WITH written AS (INSERT … RETURNING pk), refs AS (INSERT … SELECT pk …), searched AS
(INSERT … SELECT pk …) SELECT pk FROM written`: a keyed fact whose key is taken writes nothing at all (no row
comes out of `written`) and answers no pk, as the three statements did. SQLite has no data-modifying CTEs: it
keeps the three (`fact.service`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import String, bindparam, func, insert, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql import Select

from fact.models import Fact, FactPersonRef, FactSearch

_COLUMNS = [c for c in Fact.__table__.columns if c.name != "pk"]


@cache
def statement(*, keyed: bool, refs: bool, text: bool) -> Select:
    """The statement for a fact with (or without) a dedup key, person refs and searchable text; built once each."""
    fact = postgresql.insert(Fact.__table__).values({c.name: bindparam(c.name, type_=c.type) for c in _COLUMNS})
    if keyed:
        fact = fact.on_conflict_do_nothing(index_elements=["dedup_key"])
    written = fact.returning(Fact.__table__.c.pk).cte("written")
    stmt = select(written.c.pk)
    if refs:
        people = func.unnest(bindparam("refs", type_=postgresql.ARRAY(String)))
        ref_rows = select(written.c.pk, people)
        stmt = stmt.add_cte(insert(FactPersonRef.__table__).from_select(["fact_pk", "person_id"], ref_rows).cte("refs"))
    if text:
        body = select(written.c.pk, bindparam("body", type_=String))
        stmt = stmt.add_cte(insert(FactSearch.__table__).from_select(["fact_pk", "body"], body).cte("searched"))
    return stmt


def append(session: Any, values: dict[str, Any], *, refs: list[str], body: str | None) -> int | None:
    """Insert the fact `values` (every column but pk) with its refs and search row; its pk, or None when its
    dedup key was taken (nothing written)."""
    stmt = statement(keyed=values["dedup_key"] is not None, refs=bool(refs), text=body is not None)
    return session.execute(stmt, {**values, "refs": refs, "body": body}).scalar_one_or_none()
