"""The story over the real SDK clients: webhooks in, lark-oapi and python-telegram-bot out, local fakes only."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from action import service
from action.models import ActionRequest
from app.main import create_app
from app.pipeline import tick
from app.wiring import build_context
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.fakes.feishu_server import APP_ID, APP_SECRET, FakeFeishu, encrypt, message_event, signed_headers
from tests.fakes.telegram_server import FORBIDDEN_BLOCKED, TOKEN, FakeTelegram
from tests.integration.action_helpers import add_person

KEY, VTOKEN, SECRET = "story-encrypt-key", "story-vtoken", "story-tg-secret"
START = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # 10:00 Asia/Shanghai


@pytest.fixture
def platforms():
    feishu, telegram = FakeFeishu().start(), FakeTelegram().start()
    yield feishu, telegram
    feishu.stop()
    telegram.stop()


@pytest.fixture
def app_ctx(database_url, clock, platforms):
    feishu, telegram = platforms
    settings = make_settings(
        database_url,
        feishu_app_id=APP_ID,
        feishu_app_secret=APP_SECRET,
        feishu_domain=feishu.domain,
        feishu_verification_token=VTOKEN,
        feishu_encrypt_key=KEY,
        feishu_bot_open_id="ou_bot",
        telegram_bot_token=TOKEN,
        telegram_api_base=telegram.base_url,
        telegram_webhook_secret=SECRET,
        telegram_bot_username="deputy_bot",
    )
    ctx = build_context(settings, clock=clock)
    yield ctx
    ctx.close()


def feishu_says(client, clock, *, event_id: str, open_id: str, text: str) -> None:
    event = message_event(
        event_id=event_id,
        open_id=open_id,
        text=text,
        token=VTOKEN,
        message_id=f"om_{event_id}",
        create_time_ms=int(clock.now().timestamp() * 1000),
    )
    body = json.dumps({"encrypt": encrypt(KEY, json.dumps(event, ensure_ascii=False))}).encode()
    response = client.post(
        "/webhooks/feishu", content=body, headers=signed_headers(body, KEY, timestamp=int(clock.now().timestamp()))
    )
    assert response.status_code == 200


def telegram_says(client, clock, *, update_id: int, user_id: int, text: str) -> None:
    update = {
        "update_id": update_id,
        "message": {
            "message_id": update_id,
            "date": int(clock.now().timestamp()),
            "text": text,
            "from": {"id": user_id, "is_bot": False, "first_name": "San"},
            "chat": {"id": user_id, "type": "private"},
        },
    }
    response = client.post("/webhooks/telegram", json=update, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET})
    assert response.status_code == 200


@pytest.mark.slow
def test_ask_follow_up_answer_and_backflow_across_both_platforms(app_ctx, clock, platforms):
    feishu, telegram = platforms
    clock.set(START)
    add_person(
        app_ctx,
        "p_boss",
        display_name="老板",
        role="principal",
        bindings=[{"channel": "feishu", "external_user_id": "ou_boss"}],
    )
    add_person(
        app_ctx,
        "p_zhangsan",
        display_name="张三",
        policy={"preferred_channel": "telegram"},
        bindings=[
            {"channel": "telegram", "external_user_id": "1001", "chat_id": "1001"},
            {"channel": "feishu", "external_user_id": "ou_zs"},
        ],
    )
    with TestClient(
        create_app(ctx=app_ctx, run_migrations=False), headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
    ) as client:
        feishu_says(client, clock, event_id="ev_ask", open_id="ou_boss", text="尽快问一下张三：提测什么时候能给？")
        questions = telegram.calls("sendMessage")
        assert [q["chat_id"] for q in questions] == ["1001"] and "提测什么时候能给？" in questions[0]["text"]
        acks = feishu.sent_to("ou_boss")
        assert len(acks) == 1 and "已发给张三" in json.dumps(acks[0], ensure_ascii=False)

        clock.advance(timedelta(hours=4))
        tick(app_ctx)
        assert len(telegram.calls("sendMessage")) == 2 and "【跟进】" in telegram.calls("sendMessage")[1]["text"]

        telegram_says(client, clock, update_id=5001, user_id=1001, text="明天下午")
        telegram_says(
            client, clock, update_id=5001, user_id=1001, text="明天下午"
        )  # Telegram redelivers: still one fact
        backflow = json.dumps(feishu.sent_to("ou_boss")[-1], ensure_ascii=False)
        assert "张三回复了你的问题" in backflow and "明天下午" in backflow
        [concern] = client.get("/v1/concerns", params={"kind": "question"}).json()["items"]
        assert concern["state"] == "resolved" and concern["answer"] == "明天下午"
        assert len(client.get("/v1/facts", params={"fact_type": "message_received"}).json()["items"]) == 2
        uuids = [m.get("uuid") for m in feishu.messages]
        assert all(u and u.startswith("act_20260318_") for u in uuids)


def test_a_notify_falls_back_from_telegram_to_feishu_on_the_real_clients(app_ctx, clock, platforms, client):
    feishu, telegram = platforms
    add_person(
        app_ctx,
        "p_zhangsan",
        display_name="张三",
        policy={"preferred_channel": "telegram"},
        bindings=[
            {"channel": "telegram", "external_user_id": "1001", "chat_id": "1001"},
            {"channel": "feishu", "external_user_id": "ou_zs"},
        ],
    )
    telegram.script("sendMessage", FORBIDDEN_BLOCKED)
    record = service.execute(
        app_ctx,
        request=ActionRequest(
            action_type="notify", decision_ref="dec_20260318_001", target_person_id="p_zhangsan", text="明早10点开会"
        ),
    )
    assert record.result == "success" and record.channel == "feishu"
    assert [(a["channel"], a.get("error")) for a in record.result_detail["attempts"]] == [
        ("telegram", "unreachable"),
        ("feishu", None),
    ]
    assert feishu.sent_to("ou_zs")[0]["uuid"] == record.action_id
    bindings = {b["channel"]: b["reachable"] for b in client.get("/v1/persons/p_zhangsan").json()["channel_bindings"]}
    assert bindings == {"telegram": False, "feishu": True}
