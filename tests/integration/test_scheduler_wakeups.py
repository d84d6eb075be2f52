"""With Redis, a signal recorded by one replica wakes every replica's scheduler instead of waiting for the interval."""

import time

import redis as redis_lib

from app.pipeline import Processor
from app.wiring import build_context
from channels.inbound import InboundMessage
from perception import service
from tests.conftest import make_settings, redis_url


def _wait_for(condition, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_signal_recorded_elsewhere_is_processed_by_a_sleeping_replica(ctx, clock, team):
    _, telegram = team
    url = redis_url()
    sleeper = build_context(
        make_settings(ctx.settings.database_url, redis_url=url, scheduler_interval="1h"),
        clock=clock,
        channels=ctx.channels,
    )
    recorder = build_context(make_settings(ctx.settings.database_url), clock=clock)
    recorder.redis = redis_lib.Redis.from_url(url)
    thread = Processor(sleeper, threaded=True)
    thread.start()
    try:
        _wait_for(lambda: recorder.redis.pubsub_numsub("deputy:scheduler:wake")[0][1] >= 1, "the replica to listen")
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

    def held_tick(ctx_):
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
