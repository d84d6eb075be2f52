"""Concurrent inbound messages share one write transaction; each request is answered once its message is durable."""

from __future__ import annotations

import threading
import time

from sqlalchemy import func, select

from channels.inbound import InboundMessage
from fact.models import Fact
from perception import service as perception
from perception.models import InboxEntry

N = 12


def _message(ctx, n: int, event: str | None = None) -> InboundMessage:
    return InboundMessage(
        channel="telegram",
        event_id=event or f"evt_{n}",
        message_id=f"m_{n}",
        chat_id=f"c_{n}",
        chat_type="p2p",
        external_user_id=f"u_{n}",
        text=f"hello {n}",
        occurred_at=ctx.clock.now(),
    )


def _record_all(ctx, messages, monkeypatch, *, hold_first: bool = True):
    """Record from one thread each; the first write waits until every other message is queued behind it."""
    group = perception._messages(ctx)
    real, release, calls = perception._record_in, threading.Event(), []

    def held(uow, message):
        calls.append(message.event_id)
        if hold_first and len(calls) == 1:
            assert release.wait(30)
        return real(uow, message)

    monkeypatch.setattr(group, "_write", held)
    outcomes: dict[int, object] = {}

    def record(i: int) -> None:
        try:
            outcomes[i] = perception.record_message(ctx, message=messages[i])
        except Exception as exc:
            outcomes[i] = exc

    threads = [threading.Thread(target=record, args=(i,), daemon=True) for i in range(len(messages))]
    threads[0].start()
    while not calls:
        time.sleep(0.001)
    for t in threads[1:]:
        t.start()
    deadline = time.monotonic() + 30
    while len(group._queue) < len(messages) - 1 and time.monotonic() < deadline:
        time.sleep(0.001)
    release.set()
    for t in threads:
        t.join(30)
    return outcomes, group


def _counts(ctx) -> tuple[int, int]:
    with ctx.reader() as uow:
        facts = uow.session.scalar(select(func.count()).select_from(Fact).where(Fact.fact_type == "message_received"))
        inbox = uow.session.scalar(select(func.count()).select_from(InboxEntry))
    return facts, inbox


def test_concurrent_messages_are_recorded_once_each_in_two_commits(ctx, monkeypatch):
    messages = [_message(ctx, n) for n in range(N)]
    outcomes, group = _record_all(ctx, messages, monkeypatch)
    assert all(outcomes[i][1] is True for i in range(N))  # every caller: recorded, by them
    assert len({outcomes[i][0].fact_id for i in range(N)}) == N
    assert _counts(ctx) == (N, N)
    assert group.batches == 2  # the held first one, then everyone who queued behind it in one transaction


def test_the_same_event_twice_in_one_batch_is_one_fact(ctx, monkeypatch):
    messages = [_message(ctx, 0), _message(ctx, 1), _message(ctx, 1)]
    outcomes, _ = _record_all(ctx, messages, monkeypatch)
    assert sorted(outcomes[i][1] for i in (1, 2)) == [False, True]
    assert outcomes[1][0].fact_id == outcomes[2][0].fact_id
    assert _counts(ctx) == (2, 2)


def test_a_message_that_cannot_be_recorded_fails_only_its_own_request(ctx, monkeypatch):
    messages = [_message(ctx, n) for n in range(N)]
    real = perception._record_in

    def broken(uow, message):
        if message.event_id == "evt_5":
            raise RuntimeError("cannot record")
        return real(uow, message)

    monkeypatch.setattr(perception, "_record_in", broken)
    outcomes, group = _record_all(ctx, messages, monkeypatch)
    assert isinstance(outcomes[5], RuntimeError)
    assert all(outcomes[i][1] is True for i in range(N) if i != 5)
    assert _counts(ctx) == (N - 1, N - 1)  # the failed batch left nothing behind; its others were recorded alone


def test_a_lone_message_is_written_at_once(ctx):
    fact, created = perception.record_message(ctx, message=_message(ctx, 0))
    assert created and perception._messages(ctx).batches == 1 and _counts(ctx) == (1, 1)
