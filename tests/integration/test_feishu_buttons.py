"""Feishu cards with buttons, forwarded media, card patches, card presses by long connection and media inbound:
the real lark-oapi client (and its ws.Client) against the local fake Feishu."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from app.wiring import build_context
from channels.base import Button, MediaRef, MessageEdit, OutboundMessage
from channels.errors import InvalidRequest
from channels.feishu import FeishuChannel
from channels.feishu.events import to_inbound
from channels.feishu.longconn import start_long_connection
from channels.feishu.pacing import LocalPacer
from tests.conftest import START, make_settings
from tests.fakes import feishu_server as fs
from tests.fakes.recording_inbound import RecordingInbound

KEY = "act_20260318_007"
HANDLE, REMIND = Button("我来处理", "b7take", "primary"), Button("提醒他", "b7remind")


@pytest.fixture
def fake():
    server = fs.FakeFeishu().start()
    yield server
    server.stop()


@pytest.fixture
def feishu(fake) -> FeishuChannel:
    channel = FeishuChannel(
        app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=fake.domain, pacer=LocalPacer(max_wait=0)
    )
    channel.api.forget_token()
    return channel


def msg(text: str = "张三 2 小时没回复：提测时间", *, buttons=(), media=None, key: str = KEY) -> OutboundMessage:
    return OutboundMessage(
        idempotency_key=key, external_user_id="ou_wangwu", chat_id=None, text=text, buttons=tuple(buttons), media=media
    )


def image(channel: str = "feishu") -> MediaRef:
    return MediaRef(channel=channel, kind="image", file_id="img_v3_1", message_id="om_in_9", chat_id="oc_p2p_3")


def press_event(*, event_id: str = "ev_press_1", token: str | None = "b7take", open_id: str = "ou_wangwu") -> dict:
    """A card.action.trigger callback (schema 2.0) as Feishu sends it."""
    return {
        "schema": "2.0",
        "header": {
            "event_id": event_id,
            "token": "vtoken",
            "create_time": "1773799200000000",
            "event_type": "card.action.trigger",
            "tenant_key": "tenant_1",
            "app_id": fs.APP_ID,
        },
        "event": {
            "operator": {"tenant_key": "tenant_1", "open_id": open_id, "union_id": f"on_{open_id}"},
            "token": "c-card-token",
            "action": {"value": {"t": token} if token else {}, "tag": "button"},
            "host": "im_message",
            "context": {"open_message_id": "om_fake_1", "open_chat_id": "oc_p2p_9"},
        },
    }


def test_buttons_make_a_json_2_card_whose_buttons_carry_only_the_token(fake, feishu):
    receipt = feishu.send(msg(buttons=[HANDLE, REMIND]))
    [sent] = fake.messages
    card = json.loads(sent["content"])
    assert sent["msg_type"] == "interactive" and sent["uuid"] == KEY and card["schema"] == "2.0"
    assert card["config"]["update_multi"] is True
    assert card["body"]["elements"][0] == {"tag": "div", "text": {"tag": "plain_text", "content": msg().text}}
    assert fake.buttons(receipt.message_id) == [("我来处理", "b7take"), ("提醒他", "b7remind")]
    row = card["body"]["elements"][1]["columns"]
    assert [c["elements"][0]["behaviors"] for c in row] == [
        [{"type": "callback", "value": {"t": "b7take"}}],
        [{"type": "callback", "value": {"t": "b7remind"}}],
    ]
    assert receipt.detail["msg_type"] == "interactive" and receipt.detail["buttons_message_id"] == receipt.message_id


def test_without_buttons_a_plain_text_still_goes_as_text(fake, feishu):
    feishu.send(msg())
    assert fake.messages[0]["msg_type"] == "text"


def test_a_long_text_carries_its_buttons_on_the_last_part_only(fake, feishu):
    receipt = feishu.send(msg("第一段。\n" * 900, buttons=[HANDLE]))
    first, last = receipt.detail["message_ids"]
    assert fake.buttons(first) == [] and fake.buttons(last) == [("我来处理", "b7take")]
    assert receipt.detail["buttons_message_id"] == last


def test_media_is_forwarded_after_its_text_and_a_retry_repeats_neither(fake, feishu):
    first = feishu.send(msg("张三：测试报告", media=image()))
    again = feishu.send(msg("张三：测试报告", media=image()))
    text, forwarded = fake.messages
    assert json.loads(text["content"]) == {"text": "张三：测试报告"} and text["uuid"] == KEY
    assert (forwarded["msg_type"], forwarded["forwarded_from"], forwarded["receive_id"]) == (
        "forward",
        "om_in_9",
        "ou_wangwu",
    )
    assert forwarded["uuid"] == f"{KEY}-media" and forwarded["receive_id_type"] == "open_id"
    assert first == again and first.detail["forwarded_message_id"] == forwarded["message_id"]


def test_media_from_another_platform_is_refused_and_nothing_is_sent(fake, feishu):
    with pytest.raises(InvalidRequest) as refused:
        feishu.send(msg(media=image("telegram")))
    assert refused.value.code == "foreign_media" and refused.value.permanent and fake.messages == []


def test_an_edit_patches_the_card_in_place_and_drops_its_buttons(fake, feishu):
    receipt = feishu.send(msg(buttons=[HANDLE, REMIND]))
    edited = feishu.edit(MessageEdit(KEY + "-e", "ou_wangwu", receipt.message_id, "王五 已接手"))
    assert edited.detail == {"edited": True} and fake.buttons(receipt.message_id) == []
    assert fake.card(receipt.message_id)["body"]["elements"] == [
        {"tag": "div", "text": {"tag": "plain_text", "content": "王五 已接手"}}
    ]
    assert len(fake.messages) == 1 and [p["message_id"] for p in fake.patches] == [receipt.message_id]


def test_a_text_message_cannot_be_edited(fake, feishu):
    receipt = feishu.send(msg())
    with pytest.raises(InvalidRequest) as refused:
        feishu.edit(MessageEdit(KEY + "-e", "ou_wangwu", receipt.message_id, "王五 已接手"))
    assert refused.value.code == "edit_unsupported" and refused.value.permanent and fake.patches == []


def test_a_card_with_buttons_and_its_edit_show_person_markup_as_the_characters_written(fake, feishu):
    receipt = feishu.send(msg(fs.PERSON_MARKUP, buttons=[HANDLE]))
    plain = {"tag": "div", "text": {"tag": "plain_text", "content": fs.PERSON_MARKUP}}
    assert fake.card(receipt.message_id)["body"]["elements"][0] == plain
    assert fake.buttons(receipt.message_id) == [("我来处理", "b7take")]
    feishu.edit(MessageEdit(KEY + "-e", "ou_wangwu", receipt.message_id, "已转达：\n" + fs.PERSON_MARKUP))
    edited = {"tag": "div", "text": {"tag": "plain_text", "content": "已转达：\n" + fs.PERSON_MARKUP}}
    assert fake.card(receipt.message_id)["body"]["elements"] == [edited]


def test_an_edit_over_one_card_is_cut_at_a_word_and_ends_with_its_note(fake, feishu):
    receipt = feishu.send(msg(buttons=[HANDLE]))
    note = "(Cut short: the whole text is in the console: https://deputy.example/console/actions/act_9)"
    edit = MessageEdit(KEY + "-e", "ou_wangwu", receipt.message_id, "status fine " * 900, cut_note=note)
    edited = feishu.edit(edit)
    [element] = fake.card(receipt.message_id)["body"]["elements"]
    said = element["text"]["content"]
    assert edited.detail == {"edited": True, "cut": True} and said.endswith(f"fine…\n{note}")
    assert len(said) <= 4000 and fake.requests[-1].size <= 30_000


def test_the_fake_refuses_a_patch_over_30_kb_as_feishu_does(fake, feishu):
    from lark_oapi.api.im.v1 import PatchMessageRequest, PatchMessageRequestBody

    receipt = feishu.send(msg(buttons=[HANDLE]))
    big = json.dumps(
        {
            "schema": "2.0",
            "config": {"update_multi": True},
            "body": {"elements": [{"tag": "div", "text": {"tag": "plain_text", "content": "字" * 11_000}}]},
        },
        ensure_ascii=False,
    )
    body = PatchMessageRequestBody.builder().content(big).build()
    request = PatchMessageRequest.builder().message_id(receipt.message_id).request_body(body).build()
    api = feishu.api
    with pytest.raises(InvalidRequest) as refused:
        api.call(lambda option: api.client.im.v1.message.patch(request, option), what="im.v1.message.patch")
    assert refused.value.code == 230025 and fake.patches == []


def test_answering_a_press_calls_nothing_the_toast_goes_in_the_callback_answer(fake, feishu):
    feishu.answer_press(press_id="ev_press_1", text="收到")
    assert fake.requests == []


@pytest.mark.parametrize(
    "message_type, content, kind, file_id, file_name, text",
    [
        ("image", {"image_key": "img_v3_1"}, "image", "img_v3_1", None, ""),
        ("file", {"file_key": "file_v3_2", "file_name": "报告.pdf"}, "file", "file_v3_2", "报告.pdf", ""),
        ("audio", {"file_key": "file_v3_3", "duration": 3000}, "audio", "file_v3_3", None, ""),
        (
            "media",
            {"file_key": "file_v3_4", "image_key": "img_5", "file_name": "a.mp4"},
            "video",
            "file_v3_4",
            "a.mp4",
            "",
        ),
        ("sticker", {"file_key": "file_v3_6"}, "sticker", "file_v3_6", None, ""),
        (
            "post",
            {
                "zh_cn": {
                    "title": "周报",
                    "content": [[{"tag": "text", "text": "见图"}], [{"tag": "img", "image_key": "i"}]],
                }
            },
            "post",
            "",
            None,
            "周报\n见图",
        ),
    ],
)
def test_media_messages_are_recorded_with_their_key_and_any_text(message_type, content, kind, file_id, file_name, text):
    message = to_inbound(fs.message_event(message_type=message_type, content=content))
    assert message.text == text
    assert (message.media.kind, message.media.file_id, message.media.file_name) == (kind, file_id, file_name)


def test_a_post_without_images_is_only_text():
    content = {"zh_cn": {"title": "", "content": [[{"tag": "text", "text": "明天给"}]]}}
    message = to_inbound(fs.message_event(message_type="post", content=content))
    assert message.text == "明天给" and message.media is None


def wait_for(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    return bool(condition())


@pytest.fixture
def ws_ctx(database_url, clock, fake):
    import lark_oapi.ws.client as ws_client

    fake.start_long_connection()
    settings = make_settings(
        database_url, feishu_app_id=fs.APP_ID, feishu_app_secret=fs.APP_SECRET, feishu_bot_open_id="ou_bot"
    )
    settings.feishu_mode, settings.feishu_domain = "websocket", fake.domain
    context = build_context(settings, clock=clock)
    captured = ws_client.loop
    yield context
    ws_client.loop = captured
    context.close()


def test_a_press_over_the_long_connection_is_handed_over_and_answered_with_the_toast(ws_ctx, fake):
    inbound = RecordingInbound(toast="已由你处理")
    connection = start_long_connection(ws_ctx, inbound=inbound)
    try:
        answer = fake.push_event(press_event())
        repeat = fake.push_event(press_event())
        message = fake.push_event(
            fs.message_event(event_id="ev_img", message_type="image", content={"image_key": "k1"})
        )
        assert wait_for(lambda: inbound.wakes >= 3)
    finally:
        connection.stop()
    assert answer == repeat == {"code": 200, "data": {"toast": {"type": "info", "content": "已由你处理"}}}
    assert message["code"] == 200
    [press] = inbound.presses
    assert (press.channel, press.event_id, press.press_id, press.token) == (
        "feishu",
        "ev_press_1",
        "ev_press_1",
        "b7take",
    )
    assert (press.external_user_id, press.chat_id, press.message_id) == ("ou_wangwu", "oc_p2p_9", "om_fake_1")
    assert press.occurred_at == START
    [image_message] = inbound.messages
    assert image_message.media.kind == "image" and image_message.media.file_id == "k1"


def test_a_press_without_a_token_over_the_long_connection_is_answered_with_nothing(ws_ctx, fake):
    inbound = RecordingInbound()
    connection = start_long_connection(ws_ctx, inbound=inbound)
    try:
        answer = fake.push_event(press_event(token=None))
    finally:
        connection.stop()
    assert answer["code"] == 200 and not answer.get("data") and inbound.presses == []
