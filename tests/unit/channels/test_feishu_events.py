"""Feishu event conversion and authentication, pure: no database, no network."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from channels.feishu import content
from channels.feishu.crypto import Rejected, decrypt, open_event, signature
from channels.feishu.events import message_text, to_inbound
from kernel.errors import Invalid
from kernel.screening import TooDeep
from tests.fakes.feishu_server import encrypt, mention, message_event, signed_headers

KEY, TOKEN = "encrypt-key-1", "vtoken"
NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)


def _open(
    body: bytes, headers: dict[str, str], *, token: str | None = TOKEN, key: str | None = KEY, now: datetime = NOW
):
    return open_event(body, headers, verification_token=token, encrypt_key=key, now=now)


def _encrypted(payload: dict, *, key: str = KEY, timestamp: int | None = None) -> tuple[bytes, dict[str, str]]:
    body = json.dumps({"encrypt": encrypt(key, json.dumps(payload))}).encode()
    return body, signed_headers(body, key, timestamp=int(NOW.timestamp()) if timestamp is None else timestamp)


def test_a_p2p_text_message_becomes_an_inbound_message():
    message = to_inbound(
        message_event(event_id="ev_9", open_id="ou_a", text="提测什么时候能给？", parent_id="om_bot_1")
    )
    assert message is not None
    assert (message.channel, message.event_id, message.message_id, message.chat_id) == (
        "feishu",
        "ev_9",
        "om_in_1",
        "oc_p2p_1",
    )
    assert (message.chat_type, message.external_user_id, message.text) == ("p2p", "ou_a", "提测什么时候能给？")
    assert message.reply_to_message_id == "om_bot_1" and message.mentions == [] and message.mentions_bot is False
    assert message.occurred_at == datetime(2026, 3, 18, 2, 0, tzinfo=UTC)


def test_mention_placeholders_become_names_and_the_bot_mention_is_recognised_by_open_id():
    mentions = [mention("@_user_1", "ou_bot", "Deputy", bot=True), mention("@_user_2", "ou_zs", "张三")]
    event = message_event(
        chat_type="group", chat_id="oc_group", text="@_user_1 /ask @_user_2 提测？", mentions=mentions
    )
    message = to_inbound(event, bot_open_id="ou_bot")
    assert message.chat_type == "group" and message.text == "@Deputy /ask @张三 提测？"
    assert message.mentions_bot is True
    assert [(m.external_user_id, m.name, m.is_bot) for m in message.mentions] == [
        ("ou_bot", "Deputy", True),
        ("ou_zs", "张三", False),
    ]


def test_with_a_configured_bot_open_id_another_bots_mention_is_not_ours():
    event = message_event(
        chat_type="group", text="@_user_1 hi", mentions=[mention("@_user_1", "ou_other_bot", "Other", bot=True)]
    )
    assert to_inbound(event, bot_open_id="ou_bot").mentions_bot is False
    assert to_inbound(event, bot_open_id=None).mentions_bot is True  # unset: Feishu's mentioned_type decides


def test_placeholder_keys_are_replaced_whole_so_user_10_is_not_read_as_user_1():
    mentions = [{"key": f"@_user_{n}", "name": f"n{n}", "id": {"open_id": f"ou_{n}"}} for n in range(1, 11)]
    assert message_text("text", json.dumps({"text": "@_user_10 @_user_1"}), mentions) == "@n10 @n1"


def test_rich_text_posts_give_their_text_and_other_message_types_give_empty_text():
    post = {
        "title": "周报",
        "content": [[{"tag": "text", "text": "进度 "}, {"tag": "a", "text": "链接", "href": "https://x"}]],
    }
    assert to_inbound(message_event(message_type="post", content=post)).text == "周报\n进度 链接"
    assert to_inbound(message_event(message_type="image", content={"image_key": "img_1"})).text == ""


def test_other_events_and_non_user_senders_convert_to_nothing():
    other = message_event()
    other["header"]["event_type"] = "im.message.message_read_v1"
    assert to_inbound(other) is None
    from_app = message_event()
    from_app["event"]["sender"]["sender_type"] = "app"
    assert to_inbound(from_app) is None


@pytest.mark.parametrize("mentions", [True, "@_user_1", {"key": "@_user_1"}, 7])
def test_mentions_that_are_not_a_list_are_ignored(mentions):
    event = message_event(text="@_user_1 hi")
    event["event"]["message"]["mentions"] = mentions
    message = to_inbound(event)
    assert message is not None and message.mentions == [] and message.text == "@_user_1 hi"


@pytest.mark.parametrize("create_time", ["32503680000000", "-1000", "x", str(10**30)])
def test_a_create_time_outside_the_sane_range_reads_as_the_epoch(create_time):
    event = message_event()
    event["event"]["message"]["create_time"] = create_time
    assert to_inbound(event).occurred_at == datetime(1970, 1, 1, tzinfo=UTC)


def test_message_content_nested_too_deep_or_holding_nul_is_refused_before_it_is_parsed():
    with pytest.raises(TooDeep):
        message_text("text", '{"text": "x", "extra": %s}' % ("[" * 5000 + "]" * 5000), [])
    with pytest.raises(Invalid) as refused:
        message_text("text", json.dumps({"text": "a\u0000b"}), [])
    assert refused.value.field == "text"


def test_decrypt_reverses_feishu_encryption():
    assert decrypt(KEY, encrypt(KEY, '{"a": "飞书"}')) == '{"a": "飞书"}'
    with pytest.raises(ValueError):
        decrypt("another-key", encrypt(KEY, '{"a": 1}'))


def test_signature_is_sha256_of_timestamp_nonce_key_and_body():
    import hashlib

    assert signature("1700000000", "n", "k", b"{}") == hashlib.sha256(b"1700000000nk{}").hexdigest()


def test_a_signed_encrypted_event_opens():
    body, headers = _encrypted(message_event(token=TOKEN))
    assert _open(body, headers).payload["header"]["event_id"] == "ev_1"


def test_headers_are_matched_whatever_their_case():
    body, headers = _encrypted(message_event())
    assert _open(body, {k.lower(): v for k, v in headers.items()}).payload["header"]["event_id"] == "ev_1"


@pytest.mark.parametrize("tamper", ["signature", "body"])
def test_a_bad_signature_is_rejected(tamper):
    body, headers = _encrypted(message_event())
    if tamper == "signature":
        headers["X-Lark-Signature"] = "0" * 64
    else:
        body = json.dumps({"encrypt": encrypt(KEY, json.dumps(message_event(event_id="ev_forged")))}).encode()
    with pytest.raises(Rejected) as caught:
        _open(body, headers)
    assert caught.value.code == "invalid_signature"


def test_a_wrong_verification_token_is_rejected():
    body, headers = _encrypted(message_event(token="not-the-token"))
    with pytest.raises(Rejected) as caught:
        _open(body, headers)
    assert caught.value.code == "invalid_token"


@pytest.mark.parametrize("offset", [-301, 301])
def test_a_request_timestamp_more_than_five_minutes_away_is_rejected(offset):
    body, headers = _encrypted(message_event(), timestamp=int(NOW.timestamp()) + offset)
    with pytest.raises(Rejected) as caught:
        _open(body, headers)
    assert caught.value.code == "stale_request"


def test_a_plain_body_is_rejected_when_an_encrypt_key_is_configured():
    with pytest.raises(Rejected) as caught:
        _open(json.dumps(message_event()).encode(), {})
    assert caught.value.code == "invalid_encryption"


def test_url_verification_needs_the_token_but_no_signature_plain_or_encrypted():
    challenge = {"challenge": "c-123", "token": TOKEN, "type": "url_verification"}
    assert _open(json.dumps(challenge).encode(), {}, key=None).challenge == "c-123"
    assert _open(json.dumps({"encrypt": encrypt(KEY, json.dumps(challenge))}).encode(), {}).challenge == "c-123"
    with pytest.raises(Rejected):
        _open(json.dumps({**challenge, "token": "wrong"}).encode(), {}, key=None)


def test_without_token_or_key_configured_every_event_is_refused():
    with pytest.raises(Rejected) as caught:
        _open(json.dumps(message_event()).encode(), {}, token=None, key=None)
    assert caught.value.code == "not_configured"


def test_long_text_splits_at_line_breaks_into_parts_within_the_bound():
    text = "\n".join(f"第{n}行：" + "字" * 90 for n in range(200))
    parts = content.split(text)
    assert len(parts) > 1 and all(len(p) <= content.MAX_PART_CHARS for p in parts)
    assert "\n".join(parts) == text
    assert content.part_uuids("act_20260318_001", 1) == ["act_20260318_001"]
    assert content.part_uuids("act_20260318_001", 3) == [
        "act_20260318_001-1",
        "act_20260318_001-2",
        "act_20260318_001-3",
    ]


def test_a_read_event_names_the_reader_the_time_and_the_messages():
    from channels.feishu.events import to_read
    from tests.fakes.feishu_server import read_event

    receipt = to_read(read_event(message_ids=["om_1", "om_2"], open_id="ou_zs", read_time_ms=1773799320000))
    assert receipt is not None and (receipt.channel, receipt.event_id, receipt.external_user_id) == (
        "feishu", "ev_read_1", "ou_zs")  # fmt: skip
    assert receipt.message_ids == ["om_1", "om_2"] and receipt.read_at == datetime(2026, 3, 18, 2, 2, tzinfo=UTC)


@pytest.mark.parametrize(
    "broken",
    [
        {"event": {"reader": {"read_time": "1773799320000"}, "message_id_list": ["om_1"]}},  # no reader
        {"event": {"reader": {"reader_id": {"open_id": "ou_zs"}, "read_time": "x"}, "message_id_list": ["om_1"]}},
        {"event": {"reader": {"reader_id": {"open_id": "ou_zs"}, "read_time": "1"}, "message_id_list": []}},
    ],
)
def test_a_read_event_without_a_reader_a_time_or_messages_is_not_a_read(broken):
    from channels.feishu.events import to_read
    from tests.fakes.feishu_server import read_event

    assert to_read({**read_event(message_ids=["om_1"]), **broken}) is None
    assert to_inbound(read_event(message_ids=["om_1"])) is None  # nor a message
