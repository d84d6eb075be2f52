"""The outbox is claimed a few entries per transaction: oldest first, one owner each, the unrun rest given back
when the process stops, and what the batch's sends queue still goes out in the same drain."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

from sqlalchemy import select

from channels.base import OutboundMessage, SendReceipt
from concern import queue
from concern.models import OutboxEntry
from concern.outbox import drain as outbox
from tests.backends import ON_POSTGRES
from tests.fakes.memory_channel import MemoryChannel
from tests.integration.action_helpers import notify
from tests.integration.concern_fixtures import ask
from tests.integration.sql_statements import sent

ASKED = {"p_zhangsan": "提测什么时候能给？", "p_lisi": "周报写完了吗？", "p_wangwu": "评审约在几点？"}


def _ask(ctx, target: str, question: str | None = None) -> None:
    ask(ctx, target, question or ASKED[target])


def _entries(ctx) -> list[OutboxEntry]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(OutboxEntry).order_by(OutboxEntry.id)))


def test_a_claim_takes_the_oldest_entries_and_another_drainer_the_rest(ctx, clock, team):
    for target in ASKED:
        _ask(ctx, target)
    with ctx.uow() as uow:
        first = queue.claim_many(uow, owner="a", lease=outbox.LEASE, limit=2)
    with ctx.uow() as uow:
        second = queue.claim_many(uow, owner="b", lease=outbox.LEASE, limit=5)
    stored = _entries(ctx)
    assert [e.id for e in first] == [e.id for e in stored[:2]] and [e.id for e in second] == [stored[2].id]
    assert [e.claimed_by for e in stored] == ["a", "a", "b"]
    assert {e.available_at for e in stored} == {clock.now() + outbox.LEASE}
    with ctx.uow() as uow:
        assert queue.claim_many(uow, owner="c", lease=outbox.LEASE, limit=5) == []


def test_a_claim_goes_by_the_time_an_entry_is_available_then_by_age(ctx, clock, team):
    for target in ASKED:
        _ask(ctx, target)
    oldest, middle, newest = _entries(ctx)
    with ctx.uow() as uow:  # the oldest was deferred to a later slot; the newest to one before the middle's
        queue.release(uow, entry_id=oldest.id, available_at=clock.now() - timedelta(seconds=1))
        queue.release(uow, entry_id=newest.id, available_at=clock.now() - timedelta(seconds=3))
        queue.release(uow, entry_id=middle.id, available_at=clock.now() - timedelta(seconds=3))
    with sent(ctx) as statements, ctx.uow() as uow:
        claimed = queue.claim_many(uow, owner="a", lease=outbox.LEASE, limit=5)
    assert [e.id for e in claimed] == [middle.id, newest.id, oldest.id]
    assert {(e.claimed_by, e.available_at) for e in claimed} == {("a", clock.now() + outbox.LEASE)}
    touching = [s for s in statements if "action_outbox" in s]
    assert len(touching) == (2 if ctx.db.is_sqlite else 1), touching  # PostgreSQL: chosen and claimed in one


@ON_POSTGRES  # SQLite has one writer at a time: a second claim comes after the first commits
def test_a_claim_skips_what_an_open_claim_holds_without_waiting_for_it(ctx, clock, team):
    for target in ASKED:
        _ask(ctx, target)
    with ctx.uow() as holding:
        first = queue.claim_many(holding, owner="a", lease=outbox.LEASE, limit=2)
        done = []
        other = threading.Thread(target=lambda: done.append(_claim_in_own_transaction(ctx, "b")))
        other.start()
        other.join(10)
        assert not other.is_alive(), "the second claim waited for the first"
    stored = _entries(ctx)
    assert [e.id for e in first] == [e.id for e in stored[:2]] and done == [[stored[2].id]]


def _claim_in_own_transaction(ctx, owner: str) -> list[int]:
    with ctx.uow() as uow:
        return [e.id for e in queue.claim_many(uow, owner=owner, lease=outbox.LEASE, limit=5)]


class _StopsAfterOne(MemoryChannel):
    """The process is told to stop while its first send is in flight."""

    def __init__(self, name: str, ctx) -> None:
        super().__init__(name)
        self.ctx = ctx

    def send(self, message: OutboundMessage) -> SendReceipt:
        if not self.sent:
            self.ctx.stopping.set()
        return super().send(message)


def test_a_stopping_drainer_gives_back_what_it_claimed_and_did_not_run(ctx, clock, team):
    stopping = _StopsAfterOne("telegram", ctx)
    ctx.channels.register(stopping)
    _ask(ctx, "p_zhangsan")  # the send during which the stop comes
    _ask(ctx, "p_zhangsan", "评审约在几点？")  # to the same person: after the first, so claimed and not run
    assert outbox.drain(ctx) == 1
    assert len(stopping.sent) == 1
    [given_back] = [e for e in _entries(ctx) if e.request_key.startswith("con_20260318_002")]
    assert (given_back.state, given_back.claimed_by, given_back.available_at) == ("open", None, clock.now())
    ctx.stopping.clear()
    assert outbox.drain(ctx) == 3  # the question it gave back, and both acknowledgements to the asker
    assert stopping.texts_to("tg_zs")[1:] == ["老板想了解：评审约在几点？"]


def test_a_stopping_drainer_leaves_an_entry_held_for_its_persons_return_held(ctx, clock, client, team):
    stopping = _StopsAfterOne("telegram", ctx)
    ctx.channels.register(stopping)
    _ask(ctx, "p_zhangsan")  # the send during which the stop comes
    with ctx.uow() as uow:  # a notification to 李四, claimed in the same batch and held there: she is on leave
        request = notify("p_lisi", notification_type="meeting", request_key="ops:meeting:1")
        queue.enqueue(uow, request=request, purpose=queue.Purpose.notification)
    back = "2026-03-19T09:00:00+08:00"
    state = {"status": "on_leave", "until": back}
    assert client.patch("/v1/persons/p_lisi", json={"work_state": state}).status_code == 200
    assert outbox.drain(ctx) == 2  # the question sent, the notification held
    [held] = [e for e in _entries(ctx) if e.purpose == "notification"]
    assert (held.state, held.claimed_by) == ("open", None)
    assert held.available_at == datetime.fromisoformat(back)  # still her return, not given back for now


class _QueuesAnother(MemoryChannel):
    """Its first send queues another entry, as a result's follow-up does."""

    def __init__(self, name: str, ctx) -> None:
        super().__init__(name)
        self.ctx = ctx

    def send(self, message: OutboundMessage) -> SendReceipt:
        if not self.sent:
            _ask(self.ctx, "p_lisi")
        return super().send(message)


def test_what_a_batch_queued_goes_out_in_the_same_drain(ctx, clock, team):
    queuing = _QueuesAnother("telegram", ctx)
    ctx.channels.register(queuing)
    _ask(ctx, "p_zhangsan")  # a batch of one: fewer than a claim takes, yet its send queued one more
    assert outbox.drain(ctx) == 4  # both questions and both acknowledgements to the asker
    assert [m.message.chat_id for m in queuing.sent] == ["tg_zs", "tg_ls"]
