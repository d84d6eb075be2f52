"""The Telegram channel through the real python-telegram-bot client against a local fake Bot API server."""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select

from action import service
from app.settings import Settings
from app.wiring import default_channels
from channels.base import OutboundMessage
from channels.dryrun import DryRunChannel
from channels.errors import ChannelError, InvalidRequest, Paced, Transient, Unreachable
from channels.telegram import TelegramChannel, pacing
from channels.telegram.channel import PLAIN_FALLBACKS
from channels.telegram.pacing import Pacer
from channels.telegram.text import utf16_len
from fact.models import Fact
from person import service as persons
from tests.conftest import redis_url
from tests.fakes.memory_channel import MemoryChannel
from tests.fakes.pace_clock import FakeTime
from tests.fakes.telegram_server import (
    CHAT_NOT_FOUND,
    FORBIDDEN_BLOCKED,
    NOT_JSON,
    SERVER_ERROR,
    TOKEN,
    FakeTelegram,
    Reply,
    error,
    too_many_requests,
)
from tests.integration.action_helpers import add_person, notify

CHAT = "5001"


@pytest.fixture
def fake():
    server = FakeTelegram().start()
    yield server
    server.stop()


def make_channel(fake: FakeTelegram, **kw) -> TelegramChannel:
    return TelegramChannel(TOKEN, api_base=fake.base_url, **{"chat_interval": 0.01, "timeout": 5.0, **kw})


@pytest.fixture
def channel(fake):
    chan = make_channel(fake)
    yield chan
    chan.close()


def msg(text: str = "明早10点开会", chat: str = CHAT) -> OutboundMessage:
    return OutboundMessage(idempotency_key="act_20260318_001", external_user_id=chat, chat_id=chat, text=text)


@pytest.fixture
def wired(ctx, channel):
    """ctx with the real Telegram channel and an in-memory Feishu; p_zhangsan prefers Telegram."""
    feishu = MemoryChannel("feishu")
    ctx.channels.register(feishu)
    ctx.channels.register(channel)
    add_person(
        ctx,
        policy={"preferred_channel": "telegram"},
        bindings=[
            {"channel": "telegram", "external_user_id": CHAT, "chat_id": CHAT},
            {"channel": "feishu", "external_user_id": "ou_zhangsan"},
        ],
    )
    return feishu


def bindings(ctx) -> dict[str, bool]:
    with ctx.reader() as uow:
        return {b.channel: b.reachable for b in persons.bindings_of(uow, person_id="p_zhangsan")}


def test_a_sent_message_records_the_telegram_message_id(ctx, fake, wired):
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "telegram"
    [call] = fake.calls("sendMessage")
    assert call["chat_id"] == CHAT and call["text"] == "明早10点开会" and call["parse_mode"] == "HTML"
    assert record.result_detail["message_id"] == "1"
    assert record.result_detail["attempts"] == [
        {"channel": "telegram", "result": "success", "message_id": "1", "message_ids": ["1"]}
    ]
    assert wired.sent == []


def test_long_text_is_split_into_parts_of_at_most_4096_utf16_units(fake):
    chan = make_channel(fake, chat_interval=1.0)  # the real per-chat pace: the second part waits its turn
    try:
        text = "😀" * 1500 + "\n\n" + "长" * 3000  # 3002 + 3000 units: one part would be refused
        receipt = chan.send(msg(text))
    finally:
        chan.close()
    calls = fake.calls("sendMessage")
    assert [c["text"] for c in calls] == ["😀" * 1500 + "\n\n", "长" * 3000]
    assert all(utf16_len(c["text"]) <= 4096 for c in calls)
    assert receipt.message_id == "1" and receipt.detail == {"message_ids": ["1", "2"]}


def test_emoji_are_counted_as_two_units_when_splitting(channel, fake):
    receipt = channel.send(msg("😀" * 2049))
    assert [utf16_len(c["text"]) for c in fake.calls("sendMessage")] == [4096, 2]
    assert receipt.detail["message_ids"] == ["1", "2"]


def test_person_text_that_looks_like_html_arrives_as_the_characters_written_in_one_request(channel, fake):
    text = '进度 < 50% & <a href="https://evil.example/login">会议纪要</a> <b>请跟进</b>'
    receipt = channel.send(msg(text))
    [sent] = fake.calls("sendMessage")
    assert sent["parse_mode"] == "HTML" and "<a " not in sent["text"] and "<b>" not in sent["text"]
    assert fake.message(CHAT, receipt.message_id)["text"] == text  # what Telegram shows: the text, no link
    assert receipt.detail == {"message_ids": ["1"]}


def test_brief_headers_are_the_only_markup_and_go_out_bold(channel, fake):
    channel.send(msg("**今日简报**\n• 张三：a<b"))
    [sent] = fake.calls("sendMessage")
    assert sent["text"] == "<b>今日简报</b>\n• 张三：a&lt;b"


def test_html_telegram_still_refuses_is_sent_again_as_its_visible_text_and_counted(channel, fake):
    before = PLAIN_FALLBACKS.labels(method="send_message")._value.get()
    fake.script("sendMessage", error(400, "Bad Request: can't parse entities: Unsupported start tag at byte offset 0"))
    receipt = channel.send(msg("**简报**\na<b"))
    first, second = fake.calls("sendMessage")
    assert first["parse_mode"] == "HTML" and "parse_mode" not in second
    assert second["text"] == "简报\na<b"
    assert receipt.detail == {"message_ids": ["1"], "plain_text_fallback": True}
    assert PLAIN_FALLBACKS.labels(method="send_message")._value.get() == before + 1


def test_visible_text_of_4096_units_goes_in_one_message_however_long_its_escaped_form(channel, fake):
    text = "研发&测试<" * 682 + "研发&测"  # 4096 visible units; escaped, far longer
    receipt = channel.send(msg(text))
    [sent] = fake.calls("sendMessage")
    assert utf16_len(text) == 4096 and len(sent["text"]) > 4096
    assert fake.message(CHAT, receipt.message_id)["text"] == text


def test_a_split_never_tears_an_escape_and_each_part_parses(channel, fake):
    text = "研发&测试 " * 700  # 4200 visible units: two parts
    receipt = channel.send(msg(text))
    shown = [fake.message(CHAT, i)["text"] for i in receipt.detail["message_ids"]]
    assert len(shown) == 2 and "".join(shown) == text
    assert all(not c["text"].endswith("&amp") and not c["text"].startswith(";") for c in fake.calls("sendMessage"))


def test_a_blocked_bot_marks_the_binding_unreachable_and_falls_back_to_feishu(ctx, fake, wired):
    fake.script("sendMessage", FORBIDDEN_BLOCKED)
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "feishu"
    telegram, feishu = record.result_detail["attempts"]
    assert telegram == {
        "channel": "telegram",
        "error": "unreachable",
        "message": "Forbidden: bot was blocked by the user",
        "code": 403,
        "permanent": True,
    }
    assert feishu["channel"] == "feishu" and feishu["result"] == "success"
    assert wired.texts_to("ou_zhangsan") == ["明早10点开会"]
    assert bindings(ctx) == {"telegram": False, "feishu": True}
    with ctx.reader() as uow:
        changes = uow.session.scalars(select(Fact).where(Fact.fact_type == "person_changed").order_by(Fact.pk)).all()
    unreachable = [c for c in changes if c.content.get("change") == "binding_unreachable"]
    assert (
        len(unreachable) == 1
        and unreachable[0].content["channel"] == "telegram"
        and unreachable[0].person_refs == ["p_zhangsan"]
    )


def test_a_429_is_rate_limited_with_retry_after_and_falls_back_without_sleeping(ctx, fake, wired, monkeypatch):
    def no_sleep(seconds):
        raise AssertionError(f"slept {seconds}s inside a request")

    monkeypatch.setattr(pacing.time, "sleep", no_sleep)
    fake.script("sendMessage", too_many_requests(7))
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "feishu"
    attempt = record.result_detail["attempts"][0]
    assert (
        attempt["channel"] == "telegram"
        and attempt["error"] == "rate_limited"
        and attempt["retry_after"] == 7
        and attempt["code"] == 429
    )
    assert len(fake.calls("sendMessage")) == 1  # never retried
    assert bindings(ctx) == {"telegram": True, "feishu": True}


@pytest.mark.parametrize(
    "reply", [SERVER_ERROR, NOT_JSON, error(503, "Service Unavailable")], ids=["500", "non-json-502", "503"]
)
def test_server_errors_and_unreadable_error_bodies_are_transient(channel, fake, reply):
    fake.script("sendMessage", reply)
    with pytest.raises(Transient) as caught:
        channel.send(msg())
    assert not caught.value.possibly_delivered


def test_an_unreadable_success_answer_is_transient_and_possibly_delivered(channel, fake):
    fake.script("sendMessage", Reply(200, b"this is not json"))
    with pytest.raises(Transient) as caught:
        channel.send(msg())
    assert caught.value.possibly_delivered


def test_a_timeout_is_transient_and_possibly_delivered(fake):
    chan = make_channel(fake, timeout=0.3)
    fake.script("sendMessage", Reply(200, {"ok": True, "result": {}}, delay=3))
    try:
        with pytest.raises(Transient) as caught:
            chan.send(msg())
    finally:
        chan.close()
    assert caught.value.code == "timeout" and caught.value.possibly_delivered


def test_transient_failures_through_execute_fall_back_and_are_recorded(ctx, fake, wired):
    fake.script("sendMessage", SERVER_ERROR)
    record = service.execute(ctx, request=notify())
    assert record.channel == "feishu" and record.result_detail["attempts"][0]["error"] == "transient"
    assert bindings(ctx)["telegram"] is True


def test_chat_not_found_is_permanently_unreachable(channel, fake):
    fake.script("sendMessage", CHAT_NOT_FOUND)
    with pytest.raises(Unreachable) as caught:
        channel.send(msg())
    assert caught.value.permanent


def test_other_bad_requests_are_invalid_requests(channel, fake):
    fake.script("sendMessage", error(400, "Bad Request: wrong parameter action in request"))
    with pytest.raises(InvalidRequest):
        channel.send(msg())
    with pytest.raises(InvalidRequest, match="empty"):
        channel.send(msg("   "))


def test_a_message_cut_short_after_its_first_part_is_reported_delivered_not_failed_over(channel, fake):
    first = Reply(
        200,
        {
            "ok": True,
            "result": {"message_id": 77, "date": 1773799200, "chat": {"id": 5001, "type": "private"}, "text": "x"},
        },
    )
    fake.script("sendMessage", first, FORBIDDEN_BLOCKED)
    receipt = channel.send(msg("a" * 5000))
    assert receipt.message_id == "77" and receipt.detail["message_ids"] == ["77"]
    assert receipt.detail["incomplete"]["parts_total"] == 2 and receipt.detail["incomplete"]["error"] == "unreachable"


def test_a_second_message_to_the_same_chat_within_a_second_is_paced_not_delayed(fake):
    chan = make_channel(fake, chat_interval=1.0, max_wait=0.05)
    try:
        chan.send(msg())
        with pytest.raises(Paced) as caught:
            chan.send(msg())
        chan.send(msg(chat="5002"))  # another chat has its own pace
    finally:
        chan.close()
    assert 0.5 < caught.value.retry_after <= 1.0 and caught.value.code == "pacing"
    assert [c["chat_id"] for c in fake.calls("sendMessage")] == [CHAT, "5002"]


def test_three_concurrent_sends_to_one_chat_deliver_two_and_pace_the_third_without_sending_it_twice(fake):
    chan = make_channel(fake, chat_interval=0.3, max_wait=0.3)
    start = threading.Barrier(3)

    def send(n: int):
        start.wait()
        try:
            return chan.send(msg(f"第{n}条"))
        except ChannelError as exc:
            return exc

    try:
        with ThreadPoolExecutor(3) as pool:
            outcomes = list(pool.map(send, range(3)))
    finally:
        chan.close()
    paced = [o for o in outcomes if isinstance(o, ChannelError)]
    assert len(paced) == 1 and isinstance(paced[0], Paced) and paced[0].kind == "rate_limited"
    assert 0.3 < paced[0].retry_after <= 0.6 and paced[0].to_attempt()["paced"] is True
    delivered = [f"第{n}条" for n, outcome in enumerate(outcomes) if not isinstance(outcome, ChannelError)]
    assert sorted(c["text"] for c in fake.calls("sendMessage")) == sorted(delivered) and len(delivered) == 2


def test_a_long_message_holds_the_chat_so_a_concurrent_send_is_paced_and_it_arrives_whole(fake, channel):
    t = FakeTime()
    channel.pacer = Pacer(namespace=channel.bot_id, clock=t.clock, sleep=t.sleep)
    long_text = "\n\n".join(ch * 4000 for ch in "abc")
    refused: list[Paced] = []

    def meanwhile():  # another action for the same chat, while the long message waits for its second part
        if not refused:
            with pytest.raises(Paced) as caught:
                channel.send(msg("插一句"))
            refused.append(caught.value)

    t.on_sleep = meanwhile
    receipt = channel.send(msg(long_text))
    parts = [c["text"] for c in fake.calls("sendMessage")]
    assert "".join(parts) == long_text and len(parts) == 3 and "incomplete" not in receipt.detail
    assert [exc.retry_after for exc in refused] == [2.0] and t.slept == [1.0, 1.0]  # free after the last part
    channel.send(msg("插一句"))  # the slot after the last part's, 1 s away: waited for
    assert t.slept == [1.0, 1.0, 1.0] and fake.calls("sendMessage")[-1]["text"] == "插一句"


def test_the_bot_wide_pace_holds_across_chats(fake):
    chan = make_channel(fake, bot_rate=0.1, max_wait=0.05)  # one message per 10 s for the whole bot
    try:
        chan.send(msg(chat="6001"))
        with pytest.raises(Paced) as caught:
            chan.send(msg(chat="6002"))
    finally:
        chan.close()
    assert caught.value.detail == {"scope": "bot"} and len(fake.calls("sendMessage")) == 1


@pytest.mark.redis
def test_the_per_chat_pace_is_shared_by_processes_through_redis(fake):
    import redis as redis_lib

    client = redis_lib.Redis.from_url(redis_url())
    chat = f"7{uuid.uuid4().int % 10**9}"
    first, second = (make_channel(fake, redis=client, chat_interval=1.0, max_wait=0.05) for _ in range(2))
    try:
        first.send(msg(chat=chat))
        with pytest.raises(Paced):
            second.send(msg(chat=chat))
        assert 0 < client.pttl(f"deputy:telegram:123456:chat:{chat}") <= 1_000
    finally:
        first.close(), second.close()
        client.delete(f"deputy:telegram:123456:chat:{chat}")
        client.close()
    assert len(fake.calls("sendMessage")) == 1


def test_health_reports_configuration_without_calling_telegram(channel, fake):
    health = channel.health()
    assert health.ok and health.name == "telegram" and "123456" in health.detail
    assert fake.requests == []


def test_the_bot_username_is_asked_once_with_get_me(channel, fake):
    assert channel.bot_username() == "deputy_bot" and channel.bot_username() == "deputy_bot"
    assert len(fake.calls("getMe")) == 1


def test_default_channels_include_telegram_only_with_a_token_and_not_in_dry_run():
    assert default_channels(Settings(_env_file=None)).get("telegram") is None
    configured = default_channels(Settings(_env_file=None, telegram_bot_token=TOKEN)).get("telegram")
    assert isinstance(configured, TelegramChannel)
    dry = default_channels(Settings(_env_file=None, telegram_bot_token=TOKEN, dry_run_channels="telegram")).get(
        "telegram"
    )
    assert isinstance(dry, DryRunChannel)


def test_a_closed_channel_starts_again_on_the_next_send(channel, fake):
    channel.send(msg())
    channel.close()
    channel.send(msg(chat="5003"))
    assert len(fake.calls("sendMessage")) == 2
