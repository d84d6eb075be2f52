"""Wake-ups: a signal recorded by one replica wakes every replica's processor (PostgreSQL's NOTIFY), sent only by a
transaction that commits; a pass that stops at its limit is followed by another; wake-ups coalesce."""

import threading
import time

import pytest
from sqlalchemy import text

from app.pipeline import Processor
from app.wiring import build_context
from channels.inbound import InboundMessage
from kernel import wakeups
from perception import service
from perception.ack_writer import AckWriter
from perception.inbound_queue import Arrived
from tests import event_loops
from tests.backends import ON_POSTGRES, ON_SQLITE
from tests.conftest import make_settings


def _wait_for(condition, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# One processor per SQLite database, on its host: its wake-up is the local socket (test_processes); across
# replicas, PostgreSQL's NOTIFY.
only_postgres, only_sqlite = ON_POSTGRES, ON_SQLITE


class Counted:
    """A listener that counts the wake-ups it hears."""

    def __init__(self, ctx) -> None:
        self.count, self._lock = 0, threading.Lock()
        self.listener = wakeups.Listener(ctx.db, self.heard).start()
        _wait_for(self.listener.listening.is_set, "the listener to LISTEN")

    def heard(self) -> None:
        with self._lock:
            self.count += 1


@only_postgres
def test_a_signal_recorded_elsewhere_is_processed_by_a_sleeping_replica(ctx, clock, team):
    _, telegram = team
    sleeper = build_context(
        make_settings(ctx.settings.database_url, scheduler_interval="1h"), clock=clock, channels=ctx.channels
    )
    recorder = build_context(make_settings(ctx.settings.database_url), clock=clock)
    thread = Processor(sleeper, threaded=True)
    thread.start()
    try:
        _wait_for(thread._listener.listening.is_set, "the replica to listen")
        message = InboundMessage(
            channel="feishu",
            event_id=f"wake-{time.time_ns()}",
            message_id="m",
            chat_id="c",
            chat_type="p2p",
            external_user_id="ou_boss",
            text="/ask @p_zhangsan 提测什么时候能给？",
            occurred_at=clock.now(),
        )
        service.record_message(recorder, message=message)  # recorded, but this replica never processes it
        _wait_for(lambda: len(telegram.texts_to("tg_zs")) == 1, "the sleeping replica to send the question")
    finally:
        thread.stop()
        sleeper.close()
        recorder.close()


def _appended(writer: AckWriter, event: Arrived) -> bool:
    return event_loops.run(writer.append(event))


@only_postgres
def test_a_webhook_batch_wakes_every_replica_once_it_commits_and_a_repeat_wakes_nobody(ctx):
    heard, writer = Counted(ctx), AckWriter(ctx.db)
    event = Arrived("telegram", f"wake-{time.time_ns()}", "event", b'{"update_id": 1}', received_at=ctx.clock.now())
    try:
        assert _appended(writer, event) is True
        _wait_for(lambda: heard.count == 1, "the batch's NOTIFY")
        assert _appended(writer, event) is False  # a repeat appends nothing
        with pytest.raises(RuntimeError), ctx.db.write() as session:  # notified, then rolled back
            wakeups.notify(session)
            raise RuntimeError("rolled back")
        wakeups.wake(ctx)  # a marker: notifications arrive in commit order, so nothing is still on its way after it
        _wait_for(lambda: heard.count >= 2, "the marker")
        assert heard.count == 2
    finally:
        writer.close()
        heard.listener.stop()


@only_postgres
def test_the_listener_listens_again_after_its_connection_is_cut(ctx, monkeypatch):
    monkeypatch.setattr(wakeups, "RETRY_AFTER", 0.1)
    heard = Counted(ctx)
    try:
        with ctx.db.engine.connect() as conn:
            mine = "datname = current_database() AND pid <> pg_backend_pid()"  # not another test's database
            listening = f"SELECT pid FROM pg_stat_activity WHERE query = :q AND {mine}"
            cut = conn.execute(
                text(f"SELECT pg_terminate_backend(pid) FROM ({listening}) AS found"),
                {"q": f"LISTEN {wakeups.WAKE_CHANNEL}"},
            ).all()
            conn.commit()
        assert cut  # the listener's connection was found and ended
        _wait_for(lambda: not heard.listener.listening.is_set() or heard.count, "the cut to be seen", timeout=5)
        _wait_for(heard.listener.listening.is_set, "the listener to LISTEN again")
        wakeups.wake(ctx)
        _wait_for(lambda: heard.count == 1, "a wake-up on the new connection")
    finally:
        heard.listener.stop()


@only_sqlite
def test_on_sqlite_no_processor_listens_beyond_its_host(ctx):
    assert Processor(ctx, threaded=True)._listener is None
    wakeups.wake(ctx)  # nothing to reach, nothing raised


def test_a_pass_that_stops_at_its_limit_is_followed_by_another_at_once(ctx, clock, team, monkeypatch):
    from app import pipeline

    monkeypatch.setattr(pipeline, "SIGNALS_PER_PASS", 3)  # a burst larger than one pass takes
    worker = build_context(make_settings(ctx.settings.database_url, scheduler_interval="1h"), clock=clock)
    for n in range(8):  # recorded without waking anyone: eight signals wait in the inbox
        message = InboundMessage(
            channel="feishu",
            event_id=f"burst-{n}-{time.time_ns()}",
            message_id=f"m{n}",
            chat_id="c",
            chat_type="p2p",
            external_user_id="ou_stranger",
            text="hello?",
            occurred_at=clock.now(),
        )
        service.record_message(worker, message=message)
    processor = Processor(worker, threaded=True)
    processor.start()
    try:
        processor.wake()  # one wake-up; the interval is an hour away
        _wait_for(lambda: _pending(worker) == 0, "every signal of the burst to be processed")
    finally:
        processor.stop()
        worker.close()


def _pending(ctx) -> int:
    from sqlalchemy import func, select

    from perception.models import InboxEntry

    with ctx.reader() as uow:
        return uow.session.scalar(select(func.count()).select_from(InboxEntry).where(InboxEntry.state == "pending"))


def test_without_a_thread_wake_ups_during_a_pass_coalesce_into_one_more_pass(ctx, monkeypatch):
    import threading

    from app import pipeline

    entered, release, passes = threading.Event(), threading.Event(), []

    def held_tick(ctx_, **_):
        passes.append(1)
        if len(passes) == 1:
            entered.set()
            assert release.wait(30)
        return {"more": 0}

    monkeypatch.setattr(pipeline, "tick", held_tick)
    processor = Processor(ctx, threaded=False)
    first = threading.Thread(target=processor.wake, daemon=True)
    first.start()
    assert entered.wait(30)
    wakers = [threading.Thread(target=processor.wake, daemon=True) for _ in range(5)]
    for waker in wakers:
        waker.start()
    for waker in wakers:
        waker.join(30)
        assert not waker.is_alive()  # a waker never waits for the running pass
    release.set()
    first.join(30)
    assert len(passes) == 2  # five wake-ups during the pass: one more pass, not five
