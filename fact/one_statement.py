"""PostgreSQL: one fact, its person refs and its search row in one statement (data-modifying CTEs).

A fact appended on its own cost three round trips there (the fact, its refs, its search row), each a wait on the
network while the transaction holds its locks; the processor appends several per signal and the action layer one
per action. Written as `WITH written AS (INSERT … RETURNING pk), refs AS (INSERT … SELECT pk …), searched AS
(INSERT … SELECT pk …) SELECT pk FROM written`: a keyed fact whose key is taken writes nothing at all (no row
comes out of `written`) and answers no pk, as the three statements did. SQLite has no data-modifying CTEs: it
keeps the three (`fact.service`).

A batch (`append_many`) is one statement the same way, its rows as arrays (`unnest … WITH ORDINALITY`, inserted in
order so their pks follow the batch): where the processor's ingest read the batch's keys first and then wrote the
facts, the refs and the search rows a statement each, it is one round trip, and a key already taken reads back
after it, only when one was.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from sqlalchemy import String, bindparam, func, insert, select, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.sql import Select

from fact.models import Fact, FactPersonRef, FactSearch
from kernel.db import UTCDateTime, dumps

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


_MANY = text(
    "WITH input AS (SELECT * FROM unnest(CAST(:fact_ids AS varchar[]), CAST(:types AS varchar[]),"
    " CAST(:sources AS varchar[]), CAST(:refs AS text[]), CAST(:contents AS text[]), CAST(:times AS timestamptz[]),"
    " CAST(:causes AS varchar[]), CAST(:keys AS varchar[])) WITH ORDINALITY"
    " AS i(fact_id, fact_type, source, person_refs, content, timestamp, causation_id, dedup_key, n)),"
    " written AS (INSERT INTO facts (fact_id, fact_type, source, person_refs, content, timestamp, causation_id,"
    " dedup_key) SELECT fact_id, fact_type, source, CAST(person_refs AS json), CAST(content AS jsonb), timestamp,"
    " causation_id, dedup_key FROM input ORDER BY n ON CONFLICT (dedup_key) DO NOTHING RETURNING pk, fact_id),"
    " refs AS (INSERT INTO fact_person_refs (fact_pk, person_id) SELECT written.pk, r.person_id"
    " FROM unnest(CAST(:ref_facts AS varchar[]), CAST(:ref_people AS varchar[])) AS r(fact_id, person_id)"
    " JOIN written ON written.fact_id = r.fact_id),"
    " searched AS (INSERT INTO fact_search (fact_pk, body) SELECT written.pk, s.body"
    " FROM unnest(CAST(:body_facts AS varchar[]), CAST(:bodies AS text[])) AS s(fact_id, body)"
    " JOIN written ON written.fact_id = s.fact_id)"
    " SELECT pk, fact_id FROM written"
)


_UTC = UTCDateTime()


def append_many(session: Any, rows: list[dict[str, Any]], *, bodies: dict[str, str]) -> dict[str, int]:
    """Insert fact rows (every column but pk; keys distinct), their refs and the search rows `bodies` (by fact id)
    in one statement; the pks of the rows written by fact id (a row whose key was taken is not written)."""
    dialect = session.get_bind().dialect
    params = {
        "fact_ids": [r["fact_id"] for r in rows],
        "types": [r["fact_type"] for r in rows],
        "sources": [r["source"] for r in rows],
        "refs": [dumps(r["person_refs"]) for r in rows],
        "contents": [dumps(r["content"]) for r in rows],
        "times": [_UTC.process_bind_param(r["timestamp"], dialect) for r in rows],
        "causes": [r["causation_id"] for r in rows],
        "keys": [r["dedup_key"] for r in rows],
        "ref_facts": [r["fact_id"] for r in rows for _ in r["person_refs"]],
        "ref_people": [p for r in rows for p in r["person_refs"]],
        "body_facts": list(bodies),
        "bodies": list(bodies.values()),
    }
    return {fact_id: pk for pk, fact_id in session.execute(_MANY, params)}
