"""Away and back said in chat: the person's own work state, recorded as their change; what waited goes out spaced."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.pipeline import tick
from concern.kinds.away import RELEASE_SPACING
from concern.models import Concern
from fact.models import Fact
from tests.integration.press_helpers import buttons_to, outcomes_to, press
from tests.integration.story_helpers import say


def person_changes(ctx, person_id: str) -> list[Fact]:
    with ctx.reader() as uow:
        stmt = select(Fact).where(Fact.fact_type == "person_changed").order_by(Fact.pk)
        return [f for f in uow.session.scalars(stmt) if person_id in f.person_refs]


def work_state(client, person_id: str) -> dict:
    return client.get(f"/v1/persons/{person_id}").json()["work_state"]


def loops(ctx) -> list[Concern]:
    with ctx.reader() as uow:
        return list(uow.session.scalars(select(Concern).order_by(Concern.created_at, Concern.concern_id)))


def test_someone_waited_on_who_says_they_are_on_leave_sets_it_and_the_question_waits(ctx, clock, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    assert telegram.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]
    say(ctx, channel="telegram", user="tg_zs", text="我请假到周五")  # a command, not the answer
    assert work_state(client, "p_zhangsan") == {
        "status": "on_leave",
        "until": "2026-03-20T16:00:00Z",  # Saturday 00:00 there
        "stand_in_id": None,
        "note": "我请假到周五",
    }
    [loop] = loops(ctx)
    assert loop.state == "waiting_reply" and loop.answer is None
    change = person_changes(ctx, "p_zhangsan")[-1]
    assert change.source == "person" and change.content["after"]["work_state"]["status"] == "on_leave"
    assert "记下了：你请假到 03-21（周六）00:00" in telegram.texts_to("tg_zs")[-1]
    clock.advance(timedelta(hours=4))  # the follow-up falls due while they are away: held, the asker told
    tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == 2
    assert loops(ctx)[0].held_by == "away"
    assert "张三请假到" in feishu.texts_to("ou_boss")[-1]


def test_saying_back_releases_what_waited_one_question_at_a_time(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="/away")  # open-ended
    assert work_state(client, "p_zhangsan")["status"] == "away"
    for n, question in enumerate(("周报写了吗？", "提测什么时候能给？", "下周能来开会吗？")):
        body = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": question}
        assert client.post("/v1/concerns", json={**body, "priority": "P0" if n == 2 else "P2"}).status_code == 201
    asked = [t for t in telegram.texts_to("tg_zs") if t.startswith("老板想了解")]
    assert asked == ["老板想了解：下周能来开会吗？"]  # a P0 goes through: nobody stands in
    say(ctx, channel="telegram", user="tg_zs", text="我回来了")
    assert work_state(client, "p_zhangsan") == {"status": "available", "until": None, "stand_in_id": None, "note": ""}
    welcome, released = telegram.texts_to("tg_zs")[-2:]
    assert "欢迎回来" in welcome and released == "老板想了解：周报写了吗？"  # the welcome, then the oldest at once
    tick(ctx)
    asked = [t for t in telegram.texts_to("tg_zs") if t.startswith("老板想了解")]
    assert asked[1:] == ["老板想了解：周报写了吗？"]  # the next one waits its turn
    clock.advance(RELEASE_SPACING + timedelta(seconds=30))
    tick(ctx)
    asked = [t for t in telegram.texts_to("tg_zs") if t.startswith("老板想了解")]
    assert asked[1:] == ["老板想了解：周报写了吗？", "老板想了解：提测什么时候能给？"]


def test_a_stand_in_an_admin_named_is_kept_when_the_person_restates_their_leave(ctx, clock, client, team):
    _, telegram = team
    leave = {"status": "on_leave", "until": None, "stand_in_id": "p_lisi"}
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": leave}).status_code == 200
    say(ctx, channel="telegram", user="tg_zs", text="I'm on leave until Friday")
    assert work_state(client, "p_zhangsan") == {
        "status": "on_leave",
        "until": "2026-03-19T16:00:00Z",  # English "until Friday": back on Friday, 00:00 there
        "stand_in_id": "p_lisi",
        "note": "I'm on leave until Friday",
    }


def test_a_reply_that_mentions_a_trip_is_still_the_answer(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：合同什么时候给？")
    say(ctx, channel="telegram", user="tg_zs", text="我在出差，合同下周给你")
    [loop] = [c for c in loops(ctx) if c.kind == "question"]
    assert loop.state == "resolved" and loop.answer == "我在出差，合同下周给你"
    assert work_state(client, "p_zhangsan")["status"] == "available"


def test_the_brief_lists_a_question_waiting_for_someone_away_with_no_return_date(ctx, clock, client, team):
    feishu, _ = team
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": {"status": "away"}}).status_code == 200
    body = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": "周报写了吗？", "priority": "P2"}
    assert client.post("/v1/concerns", json=body).status_code == 201
    say(ctx, channel="feishu", user="ou_boss", text="/brief")
    assert "张三不在（回来时间未定）：周报写了吗？ · 等张三回来再问" in feishu.texts_to("ou_boss")[-1]


def test_the_asker_of_a_question_held_for_someone_away_can_ask_the_stand_in_with_one_press(ctx, clock, client, team):
    feishu, telegram = team
    leave = {"status": "on_leave", "until": "2026-03-20T09:00:00+08:00", "stand_in_id": "p_lisi"}
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": leave}).status_code == 200
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    offered = buttons_to(feishu, "ou_boss")
    assert list(offered) == ["改问李四", "等张三回来", "取消"]
    press(ctx, channel="feishu", user="ou_boss", token=offered["改问李四"])
    held, asked = loops(ctx)
    assert (held.state, asked.target_person_id, asked.state) == ("cancelled", "p_lisi", "waiting_reply")
    assert telegram.texts_to("tg_ls")[-1].endswith("提测什么时候能给？")
    assert telegram.texts_to("tg_zs") == []


def test_without_a_stand_in_the_held_notice_offers_to_wait_or_cancel(ctx, clock, client, team):
    feishu, _ = team
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": {"status": "away"}}).status_code == 200
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？")
    offered = buttons_to(feishu, "ou_boss")
    assert list(offered) == ["等张三回来", "取消"]
    press(ctx, channel="feishu", user="ou_boss", token=offered["等张三回来"])
    assert outcomes_to(ctx, "p_boss")[-1].endswith("好的，等张三回来再问")
    assert [loop.state for loop in loops(ctx)] == ["waiting_reply"]  # still held for the return
    assert press(ctx, channel="feishu", user="ou_boss", token=offered["取消"]) == "已经处理过了"  # one choice
    assert [loop.state for loop in loops(ctx)] == ["waiting_reply"]  # (the brief still offers Cancel)


def test_a_message_passed_on_to_someone_away_waits_for_their_return_and_a_p0_does_not(ctx, clock, client, team):
    feishu, telegram = team
    leave = {"status": "on_leave", "until": "2026-03-20T09:00:00+08:00"}
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": leave}).status_code == 200
    say(ctx, channel="feishu", user="ou_boss", text="告诉张三：下周一的评审改到周二")
    assert telegram.texts_to("tg_zs") == []
    assert "张三" in feishu.texts_to("ou_boss")[-1] and "等张三回来再转告" in feishu.texts_to("ou_boss")[-1]
    told = len(feishu.texts_to("ou_boss"))
    clock.advance(timedelta(hours=2))
    tick(ctx)
    assert telegram.texts_to("tg_zs") == [] and len(feishu.texts_to("ou_boss")) == told  # the asker heard it once
    say(ctx, channel="feishu", user="ou_boss", text="/tell @p_zhangsan P0 机房停电，今晚别来加班")
    assert [t for t in telegram.texts_to("tg_zs") if "机房停电" in t]  # a P0 goes through
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": {"status": "available"}}).status_code == 200
    tick(ctx)
    assert [t for t in telegram.texts_to("tg_zs") if "评审改到周二" in t]
    with ctx.reader() as uow:
        held = [f for f in uow.session.scalars(select(Fact).where(Fact.fact_type == "system"))
                if f.content.get("event") == "away_held"]  # fmt: skip
    assert len(held) == 1


def test_a_stand_in_said_in_chat_is_recorded_and_nobody_is_contacted(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="那个我明天开始请两天假哈，有事找李四")
    assert work_state(client, "p_zhangsan") == {
        "status": "on_leave",
        "until": "2026-03-20T16:00:00Z",  # Saturday 00:00 there: Thursday and Friday off
        "stand_in_id": "p_lisi",
        "note": "那个我明天开始请两天假哈，有事找李四",
    }
    assert telegram.texts_to("tg_ls") == []  # the stand-in is noted, not messaged
