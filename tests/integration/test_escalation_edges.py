"""Escalations that close: the manager's reply answers, dead ends are told, unanswered escalations expire."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from app.pipeline import tick
from concern.models import Concern
from tests.integration.story_helpers import say

H = timedelta(hours=1)
DAY = timedelta(days=1)


def _concern(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern).where(Concern.kind == "question")).one()


def _escalate(ctx, clock, *, to: str = "p_zhangsan") -> None:
    """A P0 question nobody answers: follow-up after 1 h, escalation after another hour."""
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @{to} P0 提测什么时候能给？")
    for _ in range(2):
        clock.advance(H)
        tick(ctx)


@pytest.mark.parametrize("quoted", [True, False], ids=["quoted", "unquoted"])
def test_the_managers_reply_to_an_escalation_answers_the_question(ctx, clock, team, quoted):
    feishu, telegram = team
    _escalate(ctx, clock)
    escalation = feishu.sent[-1]
    assert escalation.message.external_user_id == "ou_wangwu" and escalation.message.text.startswith("【升级】")
    say(ctx, channel="feishu", user="ou_wangwu", text="周五给你", reply_to=escalation.message_id if quoted else None)
    concern = _concern(ctx)
    assert (concern.state, concern.answered_by, concern.answer) == ("resolved", "p_wangwu", "周五给你")
    assert feishu.texts_to("ou_boss")[-1].startswith("王五代张三回复了你的问题“提测什么时候能给？”：周五给你")
    assert telegram.texts_to("tg_zs")[-1] == "王五已代你回复了老板的问题“提测什么时候能给？”，不用再回复了。"
    assert not any(t.startswith("我可以帮你") for t in feishu.texts_to("ou_wangwu"))  # no help text for the manager


def test_a_bare_ok_from_the_manager_is_not_an_answer(ctx, clock, team):
    feishu, _ = team
    _escalate(ctx, clock)
    say(ctx, channel="feishu", user="ou_wangwu", text="好的")
    assert _concern(ctx).state == "escalated"
    assert not any("好的" in t for t in feishu.texts_to("ou_boss"))


def test_the_manager_hears_when_the_person_asked_answers_after_all(ctx, clock, team):
    feishu, _ = team
    _escalate(ctx, clock)
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    assert _concern(ctx).answered_by == "p_zhangsan"
    assert feishu.texts_to("ou_wangwu")[-1] == "张三已经回复了老板的问题“提测什么时候能给？”，这件事不用再处理了。"


def test_the_manager_hears_when_the_principal_cancels(ctx, clock, team):
    feishu, _ = team
    _escalate(ctx, clock)
    concern = _concern(ctx)
    say(ctx, channel="feishu", user="ou_boss", text=f"/cancel {concern.concern_id}")
    assert feishu.texts_to("ou_boss")[-1] == "好的，已取消。"
    assert feishu.texts_to("ou_wangwu")[-1] == "老板取消了问张三的问题“提测什么时候能给？”，这件事不用再处理了。"


def test_an_escalation_the_manager_does_not_accept_is_told_to_the_principal_and_expires(ctx, clock, client, team):
    feishu, _ = team
    client.patch("/v1/persons/p_wangwu/interaction_policy", json={"allow_proactive_ping": False})
    _escalate(ctx, clock)
    concern = _concern(ctx)
    assert concern.state == "escalated" and concern.escalated_to is None
    assert concern.next_follow_up_at == concern.escalated_at + ctx.settings.concern_expire_after
    told = feishu.texts_to("ou_boss")[-1]
    assert told.startswith(
        "【升级未送达】你问张三的“提测什么时候能给？”没有回复，我没能把它升级给王五：王五不接受主动消息。"
    )
    clock.advance(7 * DAY)
    tick(ctx)
    assert _concern(ctx).state == "expired"
    assert feishu.texts_to("ou_boss")[-1] == "【已过期】你问张三的“提测什么时候能给？”一直没有回复，我已停止跟进。"


def test_without_a_manager_the_loop_stalls_with_an_expiry_and_then_expires(ctx, clock, team):
    feishu, _ = team
    _escalate(ctx, clock, to="p_lisi")
    concern = _concern(ctx)
    assert concern.state == "escalated" and concern.next_follow_up_at is not None
    assert feishu.texts_to("ou_boss")[-1].startswith("【停滞】你问李四的")
    clock.advance(7 * DAY - H)
    tick(ctx)
    assert _concern(ctx).state == "escalated"
    clock.advance(2 * H)
    tick(ctx)
    assert _concern(ctx).state == "expired" and feishu.texts_to("ou_boss")[-1].startswith("【已过期】")


def test_expiry_counts_from_the_last_escalation_step_and_follows_the_setting(ctx, clock, team):
    ctx.settings.concern_expire_after = 2 * DAY
    feishu, _ = team
    _escalate(ctx, clock)
    clock.advance(H)
    tick(ctx)  # repeated once to 王五 after the P0's last wait: the last step
    assert _concern(ctx).escalation_repeats == 1
    clock.advance(2 * DAY - 30 * timedelta(minutes=1))
    tick(ctx)
    assert _concern(ctx).state == "escalated"
    clock.advance(H)
    tick(ctx)
    assert _concern(ctx).state == "expired"
    assert feishu.texts_to("ou_wangwu")[-1] == "老板问张三的“提测什么时候能给？”已过期，我已停止跟进。"


def test_an_escalated_concern_no_longer_holds_a_person_slot_once_it_expires(ctx, clock, client, team):
    ctx.settings.max_active_concerns_per_person = 1
    feishu, _ = team
    _escalate(ctx, clock)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 周报呢？")
    assert feishu.texts_to("ou_boss")[-1].startswith("现在不能再问张三：已经有太多问题在等张三回复")
    clock.advance(8 * DAY)
    tick(ctx)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 周报呢？")
    assert feishu.texts_to("ou_boss")[-1].startswith("已发给张三：周报呢？")
