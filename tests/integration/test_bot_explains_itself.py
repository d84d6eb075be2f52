"""A bot that explains itself: answers in the group, tells strangers how to get linked, help by role, passed on."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from action.models import ActionRow
from tests.integration.story_helpers import say


def _bind_code(client, person_id="p_lisi") -> str:
    return client.post(f"/v1/persons/{person_id}/bind_codes").json()["code"]


def test_a_command_in_a_group_is_answered_in_that_group(ctx, team):
    feishu, _ = team
    say(
        ctx,
        channel="feishu",
        user="ou_boss",
        text="@Deputy /help",
        chat_type="group",
        mentions_bot=True,
        chat_id="oc_team",
    )
    reply = feishu.sent[-1].message
    assert reply.chat_id == "oc_team" and reply.text.startswith("我可以帮你")
    say(ctx, channel="feishu", user="ou_boss", text="/help")  # in private: to the private chat, as before
    assert feishu.sent[-1].message.chat_id is None and feishu.sent[-1].message.external_user_id == "ou_boss"


def test_confirmations_of_a_request_made_in_a_group_are_answered_in_that_group(ctx, team):
    feishu, telegram = team
    group = {"channel": "feishu", "user": "ou_boss", "chat_type": "group", "mentions_bot": True, "chat_id": "oc_team"}
    say(ctx, text="@Deputy /ask @p_zhangsan 提测什么时候能给？", **group)
    [sent] = [d.message for d in feishu.sent if "已发给张三" in d.message.text]
    assert sent.chat_id == "oc_team" and [b.label for b in sent.buttons] == ["催一下", "取消"]
    say(ctx, text="@Deputy /tell @p_zhangsan 明早10点开会", **group)
    assert feishu.sent[-1].message.chat_id == "oc_team" and "已转告张三" in feishu.sent[-1].message.text
    say(ctx, text="@Deputy /pause 3d", **group)
    assert feishu.sent[-1].message.chat_id == "oc_team" and "暂停" in feishu.sent[-1].message.text
    assert telegram.texts_to("tg_zs")[0].endswith("提测什么时候能给？")  # the person asked is asked privately


def test_a_strangers_help_gets_one_reply_on_getting_linked_per_hour(ctx, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_stranger", text="/help")
    [reply] = [d.message for d in telegram.sent if d.message.chat_id == "chat_tg_stranger"]
    assert reply.text.startswith("你好，我还不认识你。请向管理员要一个绑定码") and "/start <code>" in reply.text
    with ctx.reader() as uow:
        row = uow.session.scalars(select(ActionRow).where(ActionRow.target_person_id.is_(None))).one()
    assert row.result == "success" and row.result_detail["chat"] == {
        "channel": "telegram",
        "chat_id": "chat_tg_stranger",
    }
    say(ctx, channel="telegram", user="tg_stranger", text="/start")
    say(ctx, channel="telegram", user="tg_stranger", text="/help")
    assert len([d for d in telegram.sent if d.message.chat_id == "chat_tg_stranger"]) == 1


def test_a_stranger_cannot_command_the_bot(ctx, team):
    feishu, telegram = team
    before = len(feishu.sent) + len(telegram.sent)
    say(ctx, channel="telegram", user="tg_stranger", text="/ask @p_zhangsan 提测什么时候能给？")
    say(ctx, channel="telegram", user="tg_stranger", text="你好")
    assert len(feishu.sent) + len(telegram.sent) == before


def test_a_wrong_or_reused_bind_code_gets_a_reply(ctx, client, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_guess", text="bind WRONGCODE1")
    assert feishu.sent[-1].message.chat_id == "chat_ou_guess"
    assert feishu.sent[-1].message.text.startswith("绑定码无效或已过期，请向管理员要一个新的。")
    code = _bind_code(client)
    say(ctx, channel="feishu", user="ou_first", text=f"bind {code}")
    say(ctx, channel="feishu", user="ou_second", text=f"bind {code}")
    assert feishu.sent[-1].message.chat_id == "chat_ou_second"
    assert feishu.sent[-1].message.text.startswith("这个绑定码已经用过了")


def test_wrong_codes_from_one_stranger_are_answered_a_few_times_an_hour(ctx, clock, team):
    feishu, _ = team
    for i in range(5):
        say(ctx, channel="feishu", user="ou_guess", text=f"bind WRONGCODE{i}")
    assert len([d for d in feishu.sent if d.message.chat_id == "chat_ou_guess"]) == 3
    clock.advance(timedelta(hours=1, minutes=1))  # an hour later: answered again
    say(ctx, channel="feishu", user="ou_guess", text="bind WRONGCODE9")
    assert len([d for d in feishu.sent if d.message.chat_id == "chat_ou_guess"]) == 4


def test_help_shows_each_person_the_commands_for_their_role(ctx, team):
    feishu, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="/help")
    member = telegram.texts_to("tg_zs")[-1]
    assert member.startswith("我可以帮你") and "/ask" not in member and "/tell" not in member and "/quiet" in member
    say(ctx, channel="feishu", user="ou_boss", text="/help")
    assert "/ask" in feishu.texts_to("ou_boss")[-1] and "/tell" in feishu.texts_to("ou_boss")[-1]
    say(ctx, channel="telegram", user="tg_ls", text="/help")
    assert "/ask" not in telegram.texts_to("tg_ls")[-1] and telegram.texts_to("tg_ls")[-1].startswith("I can:")


def test_a_usage_error_gets_the_hint_for_that_command_only(ctx, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="/pause forever")
    assert telegram.texts_to("tg_zs")[-1] == "用法：/pause 3d（支持 m 分钟、h 小时、d 天）"


def test_the_person_asked_hears_their_answer_was_passed_on(ctx, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？")
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    assert telegram.texts_to("tg_zs")[-1] == "已转告老板。"
