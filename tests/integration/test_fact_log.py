"""The fact log is append-only, enforced by the database itself, and de-duplicates by key (SPEC §3.2)."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from fact import service
from fact.models import Fact, FactPersonRef
from kernel.context import AppContext
from tests.backends import ON_POSTGRES
from tests.integration.sql_statements import sent


def _append(ctx: AppContext, **overrides) -> Fact:
    values = {"fact_type": "system", "source": "system", "content": {"text": "hello"}, "person_refs": ["p_zhangsan"]}
    values.update(overrides)
    with ctx.uow() as uow:
        fact, created = service.append(uow, **values)
    assert created
    return fact


def _row(ctx: AppContext, fact_id: str) -> dict:
    with ctx.db.engine.connect() as conn:
        return dict(conn.execute(text("SELECT * FROM facts WHERE fact_id = :id"), {"id": fact_id}).mappings().one())


def _refs(ctx: AppContext) -> list[tuple]:
    with ctx.db.engine.connect() as conn:
        return sorted(tuple(r) for r in conn.execute(text("SELECT fact_pk, person_id FROM fact_person_refs")))


def _count_facts(ctx: AppContext) -> int:
    with ctx.reader() as uow:
        return uow.session.scalar(select(func.count()).select_from(Fact))


@pytest.mark.parametrize(
    "statement",
    [
        'UPDATE facts SET content = \'{"text": "rewritten"}\'',
        "UPDATE facts SET fact_type = 'decision', person_refs = '[]'",
        "DELETE FROM facts",
        "DELETE FROM facts WHERE fact_id = :id",
    ],
)
def test_update_and_delete_on_facts_are_rejected_by_the_database(ctx: AppContext, statement: str):
    fact = _append(ctx)
    before = _row(ctx, fact.fact_id)
    with pytest.raises(DBAPIError, match="append-only"), ctx.db.engine.begin() as conn:
        conn.execute(text(statement), {"id": fact.fact_id})
    assert _row(ctx, fact.fact_id) == before
    assert _count_facts(ctx) == 1


@pytest.mark.parametrize(
    "statement", ["UPDATE fact_person_refs SET person_id = 'p_someone_else'", "DELETE FROM fact_person_refs"]
)
def test_update_and_delete_on_fact_person_refs_are_rejected_by_the_database(ctx: AppContext, statement: str):
    fact = _append(ctx, person_refs=["p_zhangsan", "p_lisi"])
    before = _refs(ctx)
    assert before == sorted([(fact.pk, "p_lisi"), (fact.pk, "p_zhangsan")])
    with pytest.raises(DBAPIError, match="append-only"), ctx.db.engine.begin() as conn:
        conn.execute(text(statement))
    assert _refs(ctx) == before


@ON_POSTGRES
def test_truncate_on_facts_is_rejected_by_postgres(ctx: AppContext):
    fact = _append(ctx)
    with pytest.raises(DBAPIError, match="append-only"), ctx.db.engine.begin() as conn:
        conn.execute(text("TRUNCATE facts CASCADE"))
    assert _row(ctx, fact.fact_id)["fact_id"] == fact.fact_id


def test_fact_service_offers_append_and_query_only():
    public = {name for name in vars(service) if not name.startswith("_") and callable(getattr(service, name))}
    assert not {n for n in public if any(verb in n for verb in ("update", "delete", "remove", "edit", "set_"))}


def test_appended_fact_is_stored_with_all_its_fields(ctx: AppContext, clock):
    fact = _append(
        ctx,
        fact_type="decision",
        source="cognitive_core",
        content={"text": "提测了吗"},
        causation_id="fact_20260318_099",
    )
    with ctx.reader() as uow:
        stored = service.get(uow, fact_id=fact.fact_id)
    assert stored.fact_id == "fact_20260318_001"
    assert (stored.fact_type, stored.source, stored.causation_id) == ("decision", "cognitive_core", "fact_20260318_099")
    assert stored.content == {"text": "提测了吗"}
    assert stored.person_refs == ["p_zhangsan"]
    assert stored.timestamp == clock.now()


def test_append_with_the_same_dedup_key_returns_the_first_fact(ctx: AppContext):
    with ctx.uow() as uow:
        first, created_first = service.append(
            uow, fact_type="external_signal", source="perception", content={"n": 1}, dedup_key="ci:build-1"
        )
    with ctx.uow() as uow:
        again, created_again = service.append(
            uow, fact_type="external_signal", source="perception", content={"n": 2}, dedup_key="ci:build-1"
        )
    assert (created_first, created_again) == (True, False)
    assert again.fact_id == first.fact_id
    assert again.content == {"n": 1}
    assert _count_facts(ctx) == 1
    other = _append(ctx, dedup_key="ci:build-2")
    assert other.fact_id == "fact_20260318_002", "a de-duplicated append must not consume a sequence number"


@ON_POSTGRES  # SQLite serialises writers with BEGIN IMMEDIATE: the race only exists on PostgreSQL
def test_concurrent_appends_with_the_same_dedup_key_record_one_fact_on_postgres(ctx: AppContext):
    first_appended, release_first = threading.Event(), threading.Event()
    outcomes: dict[str, tuple[Fact, bool]] = {}
    errors: list[BaseException] = []

    def append_as(
        name: str,
        wait_before: threading.Event | None,
        signal_after: threading.Event | None,
        hold: threading.Event | None,
    ) -> None:
        try:
            if wait_before:
                assert wait_before.wait(30)
            with ctx.uow() as uow:
                outcomes[name] = service.append(
                    uow,
                    fact_type="external_signal",
                    source="perception",
                    content={"by": name},
                    dedup_key="feishu:msg-1",
                )
                if signal_after:
                    signal_after.set()
                if hold:
                    assert hold.wait(30)
        except BaseException as exc:  # surfaced in the main thread
            errors.append(exc)
            first_appended.set()

    a = threading.Thread(target=append_as, args=("a", None, first_appended, release_first))
    b = threading.Thread(target=append_as, args=("b", first_appended, None, None))
    a.start()
    b.start()
    # Release A only once B is blocked inside its own transaction, waiting for A's uncommitted work.
    _wait_for_a_blocked_backend(ctx)
    release_first.set()
    a.join(30)
    b.join(30)
    assert not errors, errors
    (fact_a, created_a), (fact_b, created_b) = outcomes["a"], outcomes["b"]
    assert (created_a, created_b) == (True, False)
    assert fact_b.fact_id == fact_a.fact_id
    assert _count_facts(ctx) == 1


def _wait_for_a_blocked_backend(ctx: AppContext) -> None:
    database = ctx.db.engine.url.database
    probe = create_engine(ctx.db.engine.url)
    query = text("SELECT count(*) FROM pg_stat_activity WHERE datname = :db AND wait_event_type = 'Lock'")
    try:
        deadline = time.monotonic() + 30
        with probe.connect() as conn:
            while conn.execute(query, {"db": database}).scalar() == 0:
                assert time.monotonic() < deadline, "the second writer never waited for the first"
                conn.rollback()
                time.sleep(0.02)
    finally:
        probe.dispose()


def test_person_refs_are_stored_and_queryable_per_person(ctx: AppContext):
    both = _append(ctx, person_refs=["p_zhangsan", "p_lisi", "p_zhangsan"])
    lisi_only = _append(ctx, person_refs=["p_lisi"])
    nobody = _append(ctx, person_refs=[])
    assert both.person_refs == ["p_zhangsan", "p_lisi"]
    with ctx.reader() as uow:
        lisi, _ = service.list_(uow, filters=service.FactFilter(person_id="p_lisi"))
        zhangsan, _ = service.list_(uow, filters=service.FactFilter(person_id="p_zhangsan"))
        nobody_rows, _ = service.list_(uow, filters=service.FactFilter(person_id="p_wangwu"))
        refs = uow.session.scalars(select(FactPersonRef.person_id).where(FactPersonRef.fact_pk == nobody.pk)).all()
    assert [f.fact_id for f in lisi] == [lisi_only.fact_id, both.fact_id]
    assert [f.fact_id for f in zhangsan] == [both.fact_id]
    assert nobody_rows == [] and refs == []


def test_a_keyed_append_is_one_insert_per_table_without_a_savepoint(ctx: AppContext):
    with sent(ctx, width=2000) as statements, ctx.uow() as uow:
        service.append(
            uow, fact_type="system", source="system", content={"message": "x"}, person_refs=["p_a"], dedup_key="k:1"
        )
    assert not [s for s in statements if s.upper().startswith(("SAVEPOINT", "RELEASE"))]
    if ctx.db.is_sqlite:
        assert len([s for s in statements if s.startswith("INSERT INTO facts ")]) == 1
        assert len([s for s in statements if s.startswith("INSERT INTO fact_person_refs ")]) == 1
    else:  # the fact, its ref and its search row: one statement
        [written] = [s for s in statements if "INSERT INTO facts " in s]
        assert written.startswith("WITH written AS (INSERT INTO facts ") and "INSERT INTO fact_person_refs" in written
        assert "INSERT INTO fact_search" in written
        assert not [s for s in statements if s.startswith("INSERT INTO fact")]


def test_every_fact_is_found_by_its_person_and_its_words_however_it_was_appended(ctx: AppContext):
    with ctx.uow() as uow:
        service.append(
            uow, fact_type="system", source="system", content={"message": "评审改到周五"}, person_refs=["p_a"]
        )
        service.append(uow, fact_type="system", source="system", content={"message": "no refs"}, dedup_key="k:2")
        service.append(uow, fact_type="system", source="system", content={}, person_refs=["p_a", "p_b"])
    with ctx.reader() as uow:
        by_a, _ = service.list_(uow, filters=service.FactFilter(person_id="p_a"))
        by_b, _ = service.list_(uow, filters=service.FactFilter(person_id="p_b"))
        worded, _ = service.list_(uow, filters=service.FactFilter(q="改到周五"))
        keyed, _ = service.list_(uow, filters=service.FactFilter(q="no refs"))
    assert [f.content for f in by_a] == [{}, {"message": "评审改到周五"}] and [f.content for f in by_b] == [{}]
    assert [f.content for f in worded] == [{"message": "评审改到周五"}]
    assert [f.content for f in keyed] == [{"message": "no refs"}]


def test_a_key_taken_between_the_read_and_the_insert_returns_the_fact_that_holds_it(ctx: AppContext, monkeypatch):
    first = _append(ctx, dedup_key="tg:update-9", content={"n": 1})
    real = service.get_by_dedup_key
    reads = iter([None])  # the first read misses, as when a concurrent writer commits right after it
    monkeypatch.setattr(
        service, "get_by_dedup_key", lambda uow, dedup_key: next(reads, None) or real(uow, dedup_key=dedup_key)
    )
    with ctx.uow() as uow:
        again, created = service.append(
            uow, fact_type="system", source="system", content={"n": 2}, person_refs=["p_b"], dedup_key="tg:update-9"
        )
    assert (created, again.fact_id, again.content) == (False, first.fact_id, {"n": 1})
    assert _count_facts(ctx) == 1
    assert [ref[1] for ref in _refs(ctx)] == ["p_zhangsan"], "the losing insert wrote no person refs"


def test_a_fresh_key_is_not_looked_up_first_and_a_taken_one_is_never_recorded_twice(ctx: AppContext):
    with sent(ctx) as statements, ctx.uow() as uow:
        first, created = service.append(
            uow, fact_type="system", source="system", content={"n": 1}, dedup_key="decision:dec_x", fresh_key=True
        )
    assert created
    assert not [s for s in statements if s.startswith("SELECT facts.")], "no read before the insert"
    # A caller wrong about its key being fresh: PostgreSQL's ON CONFLICT returns the recorded fact; SQLite's
    # append-only trigger refuses the insert before ON CONFLICT is considered. Either way one fact.
    try:
        with ctx.uow() as uow:
            again, created = service.append(
                uow, fact_type="system", source="system", content={"n": 2}, dedup_key="decision:dec_x", fresh_key=True
            )
        assert (created, again.fact_id, again.content) == (False, first.fact_id, {"n": 1})
    except IntegrityError:
        assert ctx.db.is_sqlite
    assert _count_facts(ctx) == 1
