"""Buttons end to end: real SDK clients against the fake platforms, the real webhooks, perception, core and edits."""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.inbound import PerceptionInbound
from app.main import create_app
from app.pipeline import tick
from app.wiring import build_context, default_channels
from channels.feishu.channel import FeishuChannel
from channels.feishu.pacing import LocalPacer
from channels.telegram import TelegramChannel
from channels.telegram.polling import TelegramPoller
from concern.models import Concern
from tests.conftest import START, make_settings
from tests.fakes import feishu_server as fs
from tests.fakes.feishu_server import encrypt, message_event, signed_headers
from tests.fakes.telegram_server import TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person

SECRET = "wh-secret-0123456789"
KEY, VTOKEN = "encrypt-key-1", "vtoken"


def _concern(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern)).one()


@pytest.fixture
def telegram_app(database_url, clock):
    fake = FakeTelegram().start()
    settings = make_settings(
        database_url, telegram_webhook_secret=SECRET, telegram_bot_token=TOKEN, telegram_bot_username="deputy_bot"
    )
    ctx = build_context(settings, clock=clock, channels=default_channels())
    channel = TelegramChannel(TOKEN, api_base=fake.base_url)
    ctx.channels.register(channel)
    add_person(
        ctx,
        "p_boss",
        display_name="老板",
        role="principal",
        bindings=[{"channel": "telegram", "external_user_id": "2001", "chat_id": "2001"}],
    )
    add_person(
        ctx,
        "p_zhangsan",
        display_name="张三",
        bindings=[{"channel": "telegram", "external_user_id": "1001", "chat_id": "1001"}],
    )
    with TestClient(create_app(ctx=ctx, run_migrations=False), raise_server_exceptions=False) as client:
        yield ctx, client, fake
    channel.close(), fake.stop(), ctx.close()


def _tg_post(client, fake: FakeTelegram, body: dict, *, seen: bool = True) -> None:
    """Post an update as Telegram does; with `seen` Telegram got the answer and carries out the call it holds."""
    response = client.post("/webhooks/telegram", json=body, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET})
    assert response.status_code == 200, response.text
    if seen:
        fake.webhook_answer(response.json())


def _tg_press(update_id: int, callback_id: str, *, user: int, data: str, message_id: int) -> dict:
    return {
        "update_id": update_id,
        "callback_query": {
            "id": callback_id,
            "from": {"id": user, "is_bot": False, "first_name": "x"},
            "message": {"message_id": message_id, "date": 1773799200, "chat": {"id": user, "type": "private"}},
            "chat_instance": "ci",
            "data": data,
        },
    }


def test_a_telegram_press_is_answered_at_once_acts_once_and_edits_its_message(telegram_app):
    ctx, client, fake = telegram_app
    ask = {
        "message_id": 5,
        "date": 1773799200,
        "text": "/ask @p_zhangsan 提测什么时候能给？",
        "chat": {"id": 2001, "type": "private"},
    }
    _tg_post(
        client, fake, {"update_id": 1, "message": {**ask, "from": {"id": 2001, "is_bot": False, "first_name": "B"}}}
    )
    _tg_post(
        client, fake, {"update_id": 1, "message": {**ask, "from": {"id": 2001, "is_bot": False, "first_name": "B"}}}
    )
    tick(ctx)
    [question] = [c for c in fake.calls("sendMessage") if str(c["chat_id"]) == "1001"]
    message_id = next(m for (chat, m) in fake.sent if chat == "1001")
    keyboard = fake.keyboard("1001", message_id)
    labels = dict(keyboard[0] + keyboard[1])  # two rows: the question's three, then the recipient's own two
    assert [list(dict(row)) for row in keyboard] == [
        ["稍后 2小时", "明天再说", "不是我"],
        ["为什么收到这条？", "消息太多"],
    ]
    assert "提测什么时候能给" in question["text"]
    # The principal may not press the person's button: told so at once, nothing changes.
    _tg_post(client, fake, _tg_press(10, "cb-boss", user=2001, data=labels["不是我"], message_id=message_id))
    tick(ctx)
    assert fake.calls("answerCallbackQuery")[-1] == {"callback_query_id": "cb-boss", "text": "这个按钮不是给你的"}
    assert fake.keyboard("1001", message_id) != []
    # The person asked presses Later; Telegram delivers the callback twice (it did not get the first answer).
    for seen in (False, True):
        press = _tg_press(11, "cb-zs", user=1001, data=labels["稍后 2小时"], message_id=message_id)
        _tg_post(client, fake, press, seen=seen)
    tick(ctx)
    assert fake.calls("answerCallbackQuery")[-1] == {"callback_query_id": "cb-zs", "text": "收到"}
    assert [c["callback_query_id"] for c in fake.calls("answerCallbackQuery")].count("cb-zs") == 1
    later = ctx.clock.now() + timedelta(hours=2)
    assert _concern(ctx).step_at == later
    edited = fake.message("1001", message_id)
    assert edited["text"].endswith(f"— 已推迟到 今天 {later.astimezone(ctx.settings.tz):%H:%M}")
    assert [list(dict(row)) for row in fake.keyboard("1001", message_id)] == [["为什么收到这条？", "消息太多"]]
    # A later tap on the edited message (from a stale client) is answered, and does nothing.
    _tg_post(client, fake, _tg_press(12, "cb-zs-2", user=1001, data=labels["明天再说"], message_id=message_id))
    tick(ctx)
    assert fake.calls("answerCallbackQuery")[-1] == {"callback_query_id": "cb-zs-2", "text": "已经处理过了"}
    assert len(fake.calls("editMessageText")) == 1


def test_a_press_delivered_by_webhook_and_again_by_polling_is_answered_once_and_edits_once(telegram_app):
    ctx, client, fake = telegram_app
    ask = {
        "message_id": 5,
        "date": 1773799200,
        "text": "/ask @p_zhangsan 周报呢？",
        "chat": {"id": 2001, "type": "private"},
    }
    _tg_post(
        client, fake, {"update_id": 1, "message": {**ask, "from": {"id": 2001, "is_bot": False, "first_name": "B"}}}
    )
    tick(ctx)
    message_id = next(m for (chat, m) in fake.sent if chat == "1001")
    labels = dict(fake.keyboard("1001", message_id)[0])
    press = _tg_press(20, "cb-twice", user=1001, data=labels["稍后 2小时"], message_id=message_id)
    _tg_post(client, fake, press, seen=False)  # Telegram did not see this 200, nor the answer it held …
    tick(ctx)
    _tg_post(client, fake, press)  # … so it delivers the webhook again
    fake.push_update(press)  # and the same update once more through long polling
    poller = TelegramPoller(
        ctx,
        inbound=PerceptionInbound(ctx),
        token=TOKEN,
        api_base=fake.base_url,
        poll_timeout=1,
        backoff=0.01,
        sender=ctx.channels.get("telegram"),
    ).start()
    try:
        deadline = time.monotonic() + 30
        while poller.load_offset() != 21 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        poller.stop()
    assert poller.load_offset() == 21  # polling took the update, recognised it, and moved past it
    tick(ctx)
    answers = [c for c in fake.calls("answerCallbackQuery") if c["callback_query_id"] == "cb-twice"]
    assert answers == [{"callback_query_id": "cb-twice", "text": "收到"}]
    assert len(fake.calls("editMessageText")) == 1
    assert [list(dict(row)) for row in fake.keyboard("1001", message_id)] == [["为什么收到这条？", "消息太多"]]


@pytest.fixture
def feishu_app(database_url, clock):
    fake = fs.FakeFeishu().start()
    settings = make_settings(
        database_url, feishu_verification_token=VTOKEN, feishu_encrypt_key=KEY, feishu_bot_open_id="ou_bot"
    )
    ctx = build_context(settings, clock=clock, channels=default_channels())
    channel = FeishuChannel(
        app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=fake.domain, pacer=LocalPacer(max_wait=0)
    )
    ctx.channels.register(channel)
    add_person(
        ctx,
        "p_boss",
        display_name="老板",
        role="principal",
        bindings=[{"channel": "feishu", "external_user_id": "ou_boss"}],
    )
    add_person(ctx, "p_zhangsan", display_name="张三", bindings=[{"channel": "feishu", "external_user_id": "ou_zs"}])
    with TestClient(create_app(ctx=ctx, run_migrations=False), raise_server_exceptions=False) as client:
        yield ctx, client, fake
    fake.stop(), ctx.close()


def _fs_post(client, payload: dict):
    body = json.dumps({"encrypt": encrypt(KEY, json.dumps(payload, ensure_ascii=False))}).encode()
    return client.post(
        "/webhooks/feishu", content=body, headers=signed_headers(body, KEY, timestamp=int(START.timestamp()))
    )


def _card_press(event_id: str, *, open_id: str, token: str, message_id: str) -> dict:
    return {
        "schema": "2.0",
        "header": {
            "event_id": event_id,
            "token": VTOKEN,
            "create_time": "1773799200000000",
            "event_type": "card.action.trigger",
            "tenant_key": "t",
            "app_id": fs.APP_ID,
        },
        "event": {
            "operator": {"open_id": open_id},
            "action": {"value": {"t": token}, "tag": "button"},
            "context": {"open_message_id": message_id, "open_chat_id": "oc_1"},
        },
    }


def test_a_feishu_card_press_gets_its_toast_in_the_answer_and_the_card_is_patched(feishu_app):
    ctx, client, fake = feishu_app
    assert _fs_post(client, message_event(open_id="ou_boss", text="/ask @p_zhangsan 周报写了吗？")).status_code == 200
    tick(ctx)
    [confirmation] = [m for m in fake.sent_to("ou_boss") if m["msg_type"] == "interactive"]
    labels = dict(fake.buttons(confirmation["message_id"]))
    assert list(labels) == ["催一下", "取消"]
    answer = _fs_post(
        client, _card_press("ev_p1", open_id="ou_boss", token=labels["取消"], message_id=confirmation["message_id"])
    )
    assert answer.json() == {"toast": {"type": "info", "content": "收到"}}
    tick(ctx)
    assert _concern(ctx).state == "cancelled"
    card = json.dumps(fake.card(confirmation["message_id"]), ensure_ascii=False)
    assert "已取消，不会再联系张三" in card and fake.buttons(confirmation["message_id"]) == []
    again = _fs_post(
        client, _card_press("ev_p2", open_id="ou_boss", token=labels["催一下"], message_id=confirmation["message_id"])
    )
    assert again.json() == {"toast": {"type": "info", "content": "已经处理过了"}}
    person_card = next(m for m in fake.sent_to("ou_zs") if m["msg_type"] == "interactive")
    closed = _fs_post(
        client,
        _card_press("ev_p3", open_id="ou_zs", token=dict(fake.buttons(person_card["message_id"]))["明天再说"],
                    message_id=person_card["message_id"]),
    )  # fmt: skip
    assert closed.json() == {"toast": {"type": "info", "content": "已结束"}}
