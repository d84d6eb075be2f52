"""A batch of facts (`fact.service.append_many`) keeps every rule of `append`; on PostgreSQL it is one statement."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from sqlalchemy import func, select, text

from fact import service
from fact.models import Fact
from kernel.context import AppContext
from tests.integration.sql_statements import sent


def _new(n: int, *, key: str | None = None, refs: tuple[str, ...] = (), words: str = "") -> service.NewFact:
    content = {"n": n, **({"message": words} if words else {})}
    return service.NewFact("system", "system", content, person_refs=refs, dedup_key=key)


def _refs(ctx: AppContext) -> list[tuple[int, str]]:
    with ctx.db.engine.connect() as conn:
        return sorted(tuple(r) for r in conn.execute(text("SELECT fact_pk, person_id FROM fact_person_refs")))


def test_a_batch_skips_taken_keys_and_repeats_and_writes_refs_and_words_of_the_new_ones(ctx: AppContext):
    with ctx.uow() as uow:
        [(earlier, _)] = service.append_many(uow, facts=[_new(0, key="tg:event:1", refs=("p_old",))])
    batch = [
        _new(1, key="tg:event:2", refs=("p_a", "p_a", "p_b"), words="评审改到周五"),
        _new(2, key="tg:event:1", refs=("p_c",), words="taken before"),  # recorded by the earlier batch
        _new(3, refs=("p_c",)),
        _new(4, key="tg:event:2", refs=("p_d",), words="a repeat inside the batch"),
        _new(5, key="tg:event:3", words="no refs here"),
    ]
    with ctx.uow() as uow:
        out = service.append_many(uow, facts=batch)
    assert [created for _, created in out] == [True, False, True, False, True]
    assert out[1][0].fact_id == earlier.fact_id and out[1][0].content == {"n": 0}
    assert out[3][0].fact_id == out[0][0].fact_id and out[3][0].content["n"] == 1
    new = [fact for fact, created in out if created]
    assert [f.pk for f in new] == sorted(f.pk for f in new), "pks follow the batch's order"
    assert [f.person_refs for f in new] == [["p_a", "p_b"], ["p_c"], []]
    assert _refs(ctx) == sorted([(earlier.pk, "p_old"), (new[0].pk, "p_a"), (new[0].pk, "p_b"), (new[1].pk, "p_c")]), (
        "refs of the new facts only, each person once"
    )
    with ctx.reader() as uow:
        assert uow.session.scalar(select(func.count()).select_from(Fact)) == 4
        stored = {f.fact_id: f for f in uow.session.scalars(select(Fact))}
        worded, _ = service.list_(uow, filters=service.FactFilter(q="改到周五"))
        repeated, _ = service.list_(uow, filters=service.FactFilter(q="inside the batch"))
        unrefd, _ = service.list_(uow, filters=service.FactFilter(q="no refs here"))
    assert [f.fact_id for f in worded] == [new[0].fact_id] and repeated == [] and len(unrefd) == 1
    for fact in new:  # what the batch answered is what is stored
        assert (stored[fact.fact_id].pk, stored[fact.fact_id].content) == (fact.pk, fact.content)
        assert stored[fact.fact_id].timestamp == fact.timestamp


def test_a_batch_keeps_each_facts_own_time_in_utc(ctx: AppContext):
    at = datetime(2026, 3, 29, 1, 30, tzinfo=UTC)  # 03:30 in Berlin, half an hour after its clocks went forward
    local = at.astimezone(ZoneInfo("Europe/Berlin"))
    with ctx.uow() as uow:
        [(fact, _)] = service.append_many(
            uow, facts=[service.NewFact("system", "system", {"n": 1}, dedup_key="k:t", timestamp=local)]
        )
    with ctx.reader() as uow:
        assert service.get_by_dedup_key(uow, dedup_key="k:t").timestamp == at == fact.timestamp


def test_a_batch_of_new_facts_is_one_statement_on_postgres(ctx: AppContext):
    batch = [_new(n, key=f"tg:event:{n}", refs=("p_a",), words=f"word {n}") for n in range(5)]
    with sent(ctx, width=5000) as statements, ctx.uow() as uow:
        service.append_many(uow, facts=batch)
    facts_touching = [s for s in statements if "facts" in s or "fact_" in s]
    if ctx.db.is_sqlite:  # a read of the keys, then a statement per table
        assert facts_touching[0].startswith("SELECT facts.")
        assert len([s for s in facts_touching if s.startswith("INSERT INTO facts ")]) == 1
    else:  # no read first, nothing after: the facts, their refs and their words in one
        assert len(facts_touching) == 1 and facts_touching[0].startswith("WITH input AS ")
        assert "INSERT INTO fact_person_refs" in facts_touching[0] and "INSERT INTO fact_search" in facts_touching[0]


def test_a_batch_reads_back_only_when_a_key_was_taken(ctx: AppContext):
    with ctx.uow() as uow:
        service.append_many(uow, facts=[_new(0, key="k:0")])
    with sent(ctx) as statements, ctx.uow() as uow:
        out = service.append_many(uow, facts=[_new(1, key="k:0"), _new(2, key="k:1")])
    assert [created for _, created in out] == [False, True]
    reads = [s for s in statements if s.startswith("SELECT facts.")]
    assert len(reads) == 1, "one read of the taken keys (before the insert on SQLite, after it on PostgreSQL)"
