"""Telegram buttons, edits, press answers and media through the real python-telegram-bot client and the fake API."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from channels.base import Button, MediaRef, MessageEdit, OutboundMessage
from channels.errors import InvalidRequest
from channels.telegram import TelegramChannel
from channels.telegram.polling import TelegramPoller
from tests.fakes.recording_inbound import RecordingInbound
from tests.fakes.telegram_server import QUERY_TOO_OLD, TOKEN, FakeTelegram

CHAT = "5001"
LATER, TOMORROW, NOT_ME = Button("稍后 2小时", "b1later"), Button("明天再说", "b1tmrw"), Button("不是我", "b1notme")


@pytest.fixture
def fake():
    server = FakeTelegram().start()
    server.remember("2001", 77)  # the photo a person sent, which `photo()` names
    yield server
    server.stop()


@pytest.fixture
def channel(fake):
    chan = TelegramChannel(TOKEN, api_base=fake.base_url, chat_interval=0.01, timeout=5.0)
    yield chan
    chan.close()


def msg(text: str = "张三，提测什么时候给？", *, buttons=(), media=None, key: str = "a_1") -> OutboundMessage:
    return OutboundMessage(
        idempotency_key=key, external_user_id=CHAT, chat_id=CHAT, text=text, buttons=tuple(buttons), media=media
    )


def photo(channel: str = "telegram") -> MediaRef:
    return MediaRef(channel=channel, kind="photo", file_id="AgACphoto", message_id="77", chat_id="2001")


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def test_buttons_go_under_the_message_as_one_row_of_callback_tokens(channel, fake):
    receipt = channel.send(msg(buttons=[LATER, TOMORROW, NOT_ME]))
    assert fake.keyboard(CHAT, receipt.message_id) == [
        [("稍后 2小时", "b1later"), ("明天再说", "b1tmrw"), ("不是我", "b1notme")]
    ]
    assert receipt.detail["buttons_message_id"] == receipt.message_id


def test_more_than_three_buttons_go_in_rows_of_three(channel, fake):
    buttons = [Button(f"b{n}", f"t{n}") for n in range(5)]
    receipt = channel.send(msg(buttons=buttons))
    assert [[token for _, token in row] for row in fake.keyboard(CHAT, receipt.message_id)] == [
        ["t0", "t1", "t2"],
        ["t3", "t4"],
    ]


def test_a_split_message_carries_its_buttons_on_the_last_part(channel, fake):
    receipt = channel.send(msg("第一段。" * 800 + "\n\n" + "第二段。" * 800, buttons=[LATER]))
    first, last = receipt.detail["message_ids"]
    assert fake.keyboard(CHAT, first) == [] and fake.keyboard(CHAT, last) == [[("稍后 2小时", "b1later")]]
    assert receipt.message_id == first and receipt.detail["buttons_message_id"] == last


def test_a_button_token_over_64_bytes_is_refused_before_anything_is_sent(channel, fake):
    with pytest.raises(InvalidRequest) as refused:
        channel.send(msg(buttons=[Button("x", "t" * 65)]))
    assert refused.value.permanent and fake.calls("sendMessage") == []


def test_media_is_copied_with_the_text_as_its_caption_and_the_buttons(channel, fake):
    receipt = channel.send(msg("张三：测试报告", media=photo(), buttons=[LATER]))
    [copy] = fake.calls("copyMessage")
    assert (copy["from_chat_id"], copy["message_id"], copy["caption"], copy["parse_mode"]) == (
        "2001",
        "77",
        "张三：测试报告",
        "HTML",
    )
    assert fake.calls("sendMessage") == [] and fake.keyboard(CHAT, receipt.message_id) == [[("稍后 2小时", "b1later")]]
    assert receipt.detail["media_message_id"] == receipt.message_id


def test_a_text_too_long_for_a_caption_is_cut_at_a_word_and_the_rest_follows_with_the_buttons(channel, fake):
    text = "很长的说明 " * 250  # 1500 units: over the 1024 of a caption
    receipt = channel.send(msg(text, media=photo(), buttons=[LATER]))
    [copy] = fake.calls("copyMessage")
    [sent] = fake.calls("sendMessage")
    assert len(copy["caption"]) <= 1024 and copy["caption"].endswith(" ") and "reply_markup" not in copy
    assert copy["caption"] + sent["text"] == text
    assert receipt.message_id == receipt.detail["media_message_id"] == receipt.detail["message_ids"][0]
    assert receipt.detail["buttons_message_id"] == receipt.detail["message_ids"][1]
    assert fake.keyboard(CHAT, receipt.detail["buttons_message_id"]) == [[("稍后 2小时", "b1later")]]


def test_a_caption_with_markup_characters_is_escaped_not_rendered(channel, fake):
    receipt = channel.send(msg('见 <a href="https://evil.example">附件</a>', media=photo()))
    assert fake.message(CHAT, receipt.message_id)["caption"] == '见 <a href="https://evil.example">附件</a>'


def test_copying_a_message_telegram_does_not_know_is_refused(channel, fake):
    with pytest.raises(InvalidRequest):
        channel.send(msg(media=MediaRef(channel="telegram", kind="photo", file_id="x", message_id="9", chat_id="1")))


def test_an_edit_of_person_text_is_escaped_and_a_long_caption_edit_is_cut_with_an_ellipsis(channel, fake):
    text_message = channel.send(msg())
    channel.edit(MessageEdit("a_2", CHAT, text_message.message_id, "a <i>b</i> & c"))
    assert fake.message(CHAT, text_message.message_id)["text"] == "a <i>b</i> & c"
    media = channel.send(msg("图", media=photo(), key="a_3"))
    channel.edit(MessageEdit("a_4", CHAT, media.message_id, "说明 " * 400))
    caption = fake.message(CHAT, media.message_id)["caption"]
    assert len(caption) <= 1024 and caption.endswith("说明…")


def test_an_edit_over_4096_units_is_cut_at_a_word_and_ends_with_its_note_also_on_a_caption(channel, fake):
    note = "（未完，全文见控制台：https://deputy.example/console/actions/act_9）"
    text_message = channel.send(msg(buttons=[LATER]))
    edited = channel.edit(
        MessageEdit("a_2", CHAT, text_message.message_id, "**进展**\n" + "状态 正常 " * 900, cut_note=note)
    )
    shown = fake.message(CHAT, text_message.message_id)["text"]
    kept, _, tail = shown.partition("…\n")
    assert edited.detail == {"edited": True, "cut": True} and len(shown) <= 4096 and tail == note
    assert kept.endswith(("状态", "正常")) and kept.startswith("进展\n状态 正常")  # cut after a whole word
    assert fake.calls("editMessageText")[-1]["text"].startswith("<b>进展</b>\n")  # Deputy's header stays bold
    media = channel.send(msg("图", media=photo(), key="a_3"))
    channel.edit(MessageEdit("a_4", CHAT, media.message_id, "说明 " * 400, cut_note=note))
    caption = fake.message(CHAT, media.message_id)["caption"]
    assert len(caption) <= 1024 and caption.endswith(f"说明…\n{note}")


def test_media_from_another_platform_is_refused_and_nothing_is_sent(channel, fake):
    with pytest.raises(InvalidRequest) as refused:
        channel.send(msg(media=photo("feishu")))
    assert refused.value.code == "foreign_media" and refused.value.permanent
    assert fake.calls("copyMessage") == [] == fake.calls("sendMessage")


def test_an_edit_replaces_the_text_and_removes_the_buttons(channel, fake):
    receipt = channel.send(msg(buttons=[LATER, TOMORROW]))
    edited = channel.edit(
        MessageEdit(idempotency_key="a_2", chat_id=CHAT, message_id=receipt.message_id, text="已推迟到 18:30")
    )
    shown = fake.message(CHAT, receipt.message_id)
    assert shown["text"] == "已推迟到 18:30" and fake.keyboard(CHAT, receipt.message_id) == []
    assert edited.detail == {"edited": True}


def test_an_edit_can_keep_new_buttons(channel, fake):
    receipt = channel.send(msg(buttons=[LATER]))
    channel.edit(MessageEdit("a_2", CHAT, receipt.message_id, "已推迟", buttons=(NOT_ME,)))
    assert fake.keyboard(CHAT, receipt.message_id) == [[("不是我", "b1notme")]]


def test_an_edit_to_the_same_text_and_buttons_counts_as_done(channel, fake):
    receipt = channel.send(msg("已推迟到 18:30"))
    again = channel.edit(MessageEdit("a_2", CHAT, receipt.message_id, "已推迟到 18:30"))
    assert again.detail == {"edited": False, "not_modified": True}
    assert len(fake.calls("editMessageText")) == 1


def test_editing_copied_media_edits_its_caption(channel, fake):
    receipt = channel.send(msg("张三：报告", media=photo(), buttons=[LATER]))
    edited = channel.edit(MessageEdit("a_2", CHAT, receipt.message_id, "已转达"))
    assert edited.detail["caption"] is True
    assert (
        fake.message(CHAT, receipt.message_id)["caption"] == "已转达" and fake.keyboard(CHAT, receipt.message_id) == []
    )


def test_editing_a_message_telegram_does_not_know_is_a_permanent_refusal(channel):
    with pytest.raises(InvalidRequest) as refused:
        channel.edit(MessageEdit("a_2", CHAT, "999", "已推迟"))
    assert refused.value.code == "message_gone" and refused.value.permanent


def test_a_press_is_answered_with_its_toast_cut_to_200_characters(channel, fake):
    channel.answer_press(press_id="cb77", text="已" * 250)
    [answer] = fake.calls("answerCallbackQuery")
    assert answer["callback_query_id"] == "cb77" and answer["text"] == "已" * 200


def test_the_fake_refuses_a_second_answer_to_one_callback_query_like_telegram(channel, fake):
    channel.answer_press(press_id="cb78", text="收到")
    with pytest.raises(InvalidRequest) as refused:
        channel.answer_press(press_id="cb78", text="收到")
    assert refused.value.code == "query_too_old"


def test_a_press_too_old_to_answer_is_a_permanent_refusal(channel, fake):
    fake.script("answerCallbackQuery", QUERY_TOO_OLD)
    with pytest.raises(InvalidRequest) as refused:
        channel.answer_press(press_id="cb77", text="收到")
    assert refused.value.code == "query_too_old" and refused.value.permanent


def poller(ctx, fake, inbound, channel) -> TelegramPoller:
    return TelegramPoller(
        ctx, inbound=inbound, token=TOKEN, api_base=fake.base_url, poll_timeout=1, backoff=0.01, sender=channel
    )


def test_polling_hands_a_press_over_and_answers_it_with_the_toast(ctx, fake, channel):
    inbound = RecordingInbound(toast="已推迟到 18:30")
    callback = fake.push_callback(data="b1later", user_id=2001, message_id=41)
    running = poller(ctx, fake, inbound, channel).start()
    try:
        wait_for(lambda: fake.calls("answerCallbackQuery"), "the press to be answered")
    finally:
        running.stop()
    [press] = inbound.presses
    assert (press.channel, press.event_id, press.press_id, press.token) == ("telegram", callback, callback, "b1later")
    assert (press.external_user_id, press.chat_id, press.message_id) == ("2001", "2001", "41")
    assert fake.calls("answerCallbackQuery") == [{"callback_query_id": callback, "text": "已推迟到 18:30"}]
    assert inbound.wakes == 1 and inbound.messages == []
    assert all("callback_query" in call["allowed_updates"] for call in fake.calls("getUpdates"))


@pytest.mark.parametrize("odd", ["no data", "from a bot"])
def test_polling_answers_a_callback_without_data_or_from_a_bot_and_records_nothing(ctx, fake, channel, odd):
    inbound = RecordingInbound()
    callback = fake.push_callback(data=None if odd == "no data" else "b1later", is_bot=odd == "from a bot")
    last = fake.push_message(text="after", user_id=1001)
    running = poller(ctx, fake, inbound, channel).start()
    try:
        wait_for(lambda: running.load_offset() == last + 1, "the offset past both updates")
    finally:
        running.stop()
    assert inbound.presses == [] and [m.text for m in inbound.messages] == ["after"]
    assert fake.calls("answerCallbackQuery") == [{"callback_query_id": callback}]


def test_polling_records_a_photo_with_its_caption_as_the_text(ctx, fake, channel):
    inbound = RecordingInbound()
    sizes = [
        {"file_id": "small", "file_unique_id": "s", "width": 90, "height": 90, "file_size": 1000},
        {"file_id": "large", "file_unique_id": "l", "width": 1280, "height": 960, "file_size": 90000},
    ]
    fake.push_message(text=None, photo=sizes, caption="测试报告截图")
    running = poller(ctx, fake, inbound, channel).start()
    try:
        wait_for(lambda: inbound.messages, "the photo to be recorded")
    finally:
        running.stop()
    [message] = inbound.messages
    assert message.text == "测试报告截图"
    assert message.media.model_dump() == {
        "kind": "photo",
        "file_id": "large",
        "file_name": None,
        "mime_type": None,
        "size": 90000,
    }
