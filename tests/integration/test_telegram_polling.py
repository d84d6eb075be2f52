"""Long polling: updates become facts once each, the offset lives in the database, restarts neither lose nor repeat."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from sqlalchemy import select

from app.inbound import PerceptionInbound
from app.main import create_app
from app.wiring import build_context, default_channels
from channels.telegram.polling import TelegramPoller, start_polling
from fact.models import Fact
from kernel.context import AppContext
from tests.conftest import make_settings
from tests.fakes.telegram_server import CONFLICT, TOKEN, FakeTelegram


@pytest.fixture
def fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


class Recording(PerceptionInbound):
    """The app's inbound port, with `then(message)` run after each message is recorded (to stop or crash on cue)."""

    def __init__(self, ctx: AppContext, then: Callable[[object], None]) -> None:
        super().__init__(ctx)
        self.then = then

    def record(self, message) -> bool:
        created = super().record(message)
        self.then(message)
        return created


def make_poller(ctx: AppContext, fake: FakeTelegram, *, inbound=None, **kw) -> TelegramPoller:
    return TelegramPoller(
        ctx,
        inbound=inbound or PerceptionInbound(ctx),
        token=TOKEN,
        api_base=fake.base_url,
        **{"poll_timeout": 1, "backoff": 0.01, "max_backoff": 0.05, **kw},
    )


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def event_ids(ctx: AppContext) -> list[int]:
    with ctx.reader() as uow:
        return [
            int(f.content["event_id"])
            for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "message_received").order_by(Fact.pk))
        ]


def test_polling_records_each_update_and_stores_the_next_offset(ctx, fake):
    ids = [fake.push_message(text=f"msg {n}", user_id=1001) for n in range(3)]
    woken = threading.Event()
    ctx.signal_listeners.append(lambda _: woken.set())
    poller = make_poller(ctx, fake).start()
    try:
        wait_for(lambda: len(event_ids(ctx)) == 3 and poller.load_offset() == ids[-1] + 1, "three facts and the offset")
        wait_for(lambda: fake.pending_update_ids() == [], "Telegram to see the updates confirmed")
    finally:
        poller.stop()
    assert event_ids(ctx) == ids and woken.is_set() and not poller.running
    assert {method for method, _ in fake.requests} <= {"getUpdates", "getMe"}  # no deleteWebhook / drop_pending_updates
    assert all("drop_pending_updates" not in params for _, params in fake.requests)


def test_a_restart_resumes_at_the_stored_offset_without_repeating_or_losing_updates(ctx, fake):
    ids = [fake.push_message(text=f"msg {n}") for n in range(5)]
    first: TelegramPoller

    def stop_at_the_third(message):
        if message.event_id == str(ids[2]):
            first.request_stop()  # the process is told to stop mid-batch

    first = make_poller(ctx, fake, inbound=Recording(ctx, stop_at_the_third)).start()
    wait_for(lambda: not first.running, "the first poller to stop")
    assert event_ids(ctx) == ids[:3] and first.load_offset() == ids[2] + 1
    later = fake.push_message(text="sent while Deputy was down")
    calls_before = len(fake.get_updates_answers)

    second = make_poller(ctx, fake).start()
    try:
        wait_for(lambda: len(event_ids(ctx)) == 6, "the remaining updates")
    finally:
        second.stop()
    assert event_ids(ctx) == ids + [later]
    resumed = fake.get_updates_answers[calls_before:]
    assert resumed[0][0] == ids[2] + 1  # asked from the stored offset
    assert not {i for _, batch in resumed for i in batch} & set(ids[:3])  # nothing already recorded came back


def test_an_update_recorded_just_before_a_crash_is_fetched_again_but_recorded_once(ctx, fake):
    ids = [fake.push_message(text=f"msg {n}") for n in range(3)]
    crashing: TelegramPoller

    def crash_after_writing_the_second(message):
        if message.event_id == str(ids[1]):
            crashing.request_stop()
            raise RuntimeError("process died after the fact, before the offset")

    crashing = make_poller(ctx, fake, inbound=Recording(ctx, crash_after_writing_the_second)).start()
    wait_for(lambda: not crashing.running, "the crashed poller to end")
    assert event_ids(ctx) == ids[:2] and crashing.load_offset() == ids[0] + 1

    restarted = make_poller(ctx, fake).start()
    try:
        wait_for(lambda: restarted.load_offset() == ids[2] + 1, "the offset past the last update")
    finally:
        restarted.stop()
    assert event_ids(ctx) == ids  # the second update came back and was de-duplicated on update_id


def test_a_failed_write_is_retried_and_never_skipped(ctx, fake):
    ids = [fake.push_message(text=f"msg {n}") for n in range(3)]
    failures = []

    class FailingOnce(PerceptionInbound):
        def record(self, message) -> bool:
            if message.event_id == str(ids[1]) and not failures:
                failures.append(message.event_id)
                raise RuntimeError("database unavailable")
            return super().record(message)

    poller = make_poller(ctx, fake, inbound=FailingOnce(ctx)).start()
    try:
        wait_for(lambda: len(event_ids(ctx)) == 3, "every update")
    finally:
        poller.stop()
    assert failures == [str(ids[1])] and event_ids(ctx) == ids


def test_updates_deputy_does_not_act_on_advance_the_offset_and_write_nothing(ctx, fake):
    edited = fake.push_update(
        {
            "edited_message": {
                "message_id": 1,
                "date": 1773799200,
                "chat": {"id": 1, "type": "private"},
                "from": {"id": 1, "is_bot": False, "first_name": "a"},
                "edit_date": 1773799300,
                "text": "x",
            }
        }
    )
    callback = fake.push_update(
        {"callback_query": {"id": "9", "from": {"id": 1, "is_bot": False, "first_name": "a"}, "chat_instance": "c"}}
    )
    poller = make_poller(ctx, fake).start()
    try:
        wait_for(lambda: poller.load_offset() == callback + 1, "the offset past both updates")
    finally:
        poller.stop()
    assert edited < callback and event_ids(ctx) == []


def test_a_409_conflict_backs_off_logs_loudly_and_recovers(ctx, fake, caplog):
    fake.script("getUpdates", CONFLICT, CONFLICT, CONFLICT)
    update = fake.push_message(text="hello")
    with caplog.at_level(logging.ERROR, logger="deputy.channels.telegram.polling"):
        poller = make_poller(ctx, fake).start()
        try:
            wait_for(lambda: event_ids(ctx) == [update], "the update after the conflicts")
        finally:
            poller.stop()
    conflicts = [r for r in caplog.records if r.levelno == logging.ERROR and "409 Conflict" in r.getMessage()]
    assert len(conflicts) == 3 and "webhook" in conflicts[0].getMessage()


def test_the_backoff_grows_and_is_bounded():
    from telegram.error import Conflict, RetryAfter

    from channels.telegram.errors import poll_retry_delay

    delays = [poll_retry_delay(Conflict("x"), n, backoff=1.0, max_backoff=8.0) for n in range(6)]
    assert delays == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert poll_retry_delay(RetryAfter(30), 0, backoff=1.0, max_backoff=8.0) == 30.0  # what Telegram asked


def test_polling_starts_only_in_polling_mode_with_a_token(ctx, fake, database_url, clock):
    assert start_polling(ctx, inbound=PerceptionInbound(ctx)) is None
    settings = make_settings(
        database_url, telegram_mode="polling", telegram_bot_token=TOKEN, telegram_api_base=fake.base_url
    )
    polling_ctx = build_context(settings, clock=clock, channels=default_channels(settings))
    try:
        update = fake.push_message(text="via the app")
        with TestClient(create_app(ctx=polling_ctx, run_migrations=False)):
            wait_for(lambda: event_ids(polling_ctx) == [update], "the app's poller to record the update")
        assert not any(t.name == "telegram-poller" and t.is_alive() for t in threading.enumerate())
    finally:
        polling_ctx.close()


def test_polling_and_the_webhook_record_identical_facts_for_the_same_message(ctx, fake):
    ctx.settings.telegram_webhook_secret = SecretStr("wh-secret")
    ctx.settings.telegram_bot_username = "deputy_bot"
    ctx.settings.telegram_bot_token = SecretStr(TOKEN)
    message = {
        "message_id": 77,
        "date": 1773799200,
        "text": "@deputy_bot /concerns",
        "from": {"id": 1001, "is_bot": False, "first_name": "San"},
        "chat": {"id": -500, "type": "group"},
        "entities": [{"type": "mention", "offset": 0, "length": 11}],
    }
    polled_id = fake.push_update({"message": message})
    poller = make_poller(ctx, fake).start()
    try:
        wait_for(lambda: len(event_ids(ctx)) == 1, "the polled fact")
    finally:
        poller.stop()
    with TestClient(create_app(ctx=ctx, run_migrations=False)) as client:
        response = client.post(
            "/webhooks/telegram",
            json={"update_id": polled_id + 1, "message": message},
            headers={"X-Telegram-Bot-Api-Secret-Token": "wh-secret"},
        )
        assert response.status_code == 200
    with ctx.reader() as uow:
        polled, hooked = uow.session.scalars(
            select(Fact).where(Fact.fact_type == "message_received").order_by(Fact.pk)
        ).all()
    assert {**polled.content, "event_id": hooked.content["event_id"]} == hooked.content
    assert polled.content["mentions_bot"] is True and polled.person_refs == hooked.person_refs


def skipped_facts(ctx: AppContext) -> list[dict]:
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(Fact).where(Fact.fact_type == "system").order_by(Fact.pk))
        return [f.content for f in rows]


def test_unreadable_updates_are_skipped_with_a_system_fact_and_never_block_the_next(ctx, fake, caplog):
    nul = fake.push_message(text="a\u0000b")
    far_future = fake.push_message(text="from the far future", date=1e20)  # python-telegram-bot cannot parse it
    negative = fake.push_message(text="before 1970", date=-5)
    good = fake.push_message(text="after them")
    with caplog.at_level(logging.WARNING, logger="deputy.channels.telegram.polling"):
        poller = make_poller(ctx, fake).start()
        try:
            wait_for(lambda: poller.load_offset() == good + 1, "the offset past every update")
            wait_for(lambda: fake.pending_update_ids() == [], "Telegram to see the updates confirmed")
        finally:
            poller.stop()
    assert event_ids(ctx) == [good]
    skipped = skipped_facts(ctx)
    assert [s["update_id"] for s in skipped] == [nul, far_future, negative]
    assert {s["event"] for s in skipped} == {"telegram_update_skipped"}
    assert "NUL" in skipped[0]["reason"] and "message.date" in skipped[1]["reason"]
    assert sum("skipping Telegram update" in r.getMessage() for r in caplog.records) == 3
