"""One owner per outbox entry: no drainer closes an entry whose send is in flight; pending is never a failure."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import redis
from sqlalchemy import select

from action.models import ActionRow
from app.pipeline import tick
from app.wiring import build_context
from channels.base import OutboundMessage, SendReceipt
from concern import flows, queue
from concern.models import Concern, OutboxEntry
from concern.outbox import drain as outbox
from fact import decisions
from fact.decisions import DecisionKind
from fact.models import Fact
from kernel.context import AppContext
from tests.conftest import make_settings, redis_url
from tests.fakes.memory_channel import MemoryChannel
from tests.integration.story_helpers import say

H = timedelta(hours=1)


class RacedChannel(MemoryChannel):
    """While a send is in flight, another replica drains the same outbox (a webhook task and a tick, two replicas)."""

    def __init__(self, name: str, other: AppContext, *, slow: timedelta | None = None) -> None:
        super().__init__(name)
        self.other = other
        self.slow = slow
        self.raced: list[int] = []

    def send(self, message: OutboundMessage) -> SendReceipt:
        if self.slow is not None:  # a send slower than the claim's lease: the other drainer may claim the entry
            self.other.clock.advance(self.slow)
        worker = threading.Thread(target=lambda: self.raced.append(outbox.drain(self.other)))
        worker.start()
        worker.join(30)
        return super().send(message)


def _other_replica(ctx: AppContext) -> AppContext:
    other = build_context(make_settings(ctx.settings.database_url), clock=ctx.clock)
    other.channels.register(MemoryChannel("feishu"))
    other.channels.register(MemoryChannel("telegram"))
    return other


def _concern(ctx: AppContext) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern)).one()


@pytest.mark.parametrize("slow", [None, outbox.LEASE + timedelta(seconds=5)], ids=["within_the_lease", "lease_ran_out"])
def test_a_second_drainer_leaves_alone_an_entry_whose_send_is_in_flight(ctx, team, slow):
    feishu, _ = team
    other = _other_replica(ctx)
    raced = RacedChannel("telegram", other, slow=slow)
    ctx.channels.register(raced)
    try:
        say(ctx, channel="feishu", user="ou_boss", text="问一下张三：提测什么时候能给？")
    finally:
        other.close()
    concern = _concern(ctx)
    # Within the lease the entry is invisible to the other drainer; after it, the other claims it, finds the
    # action pending under someone else and leaves the entry (and its result) to the owner.
    assert raced.raced == ([0] if slow is None else [1])
    assert concern.state == "waiting_reply" and concern.next_follow_up_at is not None and len(concern.message_refs) == 1
    assert feishu.texts_to("ou_boss") == ["已发给张三：提测什么时候能给？"]
    assert raced.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]
    with ctx.reader() as uow:
        assert [e.state for e in uow.session.scalars(select(OutboxEntry))] == ["done", "done"]
        changes = [
            f.content["change"]
            for f in uow.session.scalars(
                select(Fact).where(Fact.fact_type == "concern_changed").order_by(Fact.pk)  # PostgreSQL has no order
            )
        ]
    assert "undeliverable" not in changes and changes == ["raised", "question_sent"]


def test_an_escalation_that_went_out_is_never_recorded_as_failed_by_a_racing_drainer(ctx, clock, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P0 提测什么时候能给？")
    other = _other_replica(ctx)
    ctx.channels.register(RacedChannel("feishu", other))
    try:
        for _ in range(3):
            clock.advance(H)
            tick(ctx)
    finally:
        other.close()
    concern = _concern(ctx)
    assert concern.state == "escalated" and concern.escalated_to == "p_wangwu"
    with ctx.reader() as uow:
        changes = [
            f.content["change"] for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed"))
        ]
    assert "escalation_failed" not in changes and "escalated" in changes


def test_a_dead_drainers_claim_runs_out_and_the_entry_then_runs_once(ctx, clock, team):
    _, telegram = team
    with ctx.uow() as uow:
        decision_id = decisions.record(uow, kind=DecisionKind.raise_concern, rule="test", source="admin_api")
        flows.raise_(
            uow,
            originator_id="p_boss",
            target_person_id="p_zhangsan",
            question="提测什么时候能给？",
            priority="P1",
            decision_id=decision_id,
        )
    with ctx.uow() as uow:  # a drainer claims the question, then its process dies before sending
        assert queue.claim_many(uow, owner="dead:1:abc", lease=outbox.LEASE, limit=1) != []
    assert outbox.drain(ctx) == 0 and telegram.sent == []
    clock.advance(outbox.LEASE + timedelta(seconds=1))
    assert outbox.drain(ctx) >= 1 and telegram.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]
    assert outbox.drain(ctx) == 0 and len(telegram.sent) == 1


@pytest.mark.parametrize(
    "with_redis", [False, pytest.param(True, marks=pytest.mark.redis)], ids=["database_only", "redis"]
)
def test_two_replicas_asking_twenty_times_never_cancel_a_delivered_question(ctx, team, with_redis):
    feishu, telegram = team
    other = _other_replica(ctx)
    if with_redis:  # wake-ups and pacing over Redis; ownership stays in the database
        ctx.redis = other.redis = redis.Redis.from_url(redis_url())
    ctx.channels.register(RacedChannel("telegram", other))
    try:
        for n in range(20):
            say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_lisi 问题{n}")
    finally:
        other.close()
    with ctx.reader() as uow:
        states = [c.state for c in uow.session.scalars(select(Concern))]
        questions = list(uow.session.scalars(select(ActionRow).where(ActionRow.action_type == "send_message")))
    assert states.count("waiting_reply") == 5  # L2 lets five wait on one person; the rest are refused, not cancelled
    assert "cancelled" not in states and {q.result for q in questions if q.concern_id} == {"success"}
    refused = [q.result_detail["blocked_by"] for q in questions if not q.concern_id]
    assert refused == ["L2:person_concern_limit"] * 15  # each refusal recorded as the blocked question
    assert not any(t.startswith("没能") for t in feishu.texts_to("ou_boss"))


def test_a_notification_decided_just_before_a_crash_goes_out_once_after_the_claim_runs_out(
    ctx, clock, client, team, monkeypatch
):
    _, telegram = team

    def crash(*_, **__):
        raise RuntimeError("the process died right after the decision committed")

    monkeypatch.setattr(outbox, "run_owned", crash)
    assert (
        client.post("/v1/notifications", json={"target_person_id": "p_zhangsan", "text": "明早10点开会"}).status_code
        == 500
    )
    monkeypatch.undo()
    with ctx.reader() as uow:  # the decision and its queued action committed together: never one without the other
        [decision] = uow.session.scalars(select(Fact).where(Fact.fact_type == "decision")).all()
        [entry] = uow.session.scalars(select(OutboxEntry)).all()
    assert entry.request_key == f"{decision.content['decision_id']}:notify" and entry.state == "open"
    assert tick(ctx)["actions_drained"] == 0 and telegram.sent == []  # still owned by the request that died
    clock.advance(outbox.LEASE + timedelta(seconds=1))
    tick(ctx)
    tick(ctx)
    assert telegram.texts_to("tg_zs") == ["明早10点开会"]


def test_queueing_says_whether_the_entry_is_new_on_both_databases(ctx):
    from action.models import ActionRequest

    request = ActionRequest(
        action_type="notify", decision_ref="dec_20260318_001", target_person_id="p_x", text="hi", request_key="k:1"
    )
    with ctx.uow(actor="test") as uow:
        first = queue.enqueue(uow, request=request, purpose="reply")
        again = queue.enqueue(uow, request=request, purpose="reply")
    assert (first, again) == (True, False)
