"""The weekly review: per person asked, promises, open loops and the principal's own numbers, from the fact log."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from action.models import ActionRow
from app.pipeline import tick
from cognitive_core.reports.review_rules import compute
from tests.integration.story_helpers import say


def _api_facts(client) -> list[dict]:
    found, cursor = [], None
    while True:
        params = {"person_id": "p_boss", "limit": 500, **({"cursor": cursor} if cursor else {})}
        page = client.get("/v1/facts", params=params).json()
        found += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return found


def test_review_numbers_match_the_fact_log(ctx, clock, client, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下李四：预算表呢？")
    clock.advance(timedelta(hours=2))
    say(ctx, channel="telegram", user="tg_ls", text="The budget sheet is in the shared folder")
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下李四：合同呢？")
    clock.advance(timedelta(hours=5))
    tick(ctx)
    say(ctx, channel="telegram", user="tg_ls", text="The contract is signed")
    clock.advance(timedelta(hours=1))
    say(ctx, channel="feishu", user="ou_boss", text="本周回顾")
    text = feishu.texts_to("ou_boss")[-1]
    assert text.startswith("**本周回顾 · 03-11–03-18**")
    assert "• 李四：问 2 · 答 2 · 中位 3小时 · 最慢 5小时 · 跟进 1 · 升级 0 · 守约 0 · 逾期 0" in text
    assert "• 张三：问 1 · 答 0 · 中位 - · 最慢 - · 跟进" in text
    assert "**最久未结**\n• 张三：提测什么时候能给？ · 已等 8小时\n\n" in text  # the answered ones are closed
    now = clock.now()
    api = compute(_api_facts(client), person_id="p_boss", start=now - timedelta(days=7), end=now)
    assert api.people["p_lisi"].answer_seconds == [2 * 3600, 5 * 3600]
    assert api.people["p_lisi"].questions == 2 and api.people["p_zhangsan"].questions == 1
    assert [o[0] for o in api.open_longest] == ["p_zhangsan"]


def test_scheduled_review_goes_out_once_at_weekly_review_at(ctx, clock, client, team):
    feishu, _ = team
    assert (
        client.patch("/v1/persons/p_boss/interaction_policy", json={"weekly_review_at": "MON 09:00"}).status_code == 200
    )
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    monday = datetime(2026, 3, 23, 1, 0, tzinfo=UTC)  # Monday 09:00 Asia/Shanghai
    clock.set(monday - timedelta(minutes=1))
    tick(ctx)
    assert not any(t.startswith("**本周回顾") for t in feishu.texts_to("ou_boss"))
    for step in (0, 1, 60):
        clock.set(monday + timedelta(minutes=step))
        tick(ctx)
    assert sum(t.startswith("**本周回顾") for t in feishu.texts_to("ou_boss")) == 1
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(ActionRow).where(ActionRow.notification_type == "weekly_review")).all()
    assert [r.result for r in rows] == ["success"]


def test_review_is_off_by_default(ctx, clock, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    clock.set(datetime(2026, 3, 23, 1, 0, tzinfo=UTC))
    tick(ctx)
    assert not any(t.startswith("**本周回顾") for t in feishu.texts_to("ou_boss"))
