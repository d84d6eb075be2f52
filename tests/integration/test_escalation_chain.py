"""Escalations that close: repeated once, up the management chain, taken with "I'll handle it", nudges on request."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from action.models import ButtonRow
from app.pipeline import tick
from concern.escalation import handling as escalation
from concern.models import Concern
from fact import decisions
from fact.decisions import DecisionKind
from tests.integration.action_helpers import add_person
from tests.integration.story_helpers import say

H = timedelta(hours=1)
DAY = timedelta(days=1)
ASKED = "提测什么时候能给？"


@pytest.fixture
def chain(ctx, client, team):
    """王五 (张三's manager) reports to 赵六."""
    add_person(ctx, "p_zhaoliu", display_name="赵六", bindings=[{"channel": "feishu", "external_user_id": "ou_zl"}])
    assert client.patch("/v1/persons/p_wangwu", json={"manager_id": "p_zhaoliu"}).status_code == 200
    return team


def _concern(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern).where(Concern.kind == "question")).one()


def _hours(ctx, clock, n: int = 1) -> None:
    for _ in range(n):
        clock.advance(H)
        tick(ctx)


def _escalate(ctx, clock, priority: str = "P0") -> None:
    """A question nobody answers (P0: a follow-up after 1 h, the escalation after another hour)."""
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan {priority} {ASKED}")
    _hours(ctx, clock, 2)


def _press(ctx, what, by: str):
    """Press a button's flow as the integrator does: a decision, then the flow, in one transaction; then drain."""
    concern_id = _concern(ctx).concern_id
    with ctx.uow(actor="test") as uow:
        decision_id = decisions.record(
            uow, kind=DecisionKind.direct_action, rule=f"button:{what.__name__}", inputs=[concern_id], person_refs=[by]
        )
        outcome = what(uow, concern_id=concern_id, by=by, decision_id=decision_id)
    tick(ctx)
    return outcome


def test_the_escalation_carries_handle_and_remind_buttons_for_the_manager_only(ctx, clock, chain):
    feishu, _ = chain
    _escalate(ctx, clock)
    concern = _concern(ctx)
    assert (concern.state, concern.escalated_to, concern.escalation_level) == ("escalated", "p_wangwu", 1)
    with ctx.reader() as uow:
        buttons = list(uow.session.scalars(select(ButtonRow).where(ButtonRow.concern_id == concern.concern_id)))
    assert sorted(b.verb for b in buttons if b.addressee_id == "p_wangwu") == ["fewer", "handle", "remind", "why"]
    assert not [b for b in buttons if b.verb in ("handle", "remind") and b.addressee_id != "p_wangwu"]
    on_it = [b.label for b in feishu.sent[-1].message.buttons]  # on the message itself
    assert on_it == ["我来处理", "提醒他", "为什么收到这条？", "消息太多"]


def test_an_escalation_nobody_takes_is_repeated_once_then_climbs_to_the_managers_manager(ctx, clock, chain):
    feishu, _ = chain
    _escalate(ctx, clock)
    _hours(ctx, clock)  # P0's last wait again: repeated to 王五
    assert feishu.texts_to("ou_wangwu")[-1].startswith("【升级·再次提醒】老板问张三：提测什么时候能给？")
    assert (_concern(ctx).escalation_level, _concern(ctx).escalation_repeats) == (1, 1)
    assert feishu.texts_to("ou_zl") == []
    _hours(ctx, clock)  # then up one level
    assert feishu.texts_to("ou_zl")[-1].startswith("【升级】老板问张三：提测什么时候能给？")
    assert "转给王五之后也还没有人接手" in feishu.texts_to("ou_zl")[-1]
    assert feishu.texts_to("ou_boss")[-1] == "你问张三的“提测什么时候能给？”，王五一直没有处理，我已升级给赵六。"
    concern = _concern(ctx)
    assert (concern.escalated_to, concern.escalation_level, concern.escalation_repeats) == ("p_zhaoliu", 2, 0)
    _hours(ctx, clock)  # repeated once to 赵六; then the top of DEPUTY_ESCALATION_MAX_LEVELS (2)
    _hours(ctx, clock)
    assert len(feishu.texts_to("ou_zl")) == 2 and len(feishu.texts_to("ou_wangwu")) == 2
    assert feishu.texts_to("ou_boss")[-1].startswith(
        "【停滞】你问张三的“提测什么时候能给？”已升级给王五、赵六，都没有处理"
    )
    last_step = _concern(ctx).escalated_at
    _hours(ctx, clock, 3)
    assert len(feishu.texts_to("ou_zl")) == 2 and _concern(ctx).state == "escalated"  # nothing more, only expiry
    assert _concern(ctx).next_follow_up_at == last_step + ctx.settings.concern_expire_after


def test_the_chain_stops_at_the_configured_number_of_levels(ctx, clock, chain):
    ctx.settings.escalation_max_levels = 1
    feishu, _ = chain
    _escalate(ctx, clock)
    _hours(ctx, clock, 4)
    assert feishu.texts_to("ou_zl") == [] and len(feishu.texts_to("ou_wangwu")) == 2
    assert feishu.texts_to("ou_boss")[-1].startswith("【停滞】你问张三的“提测什么时候能给？”已升级给王五，都没有处理")


def test_the_repeat_waits_for_the_setting(ctx, clock, chain):
    ctx.settings.escalation_repeat_after = 3 * H
    feishu, _ = chain
    _escalate(ctx, clock)
    _hours(ctx, clock, 2)
    assert len(feishu.texts_to("ou_wangwu")) == 1
    _hours(ctx, clock)
    assert len(feishu.texts_to("ou_wangwu")) == 2


def test_expiry_counts_from_the_last_step_of_the_chain(ctx, clock, chain):
    ctx.settings.concern_expire_after = 2 * H + 30 * timedelta(minutes=1)
    _escalate(ctx, clock)
    _hours(ctx, clock, 2)  # repeated, then climbed: the last step is now
    climbed_at = _concern(ctx).escalated_at
    assert _concern(ctx).escalated_to == "p_zhaoliu" and climbed_at == clock.now()
    ctx.settings.escalation_repeat_after = 10 * DAY  # no more steps: only the expiry is left
    _hours(ctx, clock, 2)
    assert _concern(ctx).state == "escalated"
    _hours(ctx, clock)
    assert _concern(ctx).state == "expired"


def test_a_reply_from_an_earlier_recipient_answers_and_the_current_one_hears_it(ctx, clock, chain):
    feishu, _ = chain
    _escalate(ctx, clock)
    _hours(ctx, clock, 2)
    say(ctx, channel="feishu", user="ou_wangwu", text="周五给你")
    concern = _concern(ctx)
    assert (concern.state, concern.answered_by, concern.answer) == ("resolved", "p_wangwu", "周五给你")
    assert feishu.texts_to("ou_zl")[-1] == "王五已经回复了老板的问题“提测什么时候能给？”，这件事不用再处理了。"
    assert feishu.texts_to("ou_wangwu")[-1] == "已转告老板。"


def test_ill_handle_it_stops_repeats_keeps_an_expiry_and_tells_the_principal(ctx, clock, chain):
    feishu, _ = chain
    _escalate(ctx, clock)
    assert _press(ctx, escalation.take_escalation, "p_boss").code == "not_recipient"
    clock.advance(H / 2)
    outcome = _press(ctx, escalation.take_escalation, "p_wangwu")
    assert (outcome.code, outcome.text, outcome.ok) == ("taken", "好的，由你接手，我已告诉老板。", True)
    concern = _concern(ctx)
    assert (concern.acknowledged_by, concern.acknowledged_at) == ("p_wangwu", clock.now())
    assert concern.next_follow_up_at == clock.now() + ctx.settings.concern_expire_after
    assert feishu.texts_to("ou_boss")[-1] == "王五接手了你问张三的“提测什么时候能给？”，有答复我会转给你。"
    assert _press(ctx, escalation.take_escalation, "p_wangwu").code == "taken_by_you"
    _hours(ctx, clock, 6)
    assert len(feishu.texts_to("ou_wangwu")) == 1 and feishu.texts_to("ou_zl") == []  # no repeat, no climb
    clock.advance(ctx.settings.concern_expire_after)
    tick(ctx)
    assert _concern(ctx).state == "expired"


def test_ill_handle_it_on_a_closed_escalation_changes_nothing(ctx, clock, chain):
    _escalate(ctx, clock)
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    outcome = _press(ctx, escalation.take_escalation, "p_wangwu")
    assert (outcome.code, outcome.text) == ("closed", "已结束") and _concern(ctx).acknowledged_by is None


def test_nudge_now_skips_the_follow_up_interval(ctx, clock, chain):
    _, telegram = chain
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan P1 {ASKED}")
    clock.advance(H)  # P1's first follow-up is 4 h away
    outcome = _press(ctx, escalation.nudge, "p_boss")
    assert (outcome.code, outcome.text) == ("nudged", "好的，马上再催张三一次。")
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】老板的问题：提测什么时候能给？")
    assert _concern(ctx).follow_up_count == 0  # outside the schedule: the wait restarts, no follow-up used


def test_nudge_now_keeps_the_contact_limit_and_says_when_it_could(ctx, clock, chain):
    _, telegram = chain
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan P1 {ASKED}")
    clock.advance(H)
    _press(ctx, escalation.nudge, "p_boss")
    clock.advance(2 * H + 5 * timedelta(minutes=1))
    outcome = _press(ctx, escalation.nudge, "p_boss")  # a third contact within 24 h
    assert outcome.code == "refused" and not outcome.ok
    assert outcome.text == "24小时内已为这件事联系张三 2 次，最早 明天 12:00 可以再催。"
    assert outcome.not_before is not None and len(telegram.texts_to("tg_zs")) == 2


def test_nudge_now_keeps_quiet_hours_and_says_when_they_end(ctx, clock, client, chain):
    _, telegram = chain
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan P1 {ASKED}")
    client.patch(
        "/v1/persons/p_zhangsan/interaction_policy", json={"quiet_hours": [{"start": "12:30", "end": "14:00"}]}
    )
    clock.advance(H)  # 13:00, quiet for 张三
    outcome = _press(ctx, escalation.nudge, "p_boss")
    assert (outcome.code, outcome.text) == ("refused", "张三在免打扰时段，今天 14:00 后可以催。")
    assert len(telegram.texts_to("tg_zs")) == 1


def test_only_the_asker_or_the_escalations_recipient_may_nudge(ctx, clock, chain):
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan P1 {ASKED}")
    assert _press(ctx, escalation.nudge, "p_lisi").code == "not_allowed"


def test_remind_them_from_the_manager_nudges_the_person_asked_at_once(ctx, clock, chain):
    feishu, telegram = chain
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan P1 {ASKED}")
    _hours(ctx, clock, 52)  # P1: follow-ups after 4 h and 24 h, the escalation 24 h later
    assert _concern(ctx).escalated_to == "p_wangwu"
    before = len(telegram.texts_to("tg_zs"))
    clock.advance(H / 2)
    outcome = _press(ctx, escalation.nudge, "p_wangwu")
    assert outcome.code == "nudged" and len(telegram.texts_to("tg_zs")) == before + 1
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】")
    concern = _concern(ctx)
    assert concern.state == "escalated" and concern.next_follow_up_at == clock.now() + DAY  # the repeat waits again


def test_remind_them_keeps_the_contact_limit(ctx, clock, chain):
    _escalate(ctx, clock)  # P0: the question and its follow-up within the hour
    outcome = _press(ctx, escalation.nudge, "p_wangwu")
    assert (outcome.code, outcome.text) == ("refused", "24小时内已为这件事联系张三 2 次，最早 明天 12:00 可以再催。")
