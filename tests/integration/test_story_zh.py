"""The whole story in Chinese: ask → wait → follow up (not in quiet hours, ≤ 2 per 24 h) → escalate → answer."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from action.models import ActionRow
from app.pipeline import tick
from tests.integration.action_helpers import add_memory_channels, add_person
from tests.integration.story_helpers import say

H = timedelta(hours=1)


@pytest.fixture
def story(ctx, clock):
    clock.set(datetime(2026, 3, 18, 12, 0, tzinfo=UTC))  # 20:00 Asia/Shanghai
    feishu, telegram = add_memory_channels(ctx)
    add_person(
        ctx,
        "p_boss",
        display_name="老板",
        role="principal",
        bindings=[{"channel": "feishu", "external_user_id": "ou_boss"}],
    )
    add_person(
        ctx,
        "p_wangwu",
        display_name="王五",
        bindings=[{"channel": "feishu", "external_user_id": "ou_wangwu"}],
        policy={"quiet_hours": [{"start": "23:00", "end": "08:00"}]},
    )
    add_person(
        ctx,
        "p_zhangsan",
        display_name="张三",
        aliases=["Zhang San", "老张"],
        manager_id="p_wangwu",
        bindings=[
            {"channel": "feishu", "external_user_id": "ou_zs"},
            {"channel": "telegram", "external_user_id": "tg_zs", "chat_id": "tg_zs"},
        ],
        policy={"preferred_channel": "telegram", "quiet_hours": [{"start": "23:00", "end": "08:00"}]},
    )
    return feishu, telegram


def _sent_to_zhangsan(ctx):
    with ctx.reader() as uow:
        rows = uow.session.scalars(
            select(ActionRow)
            .where(ActionRow.target_person_id == "p_zhangsan", ActionRow.result == "success")
            .order_by(ActionRow.pk)
        )
        return [(r.created_at, r.channel, r.action_type) for r in rows]


def test_the_whole_story(ctx, clock, client, story):
    feishu, telegram = story
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    [concern] = client.get("/v1/concerns").json()["items"]
    assert concern["state"] == "waiting_reply" and concern["priority"] == "P1"
    assert telegram.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]
    assert feishu.texts_to("ou_boss")[-1].startswith("已发给张三")

    # Three and a half days of hourly scheduler ticks, nobody answers.
    for _ in range(3 * 24 + 14):
        clock.advance(H)
        tick(ctx)
    sends = _sent_to_zhangsan(ctx)
    assert [channel for _, channel, _ in sends] == ["telegram"] * 3  # the question and two follow-ups (P1: 4 h, 24 h)
    for at, _, _ in sends:
        assert 8 <= at.astimezone(ctx.settings.tz).hour < 23, f"contacted at {at} during quiet hours"
    for at, _, _ in sends:
        assert sum(1 for other, _, _ in sends if at - timedelta(hours=24) < other <= at) <= 2
    assert "【跟进】" in telegram.texts_to("tg_zs")[1] and "稍后 2小时" in telegram.texts_to("tg_zs")[1]
    escalations = feishu.texts_to("ou_wangwu")
    assert escalations[0].startswith("【升级】老板问张三：提测什么时候能给？")
    # Nobody took it: repeated once, a day (P1's last wait) later; 王五 has no manager to climb to.
    assert len(escalations) == 2 and escalations[1].startswith("【升级·再次提醒】老板问张三：提测什么时候能给？")
    assert client.get(f"/v1/concerns/{concern['concern_id']}").json()["state"] == "escalated"

    # Zhang San finally answers; the principal gets it back.
    clock.advance(H)
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    resolved = client.get(f"/v1/concerns/{concern['concern_id']}").json()
    assert (
        resolved["state"] == "resolved" and resolved["answer"] == "明天下午" and resolved["answered_by"] == "p_zhangsan"
    )
    assert "张三回复了你的问题“提测什么时候能给？”：明天下午" in feishu.texts_to("ou_boss")[-1]
    clock.advance(48 * H)
    tick(ctx)
    # No follow-up after the answer, only the short reactive "passed on"; "明天下午" was a promise, so one
    # check-in at 15:00 the next day.
    assert len(_sent_to_zhangsan(ctx)) == 5 and "已转告老板。" in telegram.texts_to("tg_zs")

    # /did tells the principal what happened in plain words: the summary first, one line per loop, no ids.
    say(ctx, channel="feishu", user="ou_boss", text="/did 7d")
    assert feishu.texts_to("ou_boss")[-1].splitlines() == [
        "最近7天替你联系了 1 个人：张三答应的事到时间了。",
        "· 张三回复了“提测什么时候能给？”：明天下午（Telegram）",
        "· 张三答应的“提测什么时候能给？”到时间了，已问过进展，还在等（Telegram）",
    ]

    # The trace of the backflow reaches both signals: the answer and the original request.
    backflow = client.get("/v1/actions", params={"action_type": "backflow"}).json()["items"][0]
    chain = client.get(f"/v1/actions/{backflow['action_id']}/trace").json()["chain"]
    signals = [step["fact"]["content"]["text"] for step in chain if step["kind"] == "signal"]
    assert signals == ["明天下午", "尽快问一下张三：提测什么时候能给？"]
    assert [s["kind"] for s in chain][:2] == ["action_result", "decision"] and "concern" in [s["kind"] for s in chain]
