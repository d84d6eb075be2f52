"""The daily brief: what it says, once per local day at the principal's time, quiet hours, DST, on demand."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from action.models import ActionRow
from app import pipeline
from app.pipeline import tick
from app.wiring import build_context
from cognitive_core.reports import briefs
from concern.models import Concern
from fact.models import Fact
from kernel.portion import Portion
from tests.conftest import make_settings
from tests.integration.action_helpers import add_memory_channels, add_person
from tests.integration.press_helpers import buttons_to, press
from tests.integration.story_helpers import say

NINE_NEXT_DAY = datetime(2026, 3, 19, 1, 0, tzinfo=UTC)  # Thursday 09:00 Asia/Shanghai
TITLE = "**今日简报"


def _briefs(ctx, person_id: str = "p_boss") -> list[ActionRow]:
    with ctx.reader() as uow:
        stmt = select(ActionRow).where(
            ActionRow.target_person_id == person_id, ActionRow.notification_type == "daily_brief"
        )
        return list(uow.session.scalars(stmt.order_by(ActionRow.pk)))


def _brief_decisions(ctx, person_id: str = "p_boss") -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.dedup_key.like(f"brief:{person_id}:%"))))


def _brief_texts(channel, user: str = "ou_boss") -> list[str]:
    return [t for t in channel.texts_to(user) if t.startswith(TITLE) or t.startswith("**Daily brief")]


def _ask(ctx, who: str, question: str) -> None:
    say(ctx, channel="feishu", user="ou_boss", text=f"问一下{who}：{question}")


def test_brief_lists_answers_waiting_loops_and_goes_out_once_a_day(ctx, clock, team):
    feishu, telegram = team
    _ask(ctx, "张三", "提测什么时候能给？")
    _ask(ctx, "李四", "预算表呢？")
    say(ctx, channel="telegram", user="tg_ls", text="The budget sheet is in the shared folder")
    clock.set(NINE_NEXT_DAY - timedelta(minutes=1))
    tick(ctx)
    assert _brief_texts(feishu) == []
    clock.set(NINE_NEXT_DAY)
    tick(ctx)
    tick(ctx)
    clock.advance(timedelta(hours=3))
    tick(ctx)
    [text] = _brief_texts(feishu)
    assert text.startswith("**今日简报 · 3月19日 周四**")
    assert "**收到的回复（1）**\n• 李四：预算表呢？ → The budget sheet is in the shared folder" in text
    assert "**还在等（1）**\n• [1] 张三：提测什么时候能给？ · 已等 21小时 · 跟进" in text
    [row] = _briefs(ctx)
    assert row.result == "success" and row.solicited and row.channel == "feishu"
    with ctx.reader() as uow:
        fact = uow.session.scalars(
            select(Fact).where(
                Fact.fact_type == "action_result", Fact.content["action_id"].as_string() == row.action_id
            )
        ).one()
    assert fact.content["result"] == "success"
    assert [f.content["rule"] for f in _brief_decisions(ctx)] == ["daily_brief"]


def test_nothing_to_report_sends_nothing_and_later_news_waits_for_tomorrow(ctx, clock, team):
    feishu, _ = team
    clock.set(NINE_NEXT_DAY)
    tick(ctx)
    assert _brief_texts(feishu) == [] and _briefs(ctx) == []
    assert [f.content["rule"] for f in _brief_decisions(ctx)] == ["daily_brief:nothing_to_report"]
    clock.advance(timedelta(hours=1))
    _ask(ctx, "张三", "提测什么时候能给？")
    tick(ctx)
    assert _brief_texts(feishu) == []
    clock.set(NINE_NEXT_DAY + timedelta(days=1))
    tick(ctx)
    assert len(_brief_texts(feishu)) == 1


def test_null_brief_time_turns_the_brief_off(ctx, clock, client, team):
    feishu, _ = team
    assert client.patch("/v1/persons/p_boss/interaction_policy", json={"daily_brief_at": None}).status_code == 200
    _ask(ctx, "张三", "提测什么时候能给？")
    clock.set(NINE_NEXT_DAY)
    tick(ctx)
    assert _brief_texts(feishu) == [] and _brief_decisions(ctx) == []


def test_brief_time_inside_quiet_hours_goes_out_when_they_end(ctx, clock, client, team):
    feishu, _ = team
    policy = {"daily_brief_at": "07:00", "quiet_hours": [{"start": "23:00", "end": "08:00"}]}
    assert client.patch("/v1/persons/p_boss/interaction_policy", json=policy).status_code == 200
    _ask(ctx, "张三", "提测什么时候能给？")
    clock.set(datetime(2026, 3, 18, 23, 30, tzinfo=UTC))  # 07:30 local: quiet
    tick(ctx)
    assert _brief_texts(feishu) == []
    clock.set(datetime(2026, 3, 19, 0, 0, tzinfo=UTC))  # 08:00 local: quiet hours end
    tick(ctx)
    assert len(_brief_texts(feishu)) == 1 and _briefs(ctx)[0].result == "success"


def test_new_york_principal_gets_the_brief_at_local_nine_across_the_dst_change(ctx, clock):
    feishu, _ = add_memory_channels(ctx)
    clock.set(datetime(2026, 10, 30, 16, 0, tzinfo=UTC))
    add_person(
        ctx,
        "p_boss",
        role="principal",
        timezone="America/New_York",
        locale="en",
        bindings=[{"channel": "feishu", "external_user_id": "ou_boss"}],
    )
    add_person(
        ctx, "p_zhangsan", display_name="Zhang San", bindings=[{"channel": "feishu", "external_user_id": "ou_zs"}]
    )
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan when is the build ready?")
    sent_at = []
    for hour in range(24 * 4):  # every hour from Oct 30 noon to Nov 3 noon (EDT, then EST from Nov 1 02:00)
        clock.set(datetime(2026, 10, 30, 16, 0, tzinfo=UTC) + timedelta(hours=hour))
        before = len(_brief_texts(feishu))
        tick(ctx)
        if len(_brief_texts(feishu)) > before:
            sent_at.append(clock.now())
    assert sent_at == [
        datetime(2026, 10, 31, 13, 0, tzinfo=UTC),  # 09:00 EDT
        datetime(2026, 11, 1, 14, 0, tzinfo=UTC),  # 09:00 EST
        datetime(2026, 11, 2, 14, 0, tzinfo=UTC),
        datetime(2026, 11, 3, 14, 0, tzinfo=UTC),
    ]
    assert _brief_texts(feishu)[0].startswith("**Daily brief · Sat 10-31**")
    assert {f.dedup_key for f in _brief_decisions(ctx)} == {
        f"brief:p_boss:2026-{d}" for d in ("10-31", "11-01", "11-02", "11-03")
    }


def test_two_replicas_racing_send_one_brief(ctx, clock, team, database_url):
    _ask(ctx, "张三", "提测什么时候能给？")
    clock.set(NINE_NEXT_DAY)
    replicas = [build_context(make_settings(database_url), clock=clock) for _ in range(2)]
    barrier, queued = threading.Barrier(2), []

    def run(replica) -> None:
        barrier.wait()
        queued.append(briefs.send_due(replica, portion=Portion(5)))

    try:
        threads = [threading.Thread(target=run, args=(r,)) for r in replicas]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for r in replicas:
            r.close()
    assert sorted(queued) == [0, 1]
    tick(ctx)
    assert len(_briefs(ctx)) == 1 and len(_brief_decisions(ctx)) == 1


def test_brief_on_demand_answers_at_once_also_with_nothing_to_report(ctx, clock, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="简报")
    assert feishu.texts_to("ou_boss")[-1] == "没有在等的事，也没有到期的事。"
    _ask(ctx, "张三", "提测什么时候能给？")
    say(ctx, channel="feishu", user="ou_boss", text="/brief")
    assert feishu.texts_to("ou_boss")[-1].startswith("**今日简报 · 3月18日 周三**\n\n**还在等（1）**")
    say(ctx, channel="telegram", user="tg_ls", text="/brief")  # a member: what waits on them, or nothing
    assert team[1].texts_to("tg_ls")[-1] == "Nothing waiting, nothing due."
    assert _briefs(ctx) == []  # on demand is a reply, not the day's brief


def test_a_long_brief_shows_the_most_important_and_brief_all_shows_everything(ctx, clock, team):
    feishu, _ = team
    with ctx.uow() as uow:
        for n in range(12):
            uow.session.add(
                Concern(
                    concern_id=f"con_20260318_{n + 100:03d}",
                    originator_id="p_boss",
                    target_person_id="p_zhangsan",
                    question=f"问题 {n}",
                    priority="P2",
                    state="waiting_reply",
                    created_at=uow.now - timedelta(hours=n),
                    updated_at=uow.now,
                )
            )
    say(ctx, channel="feishu", user="ou_boss", text="今天的简报")
    short = feishu.texts_to("ou_boss")[-1]
    assert short.count("\n• ") == 10 and short.endswith("… 还有 2 项，发送 /brief all 查看全部")
    assert "**还在等（12）**\n• [1] 张三：问题 11" in short  # the oldest first
    say(ctx, channel="feishu", user="ou_boss", text="/brief all")
    assert feishu.texts_to("ou_boss")[-1].count("\n• ") == 12


def test_a_long_brief_links_to_the_console_when_the_public_url_is_set(ctx, clock, team):
    feishu, _ = team
    ctx.settings.public_url = "https://deputy.example.com/"
    with ctx.uow() as uow:
        for n in range(11):
            uow.session.add(
                Concern(
                    concern_id=f"con_20260318_{n + 100:03d}",
                    originator_id="p_boss",
                    target_person_id="p_zhangsan",
                    question=f"问题 {n}",
                    priority="P2",
                    state="waiting_reply",
                    created_at=uow.now,
                    updated_at=uow.now,
                )
            )
    say(ctx, channel="feishu", user="ou_boss", text="/brief")
    assert feishu.texts_to("ou_boss")[-1].endswith("… 还有 1 项：https://deputy.example.com/console")


def test_buttons_on_brief_items_nudge_cancel_and_extend(ctx, clock, team):
    feishu, telegram = team
    _ask(ctx, "张三", "提测什么时候能给？")
    _ask(ctx, "李四", "预算表呢？")
    say(ctx, channel="telegram", user="tg_ls", text="I'll send it by 18:00")  # a promise: a commitment
    with ctx.reader() as uow:
        promise = uow.session.scalars(select(Concern).where(Concern.kind == "commitment")).one()
        question = uow.session.scalars(select(Concern).where(Concern.target_person_id == "p_zhangsan")).one()
    clock.advance(timedelta(hours=1))
    say(ctx, channel="feishu", user="ou_boss", text="/brief")
    shown = buttons_to(feishu, "ou_boss")
    assert list(shown) == ["1 延期 2 小时", "1 取消", "2 催一下", "2 取消"]
    before = len(telegram.texts_to("tg_zs"))
    press(ctx, channel="feishu", user="ou_boss", token=shown["2 催一下"])
    assert len(telegram.texts_to("tg_zs")) == before + 1  # the nudge went out
    edit = feishu.edits[-1]
    assert [b.label for b in edit.buttons] == ["1 延期 2 小时", "1 取消"]  # the other item keeps its buttons
    press(ctx, channel="feishu", user="ou_boss", token=shown["1 延期 2 小时"])
    with ctx.reader() as uow:
        assert uow.session.get(Concern, promise.concern_id).due_at == promise.due_at + timedelta(hours=2)
    say(ctx, channel="feishu", user="ou_boss", text="/brief")
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["2 取消"])
    with ctx.reader() as uow:
        assert uow.session.get(Concern, question.concern_id).state == "cancelled"


def test_a_failed_delivery_is_listed_in_the_readers_words_not_the_failed_messages(ctx, clock, team):
    from channels.errors import Unreachable

    feishu, telegram = team
    telegram.fail_with("tg_ls", Unreachable("blocked", permanent=True), always=True)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi 预算表呢？")  # 李四 reads English
    clock.set(NINE_NEXT_DAY)
    tick(ctx)
    [text] = _brief_texts(feishu)
    assert "发给 李四 的消息没送到：预算表呢？" in text and "would like to know" not in text


def test_a_morning_of_many_briefs_is_spread_over_passes_and_a_signal_between_them_goes_first(
    ctx, clock, team, monkeypatch
):
    _, telegram = team
    for n in range(pipeline.BRIEFS_PER_PASS + 2):  # with p_boss: two passes' worth and more
        add_person(ctx, f"p_head{n}", role="principal", bindings=[{"channel": "feishu", "external_user_id": f"h{n}"}])
    clock.set(NINE_NEXT_DAY)
    first = tick(ctx)
    decided = len(_all_brief_decisions(ctx))
    assert decided == pipeline.BRIEFS_PER_PASS and first["chores_left"] == 1 and first["more"] == 1
    asked_before_briefs: list[int] = []
    send_due = briefs.send_due
    monkeypatch.setattr(
        briefs, "send_due", lambda c, **kw: asked_before_briefs.append(_asked(telegram)) or send_due(c, **kw)
    )
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？", process=False)
    while tick(ctx)["more"]:
        pass
    assert asked_before_briefs[0] == 1  # the question arrived between two slices of briefs: it went out first
    assert len(_all_brief_decisions(ctx)) == pipeline.BRIEFS_PER_PASS + 3  # every principal's, each once


def _asked(telegram) -> int:
    return len(telegram.texts_to("tg_zs"))


def _all_brief_decisions(ctx) -> list[Fact]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Fact).where(Fact.dedup_key.like("brief:%"))))


def test_a_pass_told_that_new_work_waits_decides_one_brief_and_leaves_the_rest(ctx, clock, team):
    for n in range(3):
        add_person(ctx, f"p_head{n}", role="principal", bindings=[{"channel": "feishu", "external_user_id": f"h{n}"}])
    clock.set(NINE_NEXT_DAY)
    result = tick(ctx, interrupted=lambda: True)
    assert len(_all_brief_decisions(ctx)) == 1 and result["chores_left"] == 1
    assert tick(ctx)["chores_left"] == 0 and len(_all_brief_decisions(ctx)) == 4
