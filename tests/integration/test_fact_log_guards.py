"""No SQL path rewrites a recorded fact: not REPLACE on SQLite, not the replica role on PostgreSQL (SPEC §3.2)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError

from fact import service
from fact.models import Fact
from kernel.context import AppContext

ON_SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
ON_POSTGRES = pytest.mark.parametrize(
    "database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
COLUMNS = "fact_id, fact_type, source, person_refs, content, timestamp, dedup_key"
ROW = "'{fact_id}', 'system', 'system', '[]', '{{\"text\": \"rewritten\"}}', '2026-03-18 02:00:00', '{dedup_key}'"


def _append(ctx: AppContext) -> Fact:
    with ctx.uow() as uow:
        fact, _ = service.append(
            uow,
            fact_type="system",
            source="system",
            content={"text": "original"},
            person_refs=["p_zhangsan"],
            dedup_key="ci:build-1",
        )
    return fact


def _log(ctx: AppContext) -> tuple[list[tuple], list[tuple]]:
    """Every fact row and every person ref, as stored."""
    with ctx.db.engine.connect() as conn:
        facts = [tuple(r) for r in conn.execute(text(f"SELECT pk, {COLUMNS} FROM facts ORDER BY pk"))]
        refs = [tuple(r) for r in conn.execute(text("SELECT fact_pk, person_id FROM fact_person_refs ORDER BY 1, 2"))]
    return facts, refs


def _colliding_rows(fact: Fact) -> list[str]:
    """Rows that collide with `fact` on each unique key in turn."""
    return [
        f"({fact.pk}, {ROW.format(fact_id='fact_new', dedup_key='ci:new')})",
        f"({fact.pk + 100}, {ROW.format(fact_id=fact.fact_id, dedup_key='ci:new')})",
        f"({fact.pk + 100}, {ROW.format(fact_id='fact_new', dedup_key=fact.dedup_key)})",
    ]


@ON_SQLITE
@pytest.mark.parametrize("verb", ["INSERT OR REPLACE INTO", "REPLACE INTO"])
def test_replace_cannot_rewrite_a_fact_on_any_unique_key(ctx: AppContext, verb: str):
    fact = _append(ctx)
    before = _log(ctx)
    for row in _colliding_rows(fact):
        with pytest.raises(IntegrityError, match="append-only"), ctx.db.engine.begin() as conn:
            conn.execute(text(f"{verb} facts (pk, {COLUMNS}) VALUES {row}"))
    assert _log(ctx) == before


@ON_SQLITE
@pytest.mark.parametrize("verb", ["INSERT OR REPLACE INTO", "REPLACE INTO", "INSERT OR IGNORE INTO"])
def test_an_insert_over_a_recorded_fact_person_ref_is_refused(ctx: AppContext, verb: str):
    fact = _append(ctx)
    before = _log(ctx)
    with pytest.raises(IntegrityError, match="append-only"), ctx.db.engine.begin() as conn:
        conn.execute(text(f"{verb} fact_person_refs (fact_pk, person_id) VALUES ({fact.pk}, 'p_zhangsan')"))
    assert _log(ctx) == before


@ON_SQLITE
def test_insert_or_ignore_over_a_fact_is_refused_and_changes_nothing(ctx: AppContext):
    fact = _append(ctx)
    before = _log(ctx)
    with pytest.raises(IntegrityError, match="append-only"), ctx.db.engine.begin() as conn:
        conn.execute(text(f"INSERT OR IGNORE INTO facts (pk, {COLUMNS}) VALUES {_colliding_rows(fact)[0]}"))
    assert _log(ctx) == before


@ON_SQLITE
def test_update_or_replace_is_refused_by_the_update_trigger(ctx: AppContext):
    fact = _append(ctx)
    before = _log(ctx)
    with pytest.raises(IntegrityError, match="append-only: UPDATE rejected"), ctx.db.engine.begin() as conn:
        conn.execute(text("UPDATE OR REPLACE facts SET content = '{}' WHERE pk = :pk"), {"pk": fact.pk})
    assert _log(ctx) == before


@pytest.mark.parametrize("action", ["DO NOTHING", "DO UPDATE SET content = excluded.content"])
def test_an_upsert_never_rewrites_a_fact(ctx: AppContext, action: str):
    fact = _append(ctx)
    before = _log(ctx)
    row = ROW.format(fact_id=fact.fact_id, dedup_key="ci:new")
    statement = f"INSERT INTO facts ({COLUMNS}) VALUES ({row}) ON CONFLICT (fact_id) {action}"
    refused = ctx.db.engine.dialect.name == "sqlite" or action.startswith("DO UPDATE")
    try:
        with ctx.db.engine.begin() as conn:
            conn.execute(text(statement))
    except DBAPIError as exc:
        assert refused and "append-only" in str(exc)
    else:
        assert not refused, "PostgreSQL ignores a DO NOTHING upsert; everything else must be refused"
    assert _log(ctx) == before


def test_a_plain_insert_of_a_recorded_dedup_key_raises_integrity_error(ctx: AppContext):
    """fact.service.append catches exactly this to return the fact a concurrent writer recorded first."""
    fact = _append(ctx)
    before = _log(ctx)
    row = ROW.format(fact_id="fact_new", dedup_key=fact.dedup_key)
    with pytest.raises(IntegrityError), ctx.db.engine.begin() as conn:
        conn.execute(text(f"INSERT INTO facts ({COLUMNS}) VALUES ({row})"))
    assert _log(ctx) == before


def test_appending_new_facts_and_deduplicating_still_work_behind_the_guards(ctx: AppContext):
    first = _append(ctx)
    again = _append(ctx)
    with ctx.uow() as uow:
        other, created = service.append(
            uow, fact_type="system", source="system", content={}, person_refs=["p_zhangsan"]
        )
    assert (again.fact_id, created) == (first.fact_id, True)
    facts, refs = _log(ctx)
    assert [f[1] for f in facts] == [first.fact_id, other.fact_id]
    assert refs == [(first.pk, "p_zhangsan"), (other.pk, "p_zhangsan")]


@ON_POSTGRES
@pytest.mark.parametrize(
    "statement",
    [
        'UPDATE facts SET content = \'{"text": "rewritten"}\'',
        "DELETE FROM facts",
        "TRUNCATE facts CASCADE",
        "UPDATE fact_person_refs SET person_id = 'p_someone_else'",
        "DELETE FROM fact_person_refs",
        "TRUNCATE fact_person_refs",
    ],
)
def test_the_replica_replication_role_does_not_bypass_the_append_only_triggers(ctx: AppContext, statement: str):
    _append(ctx)
    before = _log(ctx)
    with pytest.raises(DBAPIError, match="append-only"), ctx.db.engine.begin() as conn:
        assert conn.execute(text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).scalar_one()
        conn.execute(text("SET LOCAL session_replication_role = replica"))
        conn.execute(text(statement))
    assert _log(ctx) == before
