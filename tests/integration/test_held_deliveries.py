"""Held, not lost: a question held back is announced and then goes out; answers are exempt from the cap."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from action import service as actions
from app.pipeline import tick
from concern.models import Concern, OutboxEntry
from tests.integration.action_helpers import notify
from tests.integration.story_helpers import say

H = timedelta(hours=1)
EVENING = datetime(2026, 3, 18, 15, 0, tzinfo=UTC)  # 23:00 in Asia/Shanghai


def _concern(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern)).one()


def _set_aside(ctx) -> list[str]:
    with ctx.reader() as uow:
        return [e.request_key for e in uow.session.scalars(select(OutboxEntry).where(OutboxEntry.state == "failed"))]


@pytest.mark.parametrize(
    ("policy", "at", "held", "goes_out"),
    [
        (
            {"quiet_hours": [{"start": "22:00", "end": "08:00"}]},
            EVENING,
            "张三 22:00–08:00 免打扰，问题将在 明天 08:00 发出",
            9 * H,
        ),
        ({"paused_until": "2026-03-19T10:30:00+08:00"}, EVENING, "张三暂停了消息，问题将在 明天 10:30 发出", 12 * H),
    ],
    ids=["quiet_hours", "pause"],
)
def test_a_held_question_is_announced_with_its_time_then_goes_out_and_the_loop_continues(
    ctx, clock, client, team, policy, at, held, goes_out
):
    feishu, telegram = team
    client.patch("/v1/persons/p_zhangsan/interaction_policy", json=policy)
    clock.set(at)
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    concern = _concern(ctx)
    assert feishu.texts_to("ou_boss") == [f"{held}：提测什么时候能给？"]
    assert (
        telegram.texts_to("tg_zs") == [] and concern.state == "waiting_reply" and concern.next_follow_up_at is not None
    )
    clock.advance(goes_out)
    tick(ctx)
    assert telegram.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]
    after = _concern(ctx)
    assert after.state == "waiting_reply" and after.message_refs and after.next_follow_up_at > clock.now()
    assert _set_aside(ctx) == [] and not any("没能" in t for t in feishu.texts_to("ou_boss"))
    clock.advance(4 * H)  # P1's first follow-up comes four hours after the question went out
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】")


def test_a_question_held_by_the_daily_cap_goes_out_after_local_midnight(ctx, clock, client, team):
    feishu, telegram = team
    client.patch("/v1/persons/p_zhangsan/interaction_policy", json={"max_proactive_contacts_per_day": 1})
    assert actions.execute(ctx, request=notify("p_zhangsan")).result == "success"
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 周报写了吗？")
    assert feishu.texts_to("ou_boss")[-1] == "张三今天收到的消息已达上限，问题将在 明天 00:00 发出：周报写了吗？"
    clock.set(datetime(2026, 3, 18, 16, 0, 30, tzinfo=UTC))  # 00:00:30 local
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1] == "老板想了解：周报写了吗？" and _set_aside(ctx) == []


def test_a_cap_of_zero_closes_the_loop_and_says_why_in_the_principals_language(ctx, client, team):
    feishu, telegram = team
    client.patch("/v1/persons/p_zhangsan/interaction_policy", json={"max_proactive_contacts_per_day": 0})
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 周报写了吗？")
    assert _concern(ctx).state == "cancelled" and telegram.sent == []
    assert feishu.texts_to("ou_boss") == [
        "没能把问题发给张三：张三不接受主动消息（每天上限为 0）。这个问题已关闭：“周报写了吗？”"
    ]


def test_an_answer_reaches_the_principal_whose_cap_is_used_up_and_does_not_use_it(ctx, clock, client, team):
    feishu, telegram = team
    client.patch("/v1/persons/p_boss/interaction_policy", json={"max_proactive_contacts_per_day": 1})
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    assert feishu.texts_to("ou_boss")[-1].startswith("张三回复了你的问题“提测什么时候能给？”：明天下午")
    assert actions.execute(ctx, request=notify("p_boss")).result == "success"  # the answer took no slot of the cap
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 周报写了吗？")
    say(ctx, channel="telegram", user="tg_zs", text="写好了")  # the cap is now used up: the answer still arrives
    assert feishu.texts_to("ou_boss")[-1].startswith("张三回复了你的问题“周报写了吗？”：写好了")


def test_an_answer_reaches_a_principal_who_turned_proactive_contact_off_but_waits_for_their_quiet_hours(
    ctx, clock, client, team
):
    feishu, _ = team
    client.patch(
        "/v1/persons/p_boss/interaction_policy",
        json={"allow_proactive_ping": False, "quiet_hours": [{"start": "23:00", "end": "08:00"}]},
    )
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    clock.set(EVENING + H / 2)  # 23:30 local
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    assert not any("明天下午" in t for t in feishu.texts_to("ou_boss"))
    clock.advance(9 * H)
    tick(ctx)
    assert "张三回复了你的问题" in feishu.texts_to("ou_boss")[-1]


def test_two_loops_that_stall_at_once_both_tell_their_originator(ctx, clock, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi P0 first?")
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi P0 second?")
    for _ in range(3):
        clock.advance(H)
        tick(ctx)
    stalled = [t for t in feishu.texts_to("ou_boss") if t.startswith("【停滞】")]
    assert len(stalled) == 2 and {"first?" in t for t in stalled} == {True, False}


def test_a_message_to_relay_held_by_quiet_hours_goes_out_when_they_end(ctx, clock, client, team):
    feishu, telegram = team
    client.patch(
        "/v1/persons/p_zhangsan/interaction_policy", json={"quiet_hours": [{"start": "22:00", "end": "08:00"}]}
    )
    clock.set(EVENING)
    say(ctx, channel="feishu", user="ou_boss", text="告诉张三：明早10点开会")
    assert feishu.texts_to("ou_boss") == ["张三正处于免打扰时间，消息将在 明天 08:00 转告。"]
    assert telegram.sent == []
    clock.advance(9 * H)
    tick(ctx)
    assert telegram.texts_to("tg_zs") == ["老板让我转告：明早10点开会。"]
    assert len(feishu.texts_to("ou_boss")) == 1  # told once, when it was held


def test_what_someone_says_before_a_held_question_reaches_them_does_not_answer_it(ctx, clock, client, team):
    feishu, telegram = team
    client.patch(
        "/v1/persons/p_zhangsan/interaction_policy", json={"quiet_hours": [{"start": "22:00", "end": "08:00"}]}
    )
    clock.set(EVENING)
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    say(ctx, channel="telegram", user="tg_zs", text="在吗？")
    assert _concern(ctx).state == "waiting_reply" and not any("在吗" in t for t in feishu.texts_to("ou_boss"))
