"""Not answers: a command (even a malformed one) and a bare acknowledgement keep the loop open and reach no one."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from concern.models import Concern
from fact.models import Fact
from tests.integration.story_helpers import say

H = timedelta(hours=1)


def _concerns(ctx) -> list[Concern]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Concern).where(Concern.kind == "question").order_by(Concern.concern_id)))


def _ask(ctx) -> Concern:
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    return _concerns(ctx)[-1]


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("/quiet 25:00-08:00", "用法：/quiet 22:00-08:00（24小时制，开始和结束不同）"),
        ("/pause abc", "用法：/pause 3d（支持 m 分钟、h 小时、d 天）"),
        ("/cancel", "用法：/cancel con_…（编号见 /concerns）"),
        ("/later soon", "用法：/later 2h，或回复“稍后 2小时”"),
        ("/frobnicate", "没有“/frobnicate”这个命令，发送 /help 查看可用的命令。"),
    ],
)
def test_a_malformed_command_gets_its_usage_hint_and_is_not_an_answer(ctx, team, text, hint):
    feishu, telegram = team
    _ask(ctx)
    say(ctx, channel="telegram", user="tg_zs", text=text)
    assert telegram.texts_to("tg_zs")[-1] == hint
    assert _concerns(ctx)[-1].state == "waiting_reply"
    assert feishu.texts_to("ou_boss") == ["已发给张三：提测什么时候能给？"]


@pytest.mark.parametrize("ack", ["收到", "好的", "ok", "OK.", "got it", "我看下", "好的👌", "👍"])
def test_a_bare_acknowledgement_is_recorded_keeps_the_loop_open_and_pushes_the_follow_up(ctx, clock, team, ack):
    feishu, telegram = team
    concern = _ask(ctx)
    first_follow_up = concern.next_follow_up_at  # P1: 4 h after the question
    clock.advance(3 * H)
    say(ctx, channel="telegram", user="tg_zs", text=ack)
    after = _concerns(ctx)[-1]
    assert after.state == "waiting_reply" and after.answer is None
    assert after.next_follow_up_at == max(first_follow_up, clock.now() + 4 * H)
    assert len(feishu.texts_to("ou_boss")) == 1 and len(telegram.texts_to("tg_zs")) == 1  # nothing passed on, no reply
    with ctx.reader() as uow:
        decided = select(Fact).where(Fact.fact_type == "decision").order_by(Fact.pk)
        rules = [f.content["rule"] for f in uow.session.scalars(decided)]
    assert rules[-1] == "acknowledgement"


def test_an_acknowledgement_never_brings_the_follow_up_forward(ctx, clock, team):
    concern = _ask(ctx)
    say(ctx, channel="telegram", user="tg_zs", text="稍后 6小时")
    snoozed = _concerns(ctx)[-1].next_follow_up_at
    assert snoozed > concern.next_follow_up_at
    say(ctx, channel="telegram", user="tg_zs", text="收到")
    assert _concerns(ctx)[-1].next_follow_up_at == snoozed


def test_an_answer_that_starts_like_an_acknowledgement_is_an_answer(ctx, team):
    feishu, _ = team
    _ask(ctx)
    say(ctx, channel="telegram", user="tg_zs", text="好的，周五给你")
    assert _concerns(ctx)[-1].answer == "好的，周五给你"
    assert "好的，周五给你" in feishu.texts_to("ou_boss")[-1]


def test_a_slash_command_from_someone_with_a_waiting_question_is_a_command(ctx, client, team):
    _ask(ctx)
    say(ctx, channel="telegram", user="tg_zs", text="/quiet 22:00-07:00")
    assert client.get("/v1/persons/p_zhangsan/interaction_policy").json()["quiet_hours"] == [
        {"start": "22:00", "end": "07:00"}
    ]
    assert _concerns(ctx)[-1].state == "waiting_reply"


def test_plain_text_that_looks_like_a_command_is_the_answer_of_someone_waited_on(ctx, client, team):
    feishu, _ = team
    _ask(ctx)
    say(ctx, channel="telegram", user="tg_zs", text="暂停 3天")
    assert _concerns(ctx)[-1].answer == "暂停 3天"
    assert client.get("/v1/persons/p_zhangsan/interaction_policy").json()["paused_until"] is None


def test_a_principal_who_owes_an_answer_can_still_ask_someone_else(ctx, team):
    feishu, telegram = team
    say(
        ctx, channel="telegram", user="tg_ls", text="The client wants to change the contract payment terms, OK?"
    )  # waits on the boss
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：周报写了吗？")
    by_question = {c.question: c for c in _concerns(ctx)}
    assert by_question["The client wants to change the contract payment terms, OK?"].state == "waiting_reply"
    assert by_question["周报写了吗？"].target_person_id == "p_zhangsan"
    assert telegram.texts_to("tg_zs") == ["老板想了解：周报写了吗？"]
    say(ctx, channel="feishu", user="ou_boss", text="不行，先别改")  # anything else from the boss is the decision
    assert telegram.texts_to("tg_ls")[-1] == "老板's decision: 不行，先别改"


def test_a_malformed_keyword_command_from_someone_with_nothing_waiting_gets_its_usage(ctx, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="免打扰 25:00-08:00")
    assert telegram.texts_to("tg_zs")[-1] == "用法：/quiet 22:00-08:00（24小时制，开始和结束不同）"
