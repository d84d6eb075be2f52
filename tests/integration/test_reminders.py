"""Reminders people set for themselves: confirmed in their timezone, fired once at due_at, Done / Later 1h, quiet hours.

SQLite and PostgreSQL (the `team` fixture: p_zhangsan on Telegram in Asia/Shanghai, p_lisi in English).
"""

from __future__ import annotations

import multiprocessing
from datetime import datetime, timedelta

import pytest
from sqlalchemy import select

from action.models import ActionRow
from app.pipeline import tick
from concern.models import Concern
from person import service as persons
from person.models import InteractionPolicyPatch, PersonUpdate
from tests.integration.press_helpers import buttons_to, press
from tests.integration.story_helpers import say
from tests.integration.workers import tick_at

M = timedelta(minutes=1)
H = timedelta(hours=1)


def _reminders(ctx, person_id="p_zhangsan"):
    with ctx.reader() as uow:
        stmt = select(Concern).where(Concern.kind == "reminder", Concern.originator_id == person_id)
        return list(uow.session.scalars(stmt.order_by(Concern.concern_id)))


def _count(telegram, user, text):
    return sum(1 for t in telegram.texts_to(user) if t == text)


def test_a_reminder_in_chinese_is_confirmed_with_its_local_time_and_fires_once_at_due_at(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="提醒我1分钟后提交周报")
    [reminder] = _reminders(ctx)
    assert reminder.target_person_id == "p_zhangsan" and reminder.question == "提交周报"
    assert telegram.texts_to("tg_zs")[-1] == "好的，今天 12:01 提醒你：提交周报"  # no record id in the words
    assert list(buttons_to(telegram, "tg_zs")) == ["取消这个提醒"]
    tick(ctx)
    assert _count(telegram, "tg_zs", "⏰ 提醒：提交周报") == 0
    clock.advance(M)
    tick(ctx)
    tick(ctx)
    assert _count(telegram, "tg_zs", "⏰ 提醒：提交周报") == 1
    assert list(buttons_to(telegram, "tg_zs")) == ["已完成", "稍后 1小时"]


def test_tomorrow_at_a_clock_time_is_read_in_the_persons_timezone(ctx, clock, team):
    _, telegram = team
    with ctx.uow() as uow:
        persons.update(uow, person_id="p_zhangsan", patch=PersonUpdate(timezone="America/New_York"))
    say(ctx, channel="telegram", user="tg_zs", text="提醒我明天上午10点交周报")
    [reminder] = _reminders(ctx)
    # 12:00 Shanghai is 00:00 in New York: "tomorrow" is the 19th there, 10:00 EDT = 14:00 UTC.
    assert reminder.due_at == datetime.fromisoformat("2026-03-19T14:00:00+00:00")
    assert "明天 10:00 提醒你：交周报" in telegram.texts_to("tg_zs")[-1]


def test_slash_remind_in_english_and_the_list_and_cancel(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_ls", text="/remind 10m call the vendor")
    say(ctx, channel="telegram", user="tg_ls", text="/remind tomorrow 9:30 standup notes")
    first, second = _reminders(ctx, "p_lisi")
    assert telegram.texts_to("tg_ls")[-1] == "OK, I'll remind you tomorrow 09:30: standup notes"
    say(ctx, channel="telegram", user="tg_ls", text="/reminders")
    listing = telegram.texts_to("tg_ls")[-1]
    assert listing.splitlines() == [
        "Your reminders (2):",
        "1. today 12:10 call the vendor",
        "2. tomorrow 09:30 standup notes",
    ]
    assert list(buttons_to(telegram, "tg_ls")) == ["Cancel 1", "Cancel 2"]
    press(ctx, channel="telegram", user="tg_ls", token=buttons_to(telegram, "tg_ls")["Cancel 1"])
    assert telegram.texts_to("tg_ls")[-1] == "Cancelled."
    say(ctx, channel="telegram", user="tg_ls", text=f"/cancel {second.concern_id}")  # the id still works typed
    assert telegram.texts_to("tg_ls")[-1] == "Cancelled."
    clock.advance(20 * M)
    tick(ctx)
    assert not any("call the vendor" in t for t in telegram.texts_to("tg_ls") if t.startswith("⏰"))
    say(ctx, channel="telegram", user="tg_ls", text="/reminders")
    assert first.concern_id not in telegram.texts_to("tg_ls")[-1]


def test_a_reminder_without_a_time_or_in_the_past_sets_nothing(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_ls", text="/remind call the vendor")
    assert telegram.texts_to("tg_ls")[-1].startswith("Usage: /remind 10m")
    say(ctx, channel="telegram", user="tg_zs", text="提醒我今天上午9点交周报")
    assert telegram.texts_to("tg_zs")[-1].startswith("这个时间已经过去了：今天 09:00")
    assert _reminders(ctx) == [] and _reminders(ctx, "p_lisi") == []


def test_done_closes_the_reminder_and_later_brings_it_back_in_an_hour(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="/remind 5m 交周报")
    say(ctx, channel="telegram", user="tg_zs", text="/remind 5m 订会议室")
    clock.advance(5 * M)
    tick(ctx)
    tick(ctx)
    later = buttons_to(telegram, "tg_zs", -1)  # the second reminder's message
    done = buttons_to(telegram, "tg_zs", -2)
    press(ctx, channel="telegram", user="tg_zs", token=done["已完成"])
    press(ctx, channel="telegram", user="tg_zs", token=later["稍后 1小时"])
    first, second = _reminders(ctx)
    assert first.state == "resolved"
    assert second.state == "waiting_reply" and second.due_at == clock.now() + H
    clock.advance(H)
    tick(ctx)
    assert _count(telegram, "tg_zs", "⏰ 提醒：订会议室") == 2
    assert _count(telegram, "tg_zs", "⏰ 提醒：交周报") == 1


def test_an_unanswered_reminder_is_repeated_once_then_closes_quietly(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="/remind 5m 交周报")
    for _ in range(30):
        clock.advance(H)
        tick(ctx)
    texts = telegram.texts_to("tg_zs")
    assert _count(telegram, "tg_zs", "⏰ 提醒：交周报") == 1
    assert _count(telegram, "tg_zs", "⏰ 再提醒一次：交周报") == 1
    [reminder] = _reminders(ctx)
    assert reminder.state == "expired" and reminder.next_follow_up_at is None
    assert len(telegram.texts_to("tg_zs")) == len(texts)


def test_a_reminder_due_in_quiet_hours_goes_out_when_they_end(ctx, clock, team):
    _, telegram = team
    with ctx.uow() as uow:
        quiet = [{"start": "22:00", "end": "08:00"}]
        persons.patch_policy(uow, person_id="p_zhangsan", patch=InteractionPolicyPatch(quiet_hours=quiet))
    say(ctx, channel="telegram", user="tg_zs", text="提醒我今晚23点吃药")
    [reminder] = _reminders(ctx)
    clock.set(reminder.due_at)
    tick(ctx)
    tick(ctx)
    assert _count(telegram, "tg_zs", "⏰ 提醒：吃药") == 0
    [reminder] = _reminders(ctx)
    assert reminder.next_follow_up_at == datetime.fromisoformat("2026-03-19T08:00:00+08:00")
    clock.set(reminder.next_follow_up_at)
    tick(ctx)
    assert _count(telegram, "tg_zs", "⏰ 提醒：吃药") == 1


def test_the_daily_cap_does_not_hold_a_reminder(ctx, clock, team):
    _, telegram = team
    with ctx.uow() as uow:
        persons.patch_policy(
            uow, person_id="p_zhangsan", patch=InteractionPolicyPatch(max_proactive_contacts_per_day=0)
        )
    say(ctx, channel="telegram", user="tg_zs", text="/remind 1m 交周报")
    clock.advance(M)
    tick(ctx)
    assert _count(telegram, "tg_zs", "⏰ 提醒：交周报") == 1


def test_someone_with_a_question_waiting_can_still_set_a_reminder(ctx, clock, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 周报什么时候给？")
    say(ctx, channel="telegram", user="tg_zs", text="提醒我10分钟后交周报")
    [reminder] = _reminders(ctx)
    assert reminder.question == "交周报"
    say(ctx, channel="telegram", user="tg_zs", text="明天给")  # still the answer to the question
    clock.advance(10 * M)
    tick(ctx)
    assert _count(telegram, "tg_zs", "⏰ 提醒：交周报") == 1


@pytest.mark.slow
def test_two_replicas_ticking_at_due_at_send_the_reminder_once(ctx, clock, team):
    say(ctx, channel="telegram", user="tg_zs", text="/remind 10m 交周报")
    due = clock.advance(10 * M)
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Manager().Barrier(2)
    with spawn.Pool(2) as pool:
        results = pool.starmap(tick_at, [(ctx.settings.database_url, due.isoformat(), barrier)] * 2)
    assert sorted(r["timers_fired"] for r in results) == [0, 1]
    with ctx.reader() as uow:
        sends = uow.session.scalars(select(ActionRow).where(ActionRow.request_key.like("%:reminder:%"))).all()
    assert [(s.result, s.content_preview) for s in sends] == [("success", "⏰ 提醒：交周报")]


def test_a_reminder_on_feishu_comes_back_on_feishu_with_its_buttons(ctx, clock, team):
    feishu, _ = team
    say(ctx, channel="feishu", user="ou_boss", text="/remind 1m 给投资人回邮件")
    assert feishu.texts_to("ou_boss")[-1] == "好的，今天 12:01 提醒你：给投资人回邮件"
    press(ctx, channel="feishu", user="ou_boss", token=buttons_to(feishu, "ou_boss")["取消这个提醒"])
    assert [r.state for r in _reminders(ctx, "p_boss")] == ["cancelled"]  # one press on the confirmation cancels it
    say(ctx, channel="feishu", user="ou_boss", text="/remind 1m 给投资人回邮件")
    clock.advance(M)
    tick(ctx)
    assert feishu.texts_to("ou_boss")[-1] == "⏰ 提醒：给投资人回邮件"
    assert list(buttons_to(feishu, "ou_boss")) == ["已完成", "稍后 1小时"]


@pytest.mark.parametrize(
    ("user", "text", "told"),
    [
        ("tg_ls", "/remind 10m call the vendor", 'An administrator cancelled your reminder ("call the vendor")'),
        ("tg_zs", "提醒我1分钟后提交周报", "管理员取消了你的提醒“提交周报”"),
    ],
    ids=["en", "zh"],
)
def test_an_admin_cancelling_someones_reminder_tells_them_it_was_their_reminder(
    ctx, clock, team, client, user, text, told
):
    _, telegram = team
    say(ctx, channel="telegram", user=user, text=text)
    [reminder] = _reminders(ctx, "p_lisi" if user == "tg_ls" else "p_zhangsan")
    assert client.post(f"/v1/concerns/{reminder.concern_id}/cancel").status_code == 200
    tick(ctx)
    last = telegram.texts_to(user)[-1]
    assert last.startswith(told), last
    assert "question" not in last and "问题" not in last


def test_past_the_buttons_one_message_carries_a_reminder_is_listed_with_the_id_to_type(ctx, clock, team):
    _, telegram = team
    for n in range(7):
        say(ctx, channel="telegram", user="tg_ls", text=f"/remind {10 + n}m task {n}")
    say(ctx, channel="telegram", user="tg_ls", text="/reminders")
    lines = telegram.texts_to("tg_ls")[-1].splitlines()
    seventh = _reminders(ctx, "p_lisi")[-1]
    assert lines[6] == "6. today 12:15 task 5" and lines[7] == f"7. today 12:16 task 6 (/cancel {seventh.concern_id})"
    assert list(buttons_to(telegram, "tg_ls")) == [f"Cancel {n}" for n in range(1, 7)]
