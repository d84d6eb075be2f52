"""The inbox takes a batch of signals with their facts in one statement, on both databases, and every signal of the
batch is processed as if it had been read on its own."""

from __future__ import annotations

from sqlalchemy import select

from cognitive_core.inbox import process_pending
from fact.models import Fact
from perception.models import InboxEntry
from tests.integration.action_helpers import add_memory_channels, add_person
from tests.integration.concern_fixtures import NOON
from tests.integration.sql_statements import sent
from tests.integration.story_helpers import say


def test_a_batch_of_signals_is_taken_with_its_facts_in_one_statement(ctx, clock):
    clock.set(NOON)
    _, telegram = add_memory_channels(ctx)
    for i in range(3):
        add_person(ctx, f"p_boss{i}", display_name=f"Boss {i}", role="principal", locale="en")
        say(ctx, channel="telegram", user=f"tg_p_boss{i}", text="/help", process=False)
    with sent(ctx, width=2000) as statements:
        assert process_pending(ctx, limit=10) == 3
    taking = [s for s in statements if s.startswith("SELECT signal_inbox.fact_pk, signal_inbox.fact_id")]
    assert len(taking) == 1 and "JOIN facts ON facts.pk = signal_inbox.fact_pk" in taking[0]
    assert not [s for s in statements if s.startswith("SELECT facts.") and "facts.fact_id IN" in s], "no second read"
    with ctx.reader() as uow:
        assert {e.state for e in uow.session.scalars(select(InboxEntry))} == {"done"}
        decided = uow.session.scalars(select(Fact).where(Fact.fact_type == "decision")).all()
    assert len(decided) == 3 and {d.causation_id for d in decided} == {e.fact_id for e in _entries(ctx)}, (
        "each signal decided once, about its own fact"
    )


def _entries(ctx) -> list[InboxEntry]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(InboxEntry)))
