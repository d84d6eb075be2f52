"""The digest: P2/P3 backflows and listed notices wait for one message; P0/P1 never do (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from action.models import ActionRequest, ActionRow
from app import pipeline
from app.pipeline import tick
from app.wiring import build_context
from concern import queue
from concern.kinds import digest
from concern.models import OutboxEntry
from fact import decisions
from fact.decisions import DecisionKind
from fact.models import Fact
from person import service as persons
from person.models import InteractionPolicy, InteractionPolicyPatch
from tests.conftest import make_settings
from tests.integration.action_helpers import add_person
from tests.integration.story_helpers import say

H = timedelta(hours=1)


@pytest.fixture
def ctx(database_url, clock):
    """The context with `task_overdue` notices listed in DEPUTY_DIGEST_TYPES."""
    context = build_context(make_settings(database_url, digest_types="task_overdue, meeting_moved"), clock=clock)
    yield context
    context.close()


def _digest_on(ctx, person_id="p_boss", wait="2h"):
    with ctx.uow() as uow:
        patch = InteractionPolicyPatch(digest=True, digest_max_wait=wait)
        persons.patch_policy(uow, person_id=person_id, patch=patch)


def _answer(ctx, question, answer, prio="P2"):
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan {prio} {question}")
    say(ctx, channel="telegram", user="tg_zs", text=answer)


def _system(ctx, event):
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(Fact).where(Fact.fact_type == "system").order_by(Fact.pk))
        return [f.content for f in rows if f.content.get("event") == event]


def _notice(ctx, *, to, text, kind, prio="P2"):
    with ctx.uow(actor="test") as uow:
        decision_id = decisions.record(uow, kind=DecisionKind.direct_action, rule="test")
        request = ActionRequest(
            action_type="notify",
            decision_ref=decision_id,
            target_person_id=to,
            text=text,
            priority=prio,
            notification_type=kind,
            request_key=f"test:{text}",
        )
        queue.enqueue(uow, request=request, purpose="notice")
    tick(ctx)


def test_p2_backflows_wait_for_the_digest_and_go_out_together_after_max_wait(ctx, clock, team):
    feishu, _ = team
    _digest_on(ctx)
    before = len(feishu.texts_to("ou_boss"))
    _answer(ctx, "周报什么时候给？", "周五")
    _answer(ctx, "会议室订了吗？", "订好了")
    assert not any("周五" in t or "订好了" in t for t in feishu.texts_to("ou_boss")[before:])
    held = _system(ctx, "digest_held")
    assert len(held) == 2 and all(h["until"] == (clock.now() + 2 * H).isoformat() for h in held)
    clock.advance(2 * H)
    tick(ctx)
    tick(ctx)
    digests = [t for t in feishu.texts_to("ou_boss") if t.startswith("【摘要】")]
    assert len(digests) == 1
    assert digests[0].startswith("【摘要】2 条可以稍后看的消息：") and "周五" in digests[0] and "订好了" in digests[0]
    with ctx.reader() as uow:
        [action] = uow.session.scalars(select(ActionRow).where(ActionRow.notification_type == "digest")).all()
    assert action.result == "success" and action.solicited
    assert sorted(action.result_detail["items"]) == sorted(h["request_key"] for h in held)
    links = _system(ctx, "digest_delivered")
    assert sorted(link["request_key"] for link in links) == sorted(action.result_detail["items"])
    assert {link["action_id"] for link in links} == {action.action_id}


def test_p0_and_p1_never_wait_for_the_digest(ctx, clock, team):
    feishu, _ = team
    _digest_on(ctx)
    _answer(ctx, "合同今天能签吗？", "能签", prio="P1")
    _answer(ctx, "服务挂了吗？", "恢复了", prio="P0")
    assert any("能签" in t for t in feishu.texts_to("ou_boss"))
    assert any("恢复了" in t for t in feishu.texts_to("ou_boss"))
    assert _system(ctx, "digest_held") == []


def test_without_digest_in_the_policy_nothing_waits(ctx, clock, team):
    feishu, _ = team
    _answer(ctx, "周报什么时候给？", "周五")
    assert any("周五" in t for t in feishu.texts_to("ou_boss"))
    assert _system(ctx, "digest_held") == []


def test_listed_notices_wait_and_others_do_not(ctx, clock, team):
    feishu, _ = team
    _digest_on(ctx)
    _notice(ctx, to="p_boss", text="任务逾期：季度预算", kind="task_overdue")
    _notice(ctx, to="p_boss", text="任务逾期：紧急", kind="task_overdue", prio="P1")
    _notice(ctx, to="p_boss", text="系统公告", kind="announcement")
    texts = feishu.texts_to("ou_boss")
    assert "任务逾期：紧急" in texts and "系统公告" in texts and "任务逾期：季度预算" not in texts
    clock.advance(2 * H)
    tick(ctx)
    assert any(t.startswith("【摘要】1 条") and "任务逾期：季度预算" in t for t in feishu.texts_to("ou_boss"))


def test_a_principals_digest_goes_out_at_the_next_brief_when_that_comes_first(ctx, clock, team):
    feishu, _ = team
    _digest_on(ctx, wait="24h")
    _answer(ctx, "周报什么时候给？", "周五")
    [held] = _system(ctx, "digest_held")
    assert datetime.fromisoformat(held["until"]) == datetime.fromisoformat("2026-03-19T09:00:00+08:00")
    clock.set(datetime.fromisoformat("2026-03-19T09:00:00+08:00"))
    tick(ctx)
    assert any(t.startswith("【摘要】1 条") for t in feishu.texts_to("ou_boss"))


def test_a_digest_due_in_quiet_hours_waits_for_their_end(ctx, clock, team):
    feishu, _ = team
    with ctx.uow() as uow:
        quiet = [{"start": "13:00", "end": "15:00"}]
        persons.patch_policy(uow, person_id="p_boss", patch=InteractionPolicyPatch(quiet_hours=quiet))
    _digest_on(ctx, wait="1h")
    _answer(ctx, "周报什么时候给？", "周五")
    clock.advance(2 * H)  # 14:00, quiet
    tick(ctx)
    assert not any(t.startswith("【摘要】") for t in feishu.texts_to("ou_boss"))
    clock.advance(H)
    tick(ctx)
    assert len([t for t in feishu.texts_to("ou_boss") if t.startswith("【摘要】")]) == 1


def test_digest_moment_rules():
    policy = InteractionPolicy(digest=True, digest_max_wait="4h", daily_brief_at="09:00")
    tz = ZoneInfo("America/New_York")
    now = datetime.fromisoformat("2026-11-01T12:30:00+00:00")  # 07:30 EST, the morning DST ended
    assert digest.due_at(policy, tz, now, principal=True) == datetime.fromisoformat("2026-11-01T14:00:00+00:00")
    assert digest.due_at(policy, tz, now, principal=False) == now + 4 * H
    assert not digest.digestible(
        ActionRequest(action_type="backflow", decision_ref="dec_20260318_001", target_person_id="p", text="x",
                      priority="P1"), []
    )  # fmt: skip


def test_the_held_entry_is_not_run_twice(ctx, clock, team):
    _digest_on(ctx)
    _answer(ctx, "周报什么时候给？", "周五")
    clock.advance(2 * H)
    tick(ctx)
    tick(ctx)
    with ctx.reader() as uow:
        states = [e.state for e in uow.session.scalars(select(OutboxEntry).where(OutboxEntry.purpose == "backflow"))]
    assert states == ["digested"]


def test_a_morning_of_many_digests_is_spread_over_passes(ctx, clock, team):
    people = [f"p_member{n}" for n in range(pipeline.DIGESTS_PER_PASS + 2)]
    for person_id in people:
        add_person(ctx, person_id, bindings=[{"channel": "feishu", "external_user_id": f"ou_{person_id}"}])
        _digest_on(ctx, person_id)
        _notice(ctx, to=person_id, text=f"{person_id} 的任务逾期了", kind="task_overdue")
    clock.advance(2 * H)
    first = tick(ctx)
    assert len(_digests(ctx)) == pipeline.DIGESTS_PER_PASS and first["chores_left"] == 1 and first["more"] == 1
    while tick(ctx)["more"]:
        pass
    assert sorted(d.person_refs[0] for d in _digests(ctx)) == people  # each person's, once


def _digests(ctx) -> list[Fact]:
    with ctx.reader() as uow:
        decisions_ = uow.session.scalars(select(Fact).where(Fact.fact_type == "decision").order_by(Fact.pk))
        return [d for d in decisions_ if d.content.get("rule") == "digest"]
