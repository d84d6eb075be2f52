"""The inbound queue: what the ack appends is never lost, becomes its facts once, in arrival order, on both databases.

Invariants: an acknowledged event survives a crash before or during processing; a repeat (a platform's retry, two
processors at once) is one fact; facts are recorded in the order the events arrived; a bad event is set aside alone;
done rows go an hour after their facts exist. Real databases, the real app behind TestClient.
"""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app import ingest as ingest_module
from app import plugins
from app.api import ingress
from app.ingest import ingest
from app.main import create_app
from app.pipeline import tick
from fact import service as facts
from fact.models import Fact
from perception import inbound_queue
from perception import service as perception
from perception.ack_writer import AckWriter
from perception.inbound_queue import Arrived
from perception.models import InboundEvent, InboxEntry
from tests import event_loops
from tests.api.test_telegram_webhook import OK, build_ctx, update
from tests.integration.sql_statements import sent


class Crash(BaseException):
    """A process dying mid-transaction: nothing catches it, the transaction rolls back."""


def messages(ctx) -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.fact_type == "message_received").order_by(Fact.pk)))


def queued(ctx) -> list[InboundEvent]:
    with ctx.db.queue_read() as session:  # the queue's own database on SQLite, the service's on PostgreSQL
        return list(session.scalars(select(InboundEvent).order_by(InboundEvent.pk)))


def arrive(ctx, count: int, *, start: int = 1000) -> None:
    """Append `count` Telegram message updates straight to the queue, as the ack does."""
    events = [
        Arrived(
            "telegram",
            str(n),
            "event",
            json.dumps(update(n, text=f"/help {n}", user_id=2000 + n % 7)).encode(),
            ctx.clock.now(),
        )
        for n in range(start, start + count)
    ]
    with inbound_queue.writing(ctx.db) as session:
        inbound_queue.append(ctx.db, session, events=events)


@pytest.fixture
def tg_ctx(database_url, clock):
    context = build_ctx(database_url, clock)
    yield context
    context.close()


def test_an_acknowledged_event_survives_a_crash_before_processing_and_is_one_fact(tg_ctx, monkeypatch):
    monkeypatch.setattr(ingress, "wake_all", lambda ctx: None)  # the processor died before it was woken
    with TestClient(create_app(ctx=tg_ctx, run_migrations=False)) as client:
        first = client.post("/webhooks/telegram", json=update(900300, text="/help"), headers=OK)
        gauge = [line for line in client.get("/metrics").text.splitlines() if line.startswith("deputy_inbox_backlog ")]
    assert first.json() == {"ok": True, "recorded": True} and gauge == ["deputy_inbox_backlog 1.0"]  # it waits
    assert messages(tg_ctx) == [] and [row.done_at for row in queued(tg_ctx)] == [None]
    tick(tg_ctx)  # a processor starts again
    [fact] = messages(tg_ctx)
    assert fact.content["event_id"] == "900300" and fact.timestamp == tg_ctx.clock.now()
    with TestClient(create_app(ctx=tg_ctx, run_migrations=False)) as client:  # Telegram's retry, after the fact
        again = client.post("/webhooks/telegram", json=update(900300, text="/help"), headers=OK)
    tick(tg_ctx)
    assert again.json() == {"ok": True, "recorded": False} and len(messages(tg_ctx)) == 1


def test_a_crash_while_recording_leaves_every_event_pending_and_none_is_recorded_twice(tg_ctx, monkeypatch):
    arrive(tg_ctx, 20)
    real = perception.record_messages

    def dies(uow, *, arrived):
        real(uow, arrived=arrived)  # the facts are written … then the process dies before the commit
        raise Crash

    monkeypatch.setattr(ingest_module.perception, "record_messages", dies)
    with pytest.raises(Crash):
        ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx))
    assert messages(tg_ctx) == [] and all(row.done_at is None for row in queued(tg_ctx))
    monkeypatch.setattr(ingest_module.perception, "record_messages", real)
    assert ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx)) == 20
    assert ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx)) == 0
    assert [f.content["event_id"] for f in messages(tg_ctx)] == [str(n) for n in range(1000, 1020)]
    with tg_ctx.reader() as uow:
        assert len(list(uow.session.scalars(select(InboxEntry)))) == 20


def test_an_event_that_cannot_be_recorded_is_set_aside_alone_and_the_rest_are_recorded(tg_ctx, monkeypatch):
    arrive(tg_ctx, 5)
    real = perception.record_messages

    def refuses_one(uow, *, arrived):
        if any(message.event_id == "1002" for message, _ in arrived):
            raise ValueError("this one cannot be stored")
        return real(uow, arrived=arrived)

    monkeypatch.setattr(ingest_module.perception, "record_messages", refuses_one)
    assert ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx)) == 5
    assert [f.content["event_id"] for f in messages(tg_ctx)] == ["1000", "1001", "1003", "1004"]
    with tg_ctx.reader() as uow:
        [aside] = [
            f.content for f in uow.session.scalars(select(Fact)) if f.content.get("event") == "inbound_event_set_aside"
        ]
    assert aside["event_id"] == "1002" and "cannot be stored" in aside["reason"]
    assert all(row.done_at is not None for row in queued(tg_ctx))


def test_two_processors_ingesting_at_once_record_each_event_once_in_arrival_order(database_url, clock, monkeypatch):
    contexts = [build_ctx(database_url, clock) for _ in range(2)]
    real, handed = perception.record_messages, []

    def recording(uow, *, arrived):
        handed.extend(message.event_id for message, _ in arrived)
        return real(uow, arrived=arrived)

    monkeypatch.setattr(ingest_module.perception, "record_messages", recording)
    try:
        arrive(contexts[0], 300)
        start = threading.Barrier(2)

        def run(ctx) -> None:
            start.wait()
            while ingest(ctx, webhooks=plugins.webhooks(ctx), limit=40):
                pass

        threads = [threading.Thread(target=run, args=(ctx,)) for ctx in contexts]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        recorded = [f.content["event_id"] for f in messages(contexts[0])]
        assert recorded == [str(n) for n in range(1000, 1300)]  # each once, in the order they arrived
        assert sorted(handed) == sorted(recorded)  # and no event was taken by both (the ingest lock, a claim)
    finally:
        for ctx in contexts:
            ctx.close()


def test_done_events_are_deleted_an_hour_after_their_facts_exist(tg_ctx, clock):
    arrive(tg_ctx, 3)
    ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx))
    clock.advance(inbound_queue.KEEP_DONE - timedelta(seconds=1))
    tg_ctx.shared.pop("perception.purged", None)
    ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx))
    assert len(queued(tg_ctx)) == 3  # a retry within the hour still finds its row
    clock.advance(timedelta(seconds=2))
    tg_ctx.shared.pop("perception.purged", None)
    ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx))
    assert queued(tg_ctx) == [] and len(messages(tg_ctx)) == 3  # the fact log is the record now


def test_concurrent_acks_share_commits_and_each_event_is_new_to_exactly_one_delivery(tg_ctx):
    writer = AckWriter(tg_ctx.db)
    now = tg_ctx.clock.now()

    async def burst() -> list[bool]:
        events = [Arrived("telegram", str(n % 40), "event", b"{}", now) for n in range(80)]
        return await asyncio.gather(*(writer.append(event) for event in events))

    try:
        answers = event_loops.run(burst())
    finally:
        writer.close()
    # Each key is new to exactly one of its two deliveries (inside one batch the first; across two PostgreSQL
    # writers the database's unique key decides which).
    assert all(answers[n] + answers[n + 40] == 1 for n in range(40))
    assert writer.batches < 80 and len(queued(tg_ctx)) == 40


def test_an_ack_is_kept_while_the_processor_holds_a_long_write_transaction(tg_ctx):
    """On SQLite the queue is a database of its own: an append never waits on the service's one write lock."""
    held, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with tg_ctx.uow() as uow:
            facts.append(uow, fact_type="system", source="system", content={"event": "long"})
            held.set()
            release.wait(10)

    thread = threading.Thread(target=long_write)
    thread.start()
    writer = AckWriter(tg_ctx.db)
    try:
        assert held.wait(5)
        event = Arrived("telegram", "900400", "event", b"{}", tg_ctx.clock.now())
        assert event_loops.run(asyncio.wait_for(writer.append(event), timeout=3)) is True
    finally:
        release.set()
        thread.join(10)
        writer.close()
    assert [row.event_id for row in queued(tg_ctx)] == ["900400"]


def test_a_database_that_refuses_while_recording_sets_nothing_aside_and_every_event_waits(tg_ctx, monkeypatch):
    from sqlalchemy.exc import OperationalError

    arrive(tg_ctx, 3)
    real = perception.record_messages

    def refused(uow, *, arrived):
        raise OperationalError("INSERT", {}, Exception("database or disk is full"))

    monkeypatch.setattr(ingest_module.perception, "record_messages", refused)
    with pytest.raises(OperationalError):
        ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx))
    with tg_ctx.reader() as uow:
        assert [
            f for f in uow.session.scalars(select(Fact)) if f.content.get("event") == "inbound_event_set_aside"
        ] == []
    assert all(row.done_at is None for row in queued(tg_ctx))
    monkeypatch.setattr(ingest_module.perception, "record_messages", real)
    assert ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx)) == 3 and len(messages(tg_ctx)) == 3


def test_recording_takes_a_batch_with_the_update_that_marks_it_done(tg_ctx):
    arrive(tg_ctx, 3)
    with sent(tg_ctx, width=60) as statements:
        assert ingest(tg_ctx, webhooks=plugins.webhooks(tg_ctx)) == 3
    taking = [  # the pending read before and the purge after are not the taking
        s for s in statements if "inbound_events" in s and not s.startswith(("SELECT inbound_events.pk, ", "DELETE"))
    ]
    if tg_ctx.db.queue_apart:  # SQLite: the queue's own file, read under the writer lock, marked after the facts
        assert [s.split()[0] for s in taking] == ["SELECT", "UPDATE"]
    else:  # the same transaction as the facts: the update that marks them is the one that takes them
        assert [s.split()[0] for s in taking] == ["UPDATE"]
    assert all(row.done_at is not None for row in queued(tg_ctx)) and len(messages(tg_ctx)) == 3
