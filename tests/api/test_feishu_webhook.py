"""`POST /webhooks/feishu`: authentication, url_verification, durable de-duplicated message facts."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from app.wiring import build_context
from tests.conftest import START, make_settings
from tests.fakes.feishu_server import encrypt, mention, message_event, signed_headers
from tests.integration.action_helpers import add_person

KEY, TOKEN, BOT = "encrypt-key-1", "vtoken", "ou_bot"
URL = "/webhooks/feishu"


@pytest.fixture
def ctx(database_url, clock):
    """The app context with Feishu event authentication configured (token, encrypt key, bot open_id)."""
    context = build_context(
        make_settings(database_url, feishu_verification_token=TOKEN, feishu_encrypt_key=KEY, feishu_bot_open_id=BOT),
        clock=clock,
    )
    yield context
    context.close()


@pytest.fixture
def wakeups(ctx) -> list[int]:
    calls: list[int] = []
    ctx.signal_listeners.append(lambda _: calls.append(1))
    return calls


def sealed(payload: dict, *, key: str = KEY, at=START) -> tuple[bytes, dict[str, str]]:
    """The body and headers Feishu would post for `payload`."""
    body = json.dumps({"encrypt": encrypt(key, json.dumps(payload, ensure_ascii=False))}).encode()
    return body, signed_headers(body, key, timestamp=int(at.timestamp()))


def post(client, payload: dict, **kw):
    body, headers = sealed(payload, **kw)
    return client.post(URL, content=body, headers=headers)


def message_facts(client) -> list[dict]:
    return client.get("/v1/facts", params={"fact_type": "message_received"}).json()["items"]


def test_a_signed_encrypted_message_event_is_recorded_once_and_wakes_the_core(ctx, client, wakeups):
    add_person(ctx, bindings=[{"channel": "feishu", "external_user_id": "ou_zhangsan"}])
    response = post(client, message_event(event_id="ev_100", text="提测明天给", parent_id="om_bot_7"))
    assert response.status_code == 200 and response.json() == {"msg": "success"}
    [fact] = message_facts(client)
    content = fact["content"]
    assert (
        fact["source"] == "perception"
        and fact["person_refs"] == ["p_zhangsan"]
        and content["person_id"] == "p_zhangsan"
    )
    assert (content["channel"], content["event_id"], content["message_id"], content["chat_id"]) == (
        "feishu",
        "ev_100",
        "om_in_1",
        "oc_p2p_1",
    )
    assert (content["chat_type"], content["external_user_id"]) == ("p2p", "ou_zhangsan")
    assert (content["text"], content["reply_to_message_id"]) == ("提测明天给", "om_bot_7")
    assert wakeups == [1]


@pytest.mark.parametrize("tamper", ["signature", "token", "stale", "key"])
def test_unauthentic_events_get_401_and_nothing_is_written(client, wakeups, tamper):
    event = message_event(token="wrong" if tamper == "token" else TOKEN)
    body, headers = sealed(
        event,
        key="other-key" if tamper == "key" else KEY,
        at=START - timedelta(minutes=6) if tamper == "stale" else START,
    )
    if tamper == "signature":
        headers["X-Lark-Signature"] = "f" * 64
    response = client.post(URL, content=body, headers=headers)
    assert response.status_code == 401
    assert set(response.json()["error"]) >= {"code", "message"}
    expected = {
        "signature": "invalid_signature",
        "token": "invalid_token",
        "stale": "stale_request",
        "key": "invalid_encryption",
    }[tamper]
    assert response.json()["error"]["code"] == expected
    assert message_facts(client) == [] and wakeups == []


def test_a_plain_body_is_refused_while_an_encrypt_key_is_configured(client):
    body = json.dumps(message_event()).encode()
    response = client.post(URL, content=body, headers=signed_headers(body, KEY, timestamp=int(START.timestamp())))
    assert response.status_code == 401 and message_facts(client) == []


def test_url_verification_answers_the_challenge_when_encrypted(client):
    body = json.dumps(
        {"encrypt": encrypt(KEY, json.dumps({"challenge": "ch-1", "token": TOKEN, "type": "url_verification"}))}
    ).encode()
    response = client.post(URL, content=body)
    assert response.status_code == 200 and response.json() == {"challenge": "ch-1"}


def test_url_verification_answers_the_challenge_in_plain_mode(database_url, clock):
    from fastapi.testclient import TestClient

    from app.main import create_app

    plain = build_context(make_settings(database_url, feishu_verification_token=TOKEN), clock=clock)
    try:
        with TestClient(create_app(ctx=plain, run_migrations=False)) as c:
            ok = c.post(URL, json={"challenge": "ch-2", "token": TOKEN, "type": "url_verification"})
            bad = c.post(URL, json={"challenge": "ch-2", "token": "nope", "type": "url_verification"})
            event = c.post(URL, json=message_event(token=TOKEN))
    finally:
        plain.close()
    assert ok.json() == {"challenge": "ch-2"} and bad.status_code == 401 and event.status_code == 200


def test_the_same_event_delivered_three_times_is_one_fact(client, wakeups):
    for _ in range(3):
        assert post(client, message_event(event_id="ev_dup")).status_code == 200
    assert len(message_facts(client)) == 1 and wakeups == [1]


def test_the_same_event_delivered_concurrently_is_one_fact(client):
    with ThreadPoolExecutor(max_workers=3) as pool:
        statuses = list(pool.map(lambda _: post(client, message_event(event_id="ev_race")).status_code, range(3)))
    assert statuses == [200, 200, 200] and len(message_facts(client)) == 1


def test_a_message_from_an_unknown_sender_is_recorded_without_a_person(client):
    post(client, message_event(open_id="ou_stranger"))
    [fact] = message_facts(client)
    assert (
        fact["content"]["person_id"] is None
        and fact["person_refs"] == []
        and fact["content"]["external_user_id"] == "ou_stranger"
    )


def test_a_group_message_mentioning_the_bot_is_marked_as_addressed_to_it(client):
    mentions = [mention("@_user_1", BOT, "Deputy", bot=True), mention("@_user_2", "ou_lisi", "李四")]
    post(
        client,
        message_event(chat_type="group", chat_id="oc_team", text="@_user_1 /ask @_user_2 进度？", mentions=mentions),
    )
    [fact] = message_facts(client)
    content = fact["content"]
    assert content["chat_type"] == "group" and content["chat_id"] == "oc_team" and content["mentions_bot"] is True
    assert content["text"] == "@Deputy /ask @李四 进度？"
    assert content["mentions"][1] == {"external_user_id": "ou_lisi", "name": "李四", "is_bot": False}


def test_other_event_types_are_acknowledged_and_nothing_is_written(client, wakeups):
    event = message_event()
    event["header"]["event_type"] = "im.chat.member.bot.added_v1"
    response = post(client, event)
    assert response.status_code == 200 and message_facts(client) == [] and wakeups == []


def test_a_body_that_is_not_json_is_a_400(client):
    response = client.post(URL, content=b"not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "malformed_json"


def test_json_nested_too_deep_is_400_before_authentication(client, wakeups):
    raw = ("[" * 1200 + "]" * 1200).encode()
    response = client.post(URL, content=raw, headers={"Content-Type": "application/json"})  # unsigned, unencrypted
    assert response.status_code == 400 and response.json()["error"]["code"] == "too_deep"
    assert message_facts(client) == [] and wakeups == []


def test_a_decrypted_event_nested_too_deep_is_400_and_nothing_is_written(client, wakeups):
    event = message_event(event_id="ev_deep")
    event["event"]["extra"] = json.loads("[" * 900 + "]" * 900)
    response = post(client, event)
    assert response.status_code == 400 and response.json()["error"]["code"] == "too_deep"
    assert message_facts(client) == [] and wakeups == []


def set_aside(client) -> list[dict]:
    items = client.get("/v1/facts", params={"fact_type": "system"}).json()["items"]
    return [f["content"] for f in items if f["content"].get("event") == "inbound_event_set_aside"]


def test_content_nested_too_deep_inside_its_string_is_acknowledged_and_set_aside(client, wakeups):
    deep = json.loads("[" * 900 + "]" * 900)  # JSON inside message.content's string: unseen until it is parsed
    response = post(client, message_event(event_id="ev_deep", content={"text": "x", "extra": deep}))
    assert response.status_code == 200 and response.json() == {"msg": "success"}
    [aside] = set_aside(client)
    assert aside["event_id"] == "ev_deep" and "nested deeper" in aside["reason"]
    assert message_facts(client) == []


@pytest.mark.parametrize("part", ["text", "chat_id", "mention_name"])
def test_a_decrypted_event_with_a_nul_character_is_acknowledged_and_set_aside_saying_why(ctx, client, wakeups, part):
    add_person(ctx, bindings=[{"channel": "feishu", "external_user_id": "ou_zhangsan"}])
    if part == "text":  # inside message.content, JSON in a string: the escape is only a NUL once that is parsed
        event = message_event(event_id="ev_nul", text="提测\u0000明天")
    elif part == "chat_id":
        event = message_event(event_id="ev_nul", chat_id="oc_\u0000")
    else:
        event = message_event(
            event_id="ev_nul", text="@_user_1 hi", mentions=[mention("@_user_1", "ou_lisi", "李\u0000四")]
        )
    response = post(client, event)
    assert response.status_code == 200 and response.json() == {"msg": "success"}  # Feishu retries anything else
    [aside] = set_aside(client)
    assert aside["channel"] == "feishu" and aside["event_id"] == "ev_nul" and "NUL" in aside["reason"], aside
    assert message_facts(client) == []


def test_what_is_kept_of_an_event_is_its_decrypted_payload_without_the_verification_token(ctx, client):
    from sqlalchemy import select

    from perception.models import InboundEvent

    post(client, message_event(event_id="ev_kept", text="hello"))
    with ctx.db.queue_read() as session:
        [row] = session.scalars(select(InboundEvent))
    kept = json.loads(row.body)
    assert kept["header"]["event_id"] == "ev_kept" and "token" not in kept["header"] and "token" not in kept
    assert TOKEN.encode() not in row.body and KEY.encode() not in row.body and b"encrypt" not in row.body
    assert row.done_at is not None  # its fact exists (the pass ran after the answer)


def card_press(event_id: str = "ev_press_1", token: str | None = "b7take") -> dict:
    """A card.action.trigger callback (schema 2.0) as Feishu posts it to the same URL (before encryption)."""
    return {
        "schema": "2.0",
        "header": {
            "event_id": event_id,
            "token": TOKEN,
            "create_time": "1773799200000000",
            "event_type": "card.action.trigger",
            "tenant_key": "tenant_1",
            "app_id": "cli_test_app",
        },
        "event": {
            "operator": {"tenant_key": "tenant_1", "open_id": "ou_wangwu"},
            "token": "c-card-token",
            "action": {"value": {"t": token} if token else {}, "tag": "button"},
            "host": "im_message",
            "context": {"open_message_id": "om_card_1", "open_chat_id": "oc_p2p_9"},
        },
    }


def press_facts(client) -> list[dict]:
    return [f["content"] for f in client.get("/v1/facts", params={"fact_type": "button_pressed"}).json()["items"]]


def test_a_signed_encrypted_card_press_is_kept_and_answered_with_a_toast_every_delivery(client, wakeups):
    answers = [post(client, card_press()) for _ in (1, 2)]
    assert [a.status_code for a in answers] == [200, 200]
    # No such button: the read-only check says so, to the first delivery and to Feishu's retry alike.
    assert [a.json() for a in answers] == [{"toast": {"type": "info", "content": "这个按钮已失效"}}] * 2
    [press] = press_facts(client)  # Feishu's retry of the same callback is one press
    assert (press["channel"], press["event_id"], press["press_id"], press["token"]) == (
        "feishu",
        "ev_press_1",
        "ev_press_1",
        "b7take",
    )
    assert (press["external_user_id"], press["chat_id"], press["message_id"]) == ("ou_wangwu", "oc_p2p_9", "om_card_1")
    assert press["occurred_at"] == START.isoformat().replace("+00:00", "Z") and wakeups == [1]


@pytest.mark.parametrize("tamper", ["signature", "stale", "key"])
def test_an_unauthentic_card_press_gets_401_and_nothing_is_kept(client, wakeups, tamper):
    body, headers = sealed(
        card_press(),
        key="other-key" if tamper == "key" else KEY,
        at=START - timedelta(minutes=10) if tamper == "stale" else START,
    )
    if tamper == "signature":
        headers["X-Lark-Signature"] = "0" * 64
    response = client.post(URL, content=body, headers=headers)
    assert response.status_code == 401 and press_facts(client) == [] and wakeups == []


def test_a_card_press_without_a_deputy_token_is_answered_with_nothing(client, wakeups):
    response = post(client, card_press(token=None))
    assert response.status_code == 200 and response.json() == {} and press_facts(client) == [] and wakeups == []


def test_an_image_message_is_recorded_with_its_key(ctx, client):
    add_person(ctx, bindings=[{"channel": "feishu", "external_user_id": "ou_zhangsan"}])
    event = message_event(
        event_id="ev_img", message_type="file", content={"file_key": "file_v3_2", "file_name": "a.pdf"}
    )
    assert post(client, event).status_code == 200
    [fact] = message_facts(client)
    assert fact["content"]["text"] == "" and fact["content"]["media"] == {
        "kind": "file",
        "file_id": "file_v3_2",
        "file_name": "a.pdf",
        "mime_type": None,
        "size": None,
    }
