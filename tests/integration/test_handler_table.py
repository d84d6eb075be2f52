"""The command → effect table: each command on a waiting question, by whoever issues it, through the one handler
table — the outcome it answers with and the change it records on the loop (nothing, when it may not act)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from app.pipeline import tick
from concern import commands as c
from concern import handlers
from concern.outcomes import Done, Refused, Unchanged
from fact import decisions
from fact.models import Fact

# command (from the loop's id), who issues it → the outcome, its code, the loop's recorded changes.
TABLE = [
    (lambda cid: c.Snooze(cid, 7200), "p_zhangsan", Done, "snoozed", ["snoozed"]),
    (lambda cid: c.DeferToMorning(cid), "p_zhangsan", Done, "tomorrow", ["snoozed"]),
    (lambda cid: c.Acknowledge(cid), "p_zhangsan", Done, "acknowledged", ["acknowledged"]),
    (lambda cid: c.Resolve(cid, "明天下午"), "p_zhangsan", Done, "passed_on", ["resolved"]),
    (lambda cid: c.Cancel(cid), "p_boss", Done, "cancelled", ["cancelled"]),
    (lambda cid: c.Cancel(cid), "p_zhangsan", Unchanged, "cancel_not_yours", []),
    (lambda cid: c.Cancel("con_20990101_001"), "p_boss", Unchanged, "cancel_not_found", []),
    (lambda cid: c.NotMe(cid), "p_zhangsan", Done, "not_me", ["declined_by_target"]),
    (lambda cid: c.NotMe(cid), "p_boss", Unchanged, "nothing", []),
    (lambda cid: c.AskSomeoneElse(cid), "p_boss", Done, "reassign", []),
    (lambda cid: c.Reassign(cid, "p_lisi"), "p_boss", Done, "raised", ["cancelled"]),
    (lambda cid: c.Nudge(cid), "p_boss", Done, "nudged", []),
    (lambda cid: c.Nudge(cid), "p_lisi", Unchanged, "not_allowed", []),
    (lambda cid: c.TakeEscalation(cid), "p_zhangsan", Unchanged, "not_recipient", []),
    (lambda cid: c.Decide(cid, approve=True), "p_zhangsan", Unchanged, "nothing", []),  # not a decision request
    (lambda cid: c.Done(cid), "p_zhangsan", Unchanged, "nothing", []),  # neither a reminder nor a commitment
    (lambda cid: c.Extend(cid, 2), "p_zhangsan", Unchanged, "nothing", []),
]


def _changes(ctx, concern_id: str) -> list[str]:
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed").order_by(Fact.pk))
        return [f.content["change"] for f in rows if f.content["concern_id"] == concern_id]


def _carry_out(ctx, command, actor: str):
    with ctx.uow(actor="test") as uow:
        decision_id = decisions.record(uow, kind=command.KIND, rule="test", command=c.dump(command))
        origin = handlers.Origin(decision_id=decision_id, actor_id=actor, channel="telegram")
        return handlers.handle(uow, command, origin)


@pytest.mark.parametrize(
    ("make", "actor", "outcome_type", "code", "changes"),
    TABLE,
    ids=[f"{make('con').TYPE}-by-{actor}" for make, actor, *_ in TABLE],
)
def test_each_command_on_a_waiting_question_has_its_effect(ctx, team, make, actor, outcome_type, code, changes):
    asked = _carry_out(ctx, c.Ask("p_zhangsan", "提测什么时候能给？"), "p_boss")
    assert isinstance(asked, Done) and asked.code == "raised"
    tick(ctx)  # the question goes out: the loop waits for 张三
    before = _changes(ctx, asked.concern_id)
    outcome = _carry_out(ctx, make(asked.concern_id), actor)
    assert (type(outcome), outcome.code) == (outcome_type, code)
    assert _changes(ctx, asked.concern_id)[len(before) :] == changes


def test_an_ask_the_limits_refuse_is_refused_and_opens_nothing(ctx, team):
    ctx.settings.max_active_concerns_per_person = 1
    first = _carry_out(ctx, c.Ask("p_zhangsan", "第一件"), "p_boss")
    second = _carry_out(ctx, c.Ask("p_zhangsan", "第二件"), "p_boss")
    assert isinstance(first, Done) and isinstance(second, Refused)
    assert second.values == {"blocked_by": "L2:person_concern_limit", "target": "p_zhangsan"}
