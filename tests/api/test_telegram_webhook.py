"""`POST /webhooks/telegram`: secret token, one fact per update_id, normalised messages, nothing written otherwise."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.main import create_app
from app.wiring import build_context, default_channels
from channels.telegram import TelegramChannel
from fact.models import Fact
from kernel.context import AppContext
from perception.models import InboundEvent, InboxEntry
from tests.conftest import make_settings
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person

SECRET = "wh-secret-0123456789"
OK = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
DATE = 1773799200  # 2026-03-18T02:00:00Z


def build_ctx(database_url: str, clock, **settings: Any) -> AppContext:
    values = {
        "telegram_webhook_secret": SECRET,
        "telegram_bot_token": TOKEN,
        "telegram_bot_username": "deputy_bot",
        **settings,
    }
    # No Telegram channel unless a test registers one against the fake: nothing may reach api.telegram.org.
    return build_context(make_settings(database_url, **values), clock=clock, channels=default_channels())


@pytest.fixture
def tg_ctx(database_url, clock):
    context = build_ctx(database_url, clock)
    yield context
    context.close()


@pytest.fixture
def tg(tg_ctx):
    with TestClient(create_app(ctx=tg_ctx, run_migrations=False), raise_server_exceptions=False) as c:
        yield c


def update(
    update_id: int = 900001,
    text: str = "/concerns",
    *,
    user_id: int = 1001,
    chat_id: int | None = None,
    chat_type: str = "private",
    **message: Any,
) -> dict:
    body = {
        "message_id": 42,
        "date": DATE,
        "text": text,
        "from": {"id": user_id, "is_bot": False, "first_name": "San", "username": "zhangsan"},
        "chat": {"id": chat_id if chat_id is not None else user_id, "type": chat_type},
        **message,
    }
    return {"update_id": update_id, "message": body}


def facts(ctx: AppContext) -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.fact_type == "message_received").order_by(Fact.pk)))


def queued(ctx: AppContext) -> list[InboundEvent]:
    with ctx.db.queue_read() as session:  # the queue's own database on SQLite, the service's on PostgreSQL
        return list(session.scalars(select(InboundEvent).order_by(InboundEvent.pk)))


def set_aside(ctx: AppContext) -> list[dict]:
    with ctx.reader() as uow:
        return [
            f.content
            for f in uow.session.scalars(select(Fact).order_by(Fact.pk))
            if f.content.get("event") == "inbound_event_set_aside"
        ]


def inbox_size(ctx: AppContext) -> int:
    with ctx.reader() as uow:
        return uow.session.scalar(select(func.count()).select_from(InboxEntry))


def test_a_private_message_becomes_one_message_received_fact_queued_for_the_core(tg_ctx, tg):
    woken = []
    tg_ctx.signal_listeners.append(woken.append)
    response = tg.post(
        "/webhooks/telegram",
        json=update(reply_to_message={"message_id": 7, "date": DATE, "chat": {"id": 1001, "type": "private"}}),
        headers=OK,
    )
    assert response.status_code == 200 and response.json() == {"ok": True, "recorded": True}
    [fact] = facts(tg_ctx)
    assert fact.source == "perception" and fact.dedup_key == "telegram:event:900001"
    content = fact.content
    assert {
        k: content[k]
        for k in (
            "channel",
            "event_id",
            "message_id",
            "chat_id",
            "chat_type",
            "external_user_id",
            "text",
            "reply_to_message_id",
        )
    } == {
        "channel": "telegram",
        "event_id": "900001",
        "message_id": "42",
        "chat_id": "1001",
        "chat_type": "p2p",
        "external_user_id": "1001",
        "text": "/concerns",
        "reply_to_message_id": "7",
    }
    assert content["occurred_at"].startswith("2026-03-18T02:00:00") and content["mentions_bot"] is False
    assert inbox_size(tg_ctx) == 1 and woken == [tg_ctx]


def test_a_missing_secret_is_401_and_writes_nothing(tg_ctx, tg):
    response = tg.post("/webhooks/telegram", json=update())
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"
    assert facts(tg_ctx) == [] and inbox_size(tg_ctx) == 0


def test_a_wrong_secret_is_403_and_writes_nothing(tg_ctx, tg):
    response = tg.post("/webhooks/telegram", json=update(), headers={"X-Telegram-Bot-Api-Secret-Token": SECRET + "x"})
    assert response.status_code == 403 and set(response.json()["error"]) >= {"code", "message"}
    assert facts(tg_ctx) == []


def test_without_a_configured_secret_every_request_is_refused(ctx, client):
    response = client.post("/webhooks/telegram", json=update(), headers=OK)
    assert response.status_code == 403 and "not configured" in response.json()["error"]["message"]
    assert facts(ctx) == []


def test_the_same_update_delivered_three_times_is_one_fact(tg_ctx, tg):
    answers = [tg.post("/webhooks/telegram", json=update(), headers=OK) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [a.json()["recorded"] for a in answers] == [True, False, False]
    assert len(facts(tg_ctx)) == 1 and inbox_size(tg_ctx) == 1


def test_the_same_update_delivered_concurrently_is_one_fact(tg_ctx):
    app = create_app(ctx=tg_ctx, run_migrations=False)
    barrier, statuses = threading.Barrier(6), []

    def deliver() -> None:
        client = TestClient(app, raise_server_exceptions=False)
        barrier.wait()
        statuses.append(client.post("/webhooks/telegram", json=update(900777), headers=OK).status_code)

    threads = [threading.Thread(target=deliver) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert statuses == [200] * 6
    assert [f.content["event_id"] for f in facts(tg_ctx)] == ["900777"] and inbox_size(tg_ctx) == 1


def test_an_unknown_sender_is_recorded_with_no_person(tg_ctx, tg):
    tg.post("/webhooks/telegram", json=update(user_id=4242), headers=OK)
    [fact] = facts(tg_ctx)
    assert fact.content["person_id"] is None and fact.person_refs == []


def test_a_known_sender_is_resolved_to_their_person(tg_ctx, tg):
    add_person(tg_ctx, bindings=[{"channel": "telegram", "external_user_id": "1001", "chat_id": "1001"}])
    tg.post("/webhooks/telegram", json=update(), headers=OK)
    [fact] = facts(tg_ctx)
    assert fact.content["person_id"] == "p_zhangsan" and fact.person_refs == ["p_zhangsan"]


def test_a_group_message_mentioning_the_bot_sets_mentions_bot(tg_ctx, tg):
    text = "👋 @Deputy_Bot /ask @zhangsan 提测？"  # the emoji makes UTF-16 offsets differ from code points
    entities = [
        {"type": "mention", "offset": 3, "length": 11},
        {"type": "bot_command", "offset": 15, "length": 4},
        {"type": "mention", "offset": 20, "length": 9},
    ]
    tg.post(
        "/webhooks/telegram",
        json=update(text=text, chat_id=-100200, chat_type="supergroup", entities=entities),
        headers=OK,
    )
    [fact] = facts(tg_ctx)
    assert (
        fact.content["chat_type"] == "group"
        and fact.content["chat_id"] == "-100200"
        and fact.content["mentions_bot"] is True
    )
    assert fact.content["mentions"] == [
        {"external_user_id": "123456", "name": "Deputy_Bot", "is_bot": True},
        {"external_user_id": None, "name": "zhangsan", "is_bot": False},
    ]


def test_a_group_command_addressed_to_the_bot_counts_as_a_mention(tg_ctx, tg):
    entities = [{"type": "bot_command", "offset": 0, "length": 20}]
    tg.post(
        "/webhooks/telegram",
        json=update(text="/concerns@deputy_bot", chat_id=-5, chat_type="group", entities=entities),
        headers=OK,
    )
    assert facts(tg_ctx)[0].content["mentions_bot"] is True


def test_a_group_message_not_addressed_to_the_bot_does_not_mention_it(tg_ctx, tg):
    entities = [
        {"type": "mention", "offset": 0, "length": 9},
        {
            "type": "text_mention",
            "offset": 10,
            "length": 2,
            "user": {"id": 77, "is_bot": False, "first_name": "Li", "last_name": "Si"},
        },
    ]
    tg.post(
        "/webhooks/telegram",
        json=update(text="@zhangsan 李四 hi", chat_id=-5, chat_type="group", entities=entities),
        headers=OK,
    )
    content = facts(tg_ctx)[0].content
    assert content["mentions_bot"] is False
    assert content["mentions"][1] == {"external_user_id": "77", "name": "Li Si", "is_bot": False}


def test_the_bot_username_comes_from_get_me_when_not_configured(database_url, clock):
    fake = FakeTelegram().start()
    context = build_ctx(database_url, clock, telegram_bot_username=None)
    channel = TelegramChannel(TOKEN, api_base=fake.base_url)
    context.channels.register(channel)
    try:
        with TestClient(create_app(ctx=context, run_migrations=False)) as c:
            for n in (1, 2):
                c.post(
                    "/webhooks/telegram",
                    json=update(
                        900100 + n,
                        "@deputy_bot hi",
                        chat_id=-5,
                        chat_type="group",
                        entities=[{"type": "mention", "offset": 0, "length": 11}],
                    ),
                    headers=OK,
                )
        assert [f.content["mentions_bot"] for f in facts(context)] == [True, True]
        assert len(fake.calls("getMe")) == 1
    finally:
        channel.close(), fake.stop(), context.close()


@pytest.mark.parametrize(
    "body",
    [
        {"update_id": 900002, "edited_message": update()["message"]},
        {
            "update_id": 900004,
            "message": {**update()["message"], "from": {"id": 9, "is_bot": True, "first_name": "OtherBot"}},
        },
        {
            "update_id": 900005,
            "channel_post": {"message_id": 1, "date": DATE, "chat": {"id": -100, "type": "channel"}, "text": "x"},
        },
    ],
    ids=["edited_message", "from_a_bot", "channel_post"],
)
def test_updates_deputy_does_not_act_on_are_acknowledged_and_write_nothing(tg_ctx, tg, body):
    response = tg.post("/webhooks/telegram", json=body, headers=OK)
    assert response.status_code == 200 and response.json() == {"ok": True, "recorded": False}
    assert facts(tg_ctx) == [] and inbox_size(tg_ctx) == 0 and queued(tg_ctx) == []


def test_a_callback_without_data_is_answered_in_the_response_and_writes_nothing(tg_ctx, tg):
    body = {
        "update_id": 900003,
        "callback_query": {"id": "1", "from": {"id": 1001, "is_bot": False, "first_name": "San"}, "chat_instance": "x"},
    }
    response = tg.post("/webhooks/telegram", json=body, headers=OK)
    assert response.status_code == 200 and response.json() == {
        "method": "answerCallbackQuery",
        "callback_query_id": "1",
    }
    assert queued(tg_ctx) == [] and inbox_size(tg_ctx) == 0


@pytest.mark.parametrize(
    "raw, code",
    [
        (b"{not json", "malformed_json"),
        (b"[]", "invalid_update"),
        (b'{"message": {}}', "invalid_update"),
    ],
)
def test_malformed_bodies_are_400_and_write_nothing(tg_ctx, tg, raw, code):
    response = tg.post("/webhooks/telegram", content=raw, headers={**OK, "Content-Type": "application/json"})
    assert response.status_code == 400 and response.json()["error"]["code"] == code
    assert facts(tg_ctx) == [] and queued(tg_ctx) == []


def assert_set_aside(ctx: AppContext, response, update_id: int, *words: str) -> None:
    """Acknowledged (Telegram would retry anything else), kept, and set aside with a fact naming the problem."""
    assert response.status_code == 200 and response.json() == {"ok": True, "recorded": True}, response.text
    assert facts(ctx) == [] and inbox_size(ctx) == 0
    [aside] = set_aside(ctx)
    assert (aside["channel"], aside["event_id"]) == ("telegram", str(update_id))
    assert all(word in aside["reason"] for word in words), aside["reason"]
    assert [row.done_at is not None for row in queued(ctx)] == [True]


@pytest.mark.parametrize("field, value", [("text", "a\u0000b"), ("caption", "\u0000")])
def test_a_message_with_a_nul_character_is_acknowledged_kept_and_set_aside_saying_why(tg_ctx, tg, field, value):
    body = update(900010, text=value) if field == "text" else update(900010, text=None, caption=value)
    response = tg.post("/webhooks/telegram", json=body, headers=OK)
    assert_set_aside(tg_ctx, response, 900010, "NUL")


def test_a_lone_surrogate_is_acknowledged_kept_and_set_aside(tg_ctx, tg):
    raw = b'{"update_id": 900014, "message": {"message_id": 1, "date": %d, "text": "x\\ud800y", ' % DATE
    raw = raw.replace(b"\\\\", b"\\") + b'"from": {"id": 1, "is_bot": false}, "chat": {"id": 1, "type": "private"}}}'
    response = tg.post("/webhooks/telegram", content=raw, headers={**OK, "Content-Type": "application/json"})
    assert_set_aside(tg_ctx, response, 900014, "surrogate")


def test_json_nested_too_deep_is_400_before_the_secret_is_even_checked(tg_ctx, tg):
    raw = ('{"update_id": 900011, "message": {"text": %s}}' % ("[" * 1200 + "]" * 1200)).encode()
    for headers in ({}, OK):
        response = tg.post("/webhooks/telegram", content=raw, headers={**headers, "Content-Type": "application/json"})
        assert response.status_code == 400 and response.json()["error"]["code"] == "too_deep"
    assert facts(tg_ctx) == [] and queued(tg_ctx) == []


@pytest.mark.parametrize(
    "date",
    [1e20, 10**30, -5, -1, 4102444800, "1773799200", "abc", True, None],
    ids=[
        "float_1e20",
        "huge_int",
        "very_negative",
        "just_before_1970",
        "year_2100",
        "numeric_string",
        "string",
        "bool",
        "null",
    ],
)
def test_a_message_date_that_is_not_a_sane_unix_time_is_set_aside_naming_it(tg_ctx, tg, date):
    response = tg.post("/webhooks/telegram", json=update(900012, date=date), headers=OK)
    assert_set_aside(tg_ctx, response, 900012, "message.date")


@pytest.mark.parametrize(
    "message",
    [
        {"entities": "abc"},
        {"entities": [{"type": "mention", "offset": "x", "length": 1}]},
        {"entities": [7]},
        {"chat": "private"},
        {"text": 5},
        {"chat": None, "from": {"id": 1, "is_bot": False}},
    ],
    ids=[
        "entities_not_a_list",
        "offset_not_a_number",
        "entity_not_an_object",
        "chat_not_an_object",
        "text_not_a_string",
        "no_chat",
    ],
)
def test_malformed_message_parts_are_set_aside_not_500(tg_ctx, tg, message):
    response = tg.post("/webhooks/telegram", json=update(900013, **message), headers=OK)
    assert_set_aside(tg_ctx, response, 900013, "message in update 900013")


def press_update(update_id: int, callback_id: str, data: str = "b1later") -> dict:
    return {
        "update_id": update_id,
        "callback_query": {
            "id": callback_id,
            "from": {"id": 2001, "is_bot": False, "first_name": "San"},
            "message": {"message_id": 41, "date": DATE, "chat": {"id": 2001, "type": "private"}, "text": "问题"},
            "chat_instance": "x",
            "data": data,
        },
    }


def presses(ctx: AppContext) -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.fact_type == "button_pressed")))


def test_a_press_is_answered_in_the_response_and_its_redelivery_the_same_way_one_press(database_url, clock):
    fake = FakeTelegram().start()
    context = build_ctx(database_url, clock)
    channel = TelegramChannel(TOKEN, api_base=fake.base_url)
    context.channels.register(channel)
    try:
        with TestClient(create_app(ctx=context, run_migrations=False)) as c:
            responses = [c.post("/webhooks/telegram", json=press_update(900200, "cb-9"), headers=OK) for _ in (1, 2)]
        # Telegram carries out the answerCallbackQuery its webhook's response holds; it redelivers only when it did
        # not get that response, so the redelivery is answered too, and as the first was.
        [first, again] = [r.json() for r in responses]
        assert first == again and first["method"] == "answerCallbackQuery" and first["callback_query_id"] == "cb-9"
        assert first["text"] == "这个按钮已失效", first  # no such button: the read-only check says so
        assert fake.calls("answerCallbackQuery") == []  # nothing out of band
        [press] = [f.content for f in presses(context)]  # Telegram's retry of the same callback is one press
        assert (press["event_id"], press["press_id"], press["token"], press["external_user_id"]) == (
            "cb-9",
            "cb-9",
            "b1later",
            "2001",
        )
        assert (press["chat_id"], press["message_id"], press["occurred_at"]) == ("2001", "41", "2026-03-18T02:00:00Z")
    finally:
        channel.close(), fake.stop(), context.close()


def test_a_press_with_the_wrong_secret_is_refused_and_nothing_is_kept(tg_ctx, tg):
    response = tg.post(
        "/webhooks/telegram", json=press_update(900201, "cb-10"), headers={"X-Telegram-Bot-Api-Secret-Token": "nope"}
    )
    assert response.status_code == 403 and queued(tg_ctx) == [] and presses(tg_ctx) == []


def test_a_media_message_by_webhook_is_recorded_with_its_media(tg_ctx, tg):
    document = {"file_id": "BQACdoc", "file_unique_id": "d", "file_name": "报告.pdf", "mime_type": "application/pdf"}
    response = tg.post(
        "/webhooks/telegram", json=update(900202, text=None, document={**document, "file_size": 2048}), headers=OK
    )
    assert response.status_code == 200
    content = facts(tg_ctx)[0].content
    assert content["text"] == "" and content["media"] == {
        "kind": "document",
        "file_id": "BQACdoc",
        "file_name": "报告.pdf",
        "mime_type": "application/pdf",
        "size": 2048,
    }
