"""The Feishu channel: the real lark-oapi client against a local fake Feishu, alone and through the action layer."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import redis

from action import service
from app.settings import Settings
from app.wiring import default_channels
from channels.base import Button, OutboundMessage
from channels.errors import InvalidRequest, Paced, RateLimited, Transient, Unreachable
from channels.feishu import FeishuChannel
from channels.feishu.pacing import LocalPacer, RedisPacer
from tests.fakes import feishu_server as fs
from tests.fakes.memory_channel import MemoryChannel
from tests.fakes.pace_clock import FakeTime
from tests.integration.action_helpers import add_person, notify

ACTION = "act_20260318_001"


@pytest.fixture
def fake():
    server = fs.FakeFeishu().start()
    yield server
    server.stop()


def make_channel(fake: fs.FakeFeishu, **kw) -> FeishuChannel:
    channel = FeishuChannel(
        app_id=fs.APP_ID, app_secret=fs.APP_SECRET, domain=fake.domain, **{"pacer": LocalPacer(max_wait=0), **kw}
    )
    channel.api.forget_token()  # a port reused from an earlier test must not inherit its token
    return channel


@pytest.fixture
def feishu(fake) -> FeishuChannel:
    return make_channel(fake)


def msg(
    text: str = "明早10点开会", *, key: str = ACTION, to: str = "ou_zhangsan", chat_id: str | None = None
) -> OutboundMessage:
    return OutboundMessage(idempotency_key=key, external_user_id=to, chat_id=chat_id, text=text)


def message_posts(fake: fs.FakeFeishu) -> list[fs.Seen]:
    return [r for r in fake.requests if r.path == "/open-apis/im/v1/messages"]


def test_a_text_goes_to_the_open_id_with_the_action_id_as_uuid(fake, feishu):
    receipt = feishu.send(msg())
    [sent] = fake.messages
    assert sent["uuid"] == ACTION and sent["receive_id_type"] == "open_id" and sent["receive_id"] == "ou_zhangsan"
    assert sent["msg_type"] == "text" and json.loads(sent["content"]) == {"text": "明早10点开会"}
    assert receipt.message_id == sent["message_id"]
    assert message_posts(fake)[0].headers["authorization"] == "Bearer t-fake-1"


def test_a_binding_with_a_chat_id_is_sent_to_that_chat(fake, feishu):
    feishu.send(msg(chat_id="oc_team"))
    assert fake.messages[0]["receive_id_type"] == "chat_id" and fake.messages[0]["receive_id"] == "oc_team"


def test_the_same_action_sent_twice_is_one_message_on_the_platform(fake, feishu):
    first, second = feishu.send(msg()), feishu.send(msg())
    assert first.message_id == second.message_id and len(fake.messages) == 1


def test_the_tenant_token_is_fetched_once_and_reused(fake, feishu):
    feishu.send(msg(key="act_20260318_001"))
    feishu.send(msg(key="act_20260318_002"))
    assert fake.tokens_issued == 1


def test_an_expired_token_is_refreshed_once_and_the_call_retried_once(fake, feishu):
    feishu.send(msg(key="act_20260318_001"))
    fake.expire_tokens()
    receipt = feishu.send(msg(key="act_20260318_002"))
    assert fake.tokens_issued == 2 and receipt.message_id == fake.messages[-1]["message_id"]
    assert [r.headers["authorization"] for r in message_posts(fake)] == [
        "Bearer t-fake-1",
        "Bearer t-fake-1",
        "Bearer t-fake-2",
    ]


def test_a_token_rejected_again_after_the_refresh_is_transient_and_not_retried_further(fake, feishu):
    fake.script("messages", fs.TOKEN_EXPIRED, fs.TOKEN_EXPIRED, fs.delivered())
    with pytest.raises(Transient) as caught:
        feishu.send(msg())
    assert caught.value.code == 99991663 and fake.tokens_issued == 2 and len(message_posts(fake)) == 2


@pytest.mark.parametrize("reply", [fs.NO_AVAILABILITY, fs.BOT_NOT_IN_CHAT], ids=["230013", "230002"])
def test_no_availability_and_bot_outside_the_chat_are_permanently_unreachable(fake, feishu, reply):
    fake.script("messages", reply)
    with pytest.raises(Unreachable) as caught:
        feishu.send(msg())
    assert caught.value.permanent and caught.value.code == reply.body["code"]


def test_frequency_limits_are_rate_limited_with_the_reset_time(fake, feishu):
    fake.script("messages", fs.TOO_MANY_REQUESTS, fs.code(230020, "This chat is sending messages too frequently."))
    with pytest.raises(RateLimited) as caught:
        feishu.send(msg())
    assert caught.value.code == 99991400 and caught.value.retry_after == 3
    with pytest.raises(RateLimited):
        feishu.send(msg())


@pytest.mark.parametrize("reply", [fs.SERVER_ERROR, fs.NOT_JSON], ids=["5xx", "not-json"])
def test_server_errors_and_unreadable_answers_are_transient(fake, feishu, reply):
    fake.script("messages", reply)
    with pytest.raises(Transient) as caught:
        feishu.send(msg())
    assert not caught.value.permanent


def test_other_platform_codes_are_invalid_requests(fake, feishu):
    fake.script("messages", fs.code(230001, "invalid receive_id"))
    with pytest.raises(InvalidRequest) as caught:
        feishu.send(msg())
    assert caught.value.code == 230001


def test_a_timeout_after_sending_may_have_delivered(fake):
    channel = make_channel(fake, timeout=0.2)
    channel.api.tenant_token()  # the token call itself is quick
    fake.script("messages", fs.Reply(200, {"code": 0, "data": {"message_id": "om_late"}}, delay=1.0))
    with pytest.raises(Transient) as caught:
        channel.send(msg())
    assert caught.value.possibly_delivered


def test_a_connection_dropped_after_sending_may_have_delivered(fake, feishu):
    fake.script("messages", fs.Reply(hang_up=True))
    with pytest.raises(Transient) as caught:
        feishu.send(msg())
    assert caught.value.possibly_delivered


def test_an_unreachable_server_is_transient_and_not_delivered(fake, feishu):
    feishu.api.tenant_token()
    fake.stop()
    with pytest.raises(Transient) as caught:
        feishu.send(msg())
    assert not caught.value.possibly_delivered


def test_long_text_is_split_into_parts_with_uuids_derived_from_the_action_id(fake, feishu):
    text = "\n".join(f"第{n}段：" + "进度正常，" * 40 for n in range(60))  # ~12 000 characters
    receipt = feishu.send(msg(text))
    sent = fake.sent_to("ou_zhangsan")
    assert len(sent) == receipt.detail["parts"] >= 3
    assert [m["uuid"] for m in sent] == [f"{ACTION}-{n}" for n in range(1, len(sent) + 1)]
    assert "\n".join(json.loads(m["content"])["text"] for m in sent) == text
    assert receipt.message_id == sent[0]["message_id"] and receipt.detail["message_ids"] == [
        m["message_id"] for m in sent
    ]


def test_a_part_failing_after_earlier_parts_arrived_reports_possible_delivery(fake, feishu):
    fake.script("messages", fs.delivered("om_part_1"), fs.SERVER_ERROR)
    with pytest.raises(Transient) as caught:
        feishu.send(msg("字" * 6000))
    assert caught.value.possibly_delivered and "part 2 of 2" in caught.value.message


def test_person_markdown_a_text_message_does_not_parse_goes_as_text_shown_as_typed(fake, feishu):
    text = "本周进度：\n- 后端完成\n- 前端进行中\n\n| 模块 | 状态 |\n|---|---|\n| 后端 | 完成 |\n# 标题 ~~旧~~ `code`"
    receipt = feishu.send(msg(text))
    [sent] = fake.messages
    assert sent["msg_type"] == "text" and receipt.detail["msg_type"] == "text"
    assert json.loads(sent["content"]) == {"text": text}


@pytest.mark.parametrize(
    "text",
    ['<at user_id="all">所有人</at> 今晚加班', "<b>重要</b> 与 <s>旧方案</s>", "见 [纪要](ftp://x.example)"],
)
def test_person_text_a_text_message_would_parse_goes_as_a_card_shown_as_written(fake, feishu, text):
    receipt = feishu.send(msg(text))
    [sent] = fake.messages
    assert sent["msg_type"] == "interactive" and receipt.detail["msg_type"] == "interactive"
    assert json.loads(sent["content"])["body"]["elements"] == [
        {"tag": "div", "text": {"tag": "plain_text", "content": text}}
    ]


def test_person_text_with_every_markup_kind_arrives_through_the_sdk_as_the_characters_written(fake, feishu):
    receipt = feishu.send(msg(fs.PERSON_MARKUP))
    [sent] = fake.messages
    assert sent["msg_type"] == "interactive" and receipt.detail["msg_type"] == "interactive"
    assert json.loads(sent["content"])["body"]["elements"] == [
        {"tag": "div", "text": {"tag": "plain_text", "content": fs.PERSON_MARKUP}}
    ]


def test_a_brief_keeps_its_bold_headers_and_shows_the_answers_in_it_as_written(fake, feishu):
    answer = "李四：**好的** <at id=all></at> [纪要](https://evil.example)"
    feishu.send(msg(f"**今日简报 · 3月18日**\n\n**收到的回复（1）**\n{answer}\n\n**还在等（0）**"))
    [sent] = fake.messages
    assert json.loads(sent["content"])["body"]["elements"] == [
        {"tag": "markdown", "content": "**今日简报 · 3月18日**"},
        {"tag": "markdown", "content": "**收到的回复（1）**"},
        {"tag": "div", "text": {"tag": "plain_text", "content": answer}},
        {"tag": "markdown", "content": "**还在等（0）**"},
    ]


def test_a_text_over_what_one_card_holds_goes_in_cards_feishu_takes(fake, feishu):
    text = "".join(f"**第{n}节**\n第{n}节：进度正常\n" for n in range(150))  # 450 elements in one card
    receipt = feishu.send(msg(text))
    sent = fake.sent_to("ou_zhangsan")
    assert receipt.detail["parts"] == len(sent) >= 3 and {m["msg_type"] for m in sent} == {"interactive"}
    assert all(r.size <= 30_000 for r in message_posts(fake))
    said = [
        e.get("content") or e["text"]["content"] for m in sent for e in json.loads(m["content"])["body"]["elements"]
    ]
    assert said == [line for n in range(150) for line in (f"**第{n}节**", f"第{n}节：进度正常")]


def test_a_card_over_30_kb_is_split_and_its_buttons_ride_on_the_last_part(fake, feishu):
    buttons = tuple(Button("稍后再说" * 8, f"b{n}later" + "x" * 30) for n in range(12))
    receipt = feishu.send(replace(msg("**日报**\n" + "\x01" * 3900), buttons=buttons))
    first, last = fake.sent_to("ou_zhangsan")
    assert all(r.size <= 30_000 for r in message_posts(fake))
    assert fake.buttons(first["message_id"]) == [] and len(fake.buttons(last["message_id"])) == 12
    assert receipt.detail["buttons_message_id"] == last["message_id"]


def test_the_fake_refuses_a_card_of_over_200_elements_and_an_element_without_content_like_feishu(fake, feishu):
    many = {"schema": "2.0", "body": {"elements": [{"tag": "markdown", "content": "x"}] * 201}}
    broken = {"schema": "2.0", "body": {"elements": [{"tag": "div", "text": {"tag": "plain_text"}}]}}
    for card, ext in ((many, "300305"), (broken, "200621")):
        with pytest.raises(InvalidRequest) as refused:
            feishu._create("open_id", "ou_zhangsan", "interactive", json.dumps(card), uuid=ext)
        assert refused.value.code == 230099 and ext in refused.value.message
    assert fake.messages == []


def test_a_uuid_repeated_after_an_hour_sends_a_new_message_like_feishu(fake, feishu):
    first = feishu.send(msg())
    fake.advance(3601)
    second = feishu.send(msg())
    assert first.message_id != second.message_id and len(fake.messages) == 2


def test_an_idempotency_key_over_feishus_50_character_uuid_is_shortened_stably(fake, feishu):
    first, second = feishu.send(msg(key="a" * 60)), feishu.send(msg(key="a" * 60))  # the fake refuses 51+
    assert first.message_id == second.message_id and len(fake.messages) == 1
    assert len(fake.messages[0]["uuid"]) == 50


def test_a_sixth_message_to_one_receiver_within_a_second_is_paced_without_sending(fake):
    channel = make_channel(fake, pacer=LocalPacer(max_wait=0, clock=lambda: 100.0))
    for n in range(5):
        channel.send(msg(key=f"act_20260318_00{n + 1}"))
    with pytest.raises(Paced) as caught:
        channel.send(msg(key="act_20260318_006"))
    assert caught.value.retry_after == 1.0 and caught.value.code == "pacing" and len(fake.messages) == 5
    channel.send(msg(key="act_20260318_007", to="ou_lisi"))  # another receiver has its own budget


def test_a_message_in_parts_is_paced_whole_and_never_cut_by_our_own_pace(fake):
    t = FakeTime()
    channel = make_channel(fake, pacer=LocalPacer(clock=t.clock, sleep=t.sleep))
    for n in range(4):
        channel.send(msg(key=f"act_20260318_00{n + 1}"))
    with pytest.raises(Paced):
        channel.send(msg("字" * 6000, key="act_20260318_005"))  # two parts, one free slot: nothing goes
    assert len(fake.messages) == 4
    t.now += 1.0
    receipt = channel.send(msg("字" * 6000, key="act_20260318_005"))
    assert receipt.detail["parts"] == 2
    assert [m["uuid"] for m in fake.messages[4:]] == ["act_20260318_005-1", "act_20260318_005-2"]
    t.now += 1.0
    receipt = channel.send(msg("字" * 28000, key="act_20260318_008"))  # seven parts: five now, two a second later
    assert receipt.detail["parts"] == 7 and len(fake.messages) == 13 and t.slept == [1.0]


def test_the_channel_is_registered_from_settings_unless_dry_run():
    creds = {"feishu_app_id": "cli_x", "feishu_app_secret": "s"}
    assert isinstance(default_channels(Settings(_env_file=None, **creds)).get("feishu"), FeishuChannel)
    assert not isinstance(
        default_channels(Settings(_env_file=None, dry_run_channels="feishu", **creds)).get("feishu"), FeishuChannel
    )
    assert default_channels(Settings(_env_file=None)).get("feishu") is None
    client = redis.Redis.from_url("redis://127.0.0.1:6379/0")
    shared = default_channels(
        Settings(_env_file=None, redis_url="redis://127.0.0.1:6379/0", **creds), redis=client
    ).get("feishu")
    assert (
        isinstance(shared.pacer, RedisPacer) and shared.health().ok
    )  # pacing across processes, on the service's one client
    assert shared.pacer._redis is client


# ---- through the action layer -----------------------------------------------------------------------


@pytest.fixture
def wired(ctx, feishu):
    telegram = MemoryChannel("telegram")
    ctx.channels.register(feishu)
    ctx.channels.register(telegram)
    add_person(ctx, policy={"preferred_channel": "feishu"})
    return telegram


def test_an_action_sends_on_feishu_with_its_action_id_as_uuid(ctx, fake, wired):
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "feishu"
    assert (
        fake.messages[0]["uuid"] == record.action_id
        and record.result_detail["message_id"] == fake.messages[0]["message_id"]
    )


def test_no_availability_falls_back_and_marks_the_feishu_binding_unreachable(ctx, client, fake, wired):
    fake.script("messages", fs.NO_AVAILABILITY)
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "telegram"
    attempts = record.result_detail["attempts"]
    assert [a["channel"] for a in attempts] == ["feishu", "telegram"]
    assert attempts[0]["error"] == "unreachable" and attempts[0]["code"] == 230013 and attempts[0]["permanent"] is True
    assert wired.texts_to("tg_p_zhangsan") == ["明早10点开会"]
    person = client.get("/v1/persons/p_zhangsan").json()
    assert {b["channel"]: b["reachable"] for b in person["channel_bindings"]} == {"feishu": False, "telegram": True}
    changes = client.get("/v1/facts", params={"fact_type": "person_changed", "person_id": "p_zhangsan"}).json()["items"]
    assert changes[0]["content"]["change"] == "binding_unreachable" and changes[0]["content"]["channel"] == "feishu"


def test_a_rate_limited_feishu_send_falls_back_and_keeps_the_binding(ctx, client, fake, wired):
    fake.script("messages", fs.TOO_MANY_REQUESTS)
    record = service.execute(ctx, request=notify())
    assert record.result == "success" and record.channel == "telegram"
    assert record.result_detail["attempts"][0] == {
        "channel": "feishu",
        "error": "rate_limited",
        "message": record.result_detail["attempts"][0]["message"],
        "code": 99991400,
        "retry_after": 3.0,
    }
    person = client.get("/v1/persons/p_zhangsan").json()
    assert all(b["reachable"] for b in person["channel_bindings"])


def test_a_feishu_server_error_falls_back_as_transient(ctx, fake, wired):
    fake.script("messages", fs.SERVER_ERROR)
    record = service.execute(ctx, request=notify())
    assert record.channel == "telegram" and record.result_detail["attempts"][0]["error"] == "transient"
