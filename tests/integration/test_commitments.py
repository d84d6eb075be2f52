"""Promises in answers become commitments; deadlines in asks tighten the schedule (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select

from action.models import ButtonRow
from app.pipeline import tick
from concern.commands import Extend
from concern.kinds import commitments
from concern.models import OutboxEntry
from fact.models import Fact
from tests.integration.story_helpers import command_in_chat, say

H = timedelta(hours=1)
M = timedelta(minutes=1)


def _concerns(client, **params):
    return client.get("/v1/concerns", params=params).json()["items"]


def _changes(ctx, concern_id):
    with ctx.reader() as uow:
        facts = uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed")).all()
        return [f.content for f in facts if f.content["concern_id"] == concern_id]


def _promise(ctx, clock, client, team, answer="明天下午3点给你"):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 测试报告什么时候给？")
    clock.advance(H)
    say(ctx, channel="telegram", user="tg_zs", text=answer)
    [commitment] = _concerns(client, kind="commitment")
    return commitment


def test_an_answer_with_a_promise_flows_back_at_once_and_opens_a_commitment(ctx, clock, client, team):
    feishu, _ = team
    commitment = _promise(ctx, clock, client, team)
    [question] = _concerns(client, kind="question")
    assert question["state"] == "resolved" and question["answer"] == "明天下午3点给你"
    backflow = feishu.texts_to("ou_boss")[-1]
    assert "明天下午3点给你" in backflow and "张三承诺 明天 15:00 前给你" in backflow
    assert commitment["state"] == "waiting_reply" and commitment["parent_id"] == question["concern_id"]
    assert commitment["due_at"] == "2026-03-19T15:00:00+08:00"
    assert commitment["next_follow_up_at"] == "2026-03-19T15:00:00+08:00"
    assert (commitment["originator_id"], commitment["target_person_id"]) == ("p_boss", "p_zhangsan")
    assert commitment["question"] == question["question"]
    decisions = client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"]
    [opened] = [d["content"] for d in decisions if d["content"]["rule"] == "commitment_in_answer"]
    assert opened["requested"][0]["words"] == "明天下午3点"


def test_a_commitment_does_not_count_toward_l2(ctx, clock, client, team):
    _promise(ctx, clock, client, team)
    with ctx.reader() as uow:
        from concern import service

        assert service.active_counts(uow, target_person_id="p_zhangsan") == (0, 0)


def test_at_the_due_moment_the_person_gets_a_check_in_with_done_and_more_time(ctx, clock, client, team):
    _, telegram = team
    commitment = _promise(ctx, clock, client, team)
    before = len(telegram.texts_to("tg_zs"))
    clock.set(datetime.fromisoformat(commitment["due_at"]) - M)
    tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == before
    clock.advance(M)
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1] == (
        "你答应过老板：“明天下午3点给你”（今天 15:00），是关于“测试报告什么时候给？”。现在完成了吗？"
    )
    with ctx.reader() as uow:
        entry = uow.session.scalars(
            select(OutboxEntry).where(
                OutboxEntry.concern_id == commitment["concern_id"], OutboxEntry.purpose == "question"
            )
        ).one()
        labels = [b["label"] for b in entry.request["buttons"]]
        assert labels == ["已完成", "再给我 2 小时", "为什么收到这条？", "消息太多"]
        rows = uow.session.scalars(select(ButtonRow).where(ButtonRow.request_key == entry.request_key)).all()
        assert {(r.verb, r.addressee_id, r.concern_id) for r in rows} == {
            ("done", "p_zhangsan", commitment["concern_id"]),
            ("extend", "p_zhangsan", commitment["concern_id"]),
        }
        assert next(r for r in rows if r.verb == "extend").args == {"hours": 2}


def test_done_flows_back_and_counts_the_promise_kept_on_time(ctx, clock, client, team):
    feishu, _ = team
    commitment = _promise(ctx, clock, client, team)
    clock.set(datetime.fromisoformat(commitment["due_at"]))
    tick(ctx)
    with ctx.uow(actor="test") as uow:
        assert commitments.complete_commitment(
            uow, concern_id=commitment["concern_id"], by="p_zhangsan", decision_id=commitment["concern_id"]
        )
    tick(ctx)
    assert feishu.texts_to("ou_boss")[-1] == "张三：已完成 ——“测试报告什么时候给？”（按时）"
    [done] = _concerns(client, kind="commitment")
    assert done["state"] == "resolved" and done["answered_by"] == "p_zhangsan"
    [kept] = [c for c in _changes(ctx, commitment["concern_id"]) if c["change"] == "commitment_kept"]
    assert kept["on_time"] is True
    with ctx.uow(actor="test") as uow:  # pressed twice: closed already, nothing changes
        assert (
            commitments.complete_commitment(
                uow, concern_id=commitment["concern_id"], by="p_zhangsan", decision_id=commitment["concern_id"]
            )
            is None
        )


def test_a_typed_reply_to_the_check_in_keeps_the_promise_late(ctx, clock, client, team):
    feishu, _ = team
    commitment = _promise(ctx, clock, client, team)
    clock.set(datetime.fromisoformat(commitment["due_at"]))
    tick(ctx)
    clock.advance(H)
    say(ctx, channel="telegram", user="tg_zs", text="发你邮箱了")
    assert feishu.texts_to("ou_boss")[-1] == "张三回复了承诺的“测试报告什么时候给？”：发你邮箱了（晚了 1小时）"
    [kept] = [c for c in _changes(ctx, commitment["concern_id"]) if c["change"] == "commitment_kept"]
    assert kept["on_time"] is False
    assert len(_concerns(client, kind="commitment")) == 1  # the reply opened no new commitment


def test_two_more_hours_moves_the_due_moment_and_tells_the_new_time(ctx, clock, client, team):
    _, telegram = team
    commitment = _promise(ctx, clock, client, team)
    due = datetime.fromisoformat(commitment["due_at"])
    clock.set(due)
    tick(ctx)
    clock.advance(10 * M)
    command_in_chat(ctx, person_id="p_zhangsan", command=Extend(commitment["concern_id"], hours=2))
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1] == "好的，新的时间是 今天 17:10，到时我再问你。"
    [extended] = _concerns(client, kind="commitment")
    assert extended["due_at"] == "2026-03-19T17:10:00+08:00"
    assert extended["next_follow_up_at"] == "2026-03-19T17:10:00+08:00"
    clock.set(due + 2 * H + 10 * M)
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1] == (
        "你答应过老板：“明天下午3点给你”（今天 17:10），是关于“测试报告什么时候给？”。现在完成了吗？"
    )


def test_silence_after_the_check_in_follows_up_then_escalates_and_the_slip_is_told_once(ctx, clock, client, team):
    feishu, telegram = team
    commitment = _promise(ctx, clock, client, team)  # P1: follow-ups after 4 h and 24 h, escalation 24 h later
    due = datetime.fromisoformat(commitment["due_at"])
    clock.set(due)
    tick(ctx)
    clock.advance(4 * H)
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】你答应过老板：“明天下午3点给你”")
    for _ in range(4):
        clock.advance(24 * H)
        tick(ctx)
    slipped = [t for t in feishu.texts_to("ou_boss") if t.startswith("【承诺未兑现】")]
    assert slipped == [
        "【承诺未兑现】张三答应 03-19（周四）15:00 前给你的“测试报告什么时候给？”还没有完成，我会继续跟进。"
    ]
    escalations = [t for t in feishu.texts_to("ou_wangwu") if t.startswith("【升级")]
    assert escalations[0].startswith("【升级】") and len(escalations) <= 2  # the escalation, repeated at most once
    clock.advance(8 * 24 * H)
    tick(ctx)
    changes = [c["change"] for c in _changes(ctx, commitment["concern_id"])]
    assert changes.count("commitment_slipped") == 1 and "expired" in changes, " ".join(changes)


def test_an_english_promise_is_read_in_the_targets_timezone(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_lisi P1 weekly report?")
    say(ctx, channel="telegram", user="tg_ls", text="by Friday 5pm")
    [commitment] = _concerns(client, kind="commitment")
    assert commitment["due_at"] == "2026-03-20T17:00:00+08:00"


def test_a_deadline_in_the_ask_is_set_and_the_escalation_comes_by_it(ctx, clock, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：周报今天下班前能交吗？")
    [concern] = _concerns(client)
    assert concern["deadline"] == "2026-03-18T18:00:00+08:00"
    assert concern["question"] == "周报今天下班前能交吗？"
    assert telegram.texts_to("tg_zs") == ["老板想了解：周报今天下班前能交吗？"]
    # P1 would follow up after 4 h (16:00); the one follow-up L3 still allows waits until 17:30.
    assert concern["next_follow_up_at"] == "2026-03-18T17:30:00+08:00"
    clock.set(datetime.fromisoformat("2026-03-18T17:30:00+08:00"))
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】")
    assert _concerns(client)[0]["next_follow_up_at"] == "2026-03-18T18:00:00+08:00"
    clock.set(datetime.fromisoformat("2026-03-18T18:00:00+08:00"))
    tick(ctx)
    escalations = [t for t in feishu.texts_to("ou_wangwu") if t.startswith("【升级")]
    assert escalations[0].startswith("【升级】") and len(escalations) <= 2  # the escalation, repeated at most once


def test_a_deadline_already_past_sets_none(ctx, clock, client, team):
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 by 9:00 today: is the build green?")
    [concern] = _concerns(client)
    assert concern["deadline"] is None
