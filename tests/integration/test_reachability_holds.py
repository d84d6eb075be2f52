"""The reachability model before a loop's contacts: away holds the question, L1's holds and the usual-hour moves are
recorded on the loop (`held_until` / `held_by`), and the contact goes out at its moment."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from app.pipeline import tick
from concern.models import Concern
from fact.models import Fact
from tests.integration.action_helpers import add_person
from tests.integration.story_helpers import say

H = timedelta(hours=1)
FRIDAY_9 = datetime(2026, 3, 20, 1, 0, tzinfo=UTC)  # Friday 09:00 Asia/Shanghai
QUESTION = "尽快问一下张三：提测什么时候能给？"  # 尽快: P1, followed up after 4 h


def _concern(ctx) -> Concern:
    with ctx.reader() as uow:
        return uow.session.scalars(select(Concern)).one()


def _changes(ctx, change: str) -> list[dict]:
    with ctx.reader() as uow:
        facts = uow.session.scalars(select(Fact).where(Fact.fact_type == "concern_changed").order_by(Fact.pk))
        return [f.content for f in facts if f.content["change"] == change]


def test_a_question_to_someone_on_leave_waits_for_their_return_and_the_asker_hears_of_the_stand_in(
    ctx, clock, client, team
):
    feishu, telegram = team
    leave = {"status": "on_leave", "until": "2026-03-20T09:00:00+08:00", "stand_in_id": "p_lisi"}
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": leave}).status_code == 200
    say(ctx, channel="feishu", user="ou_boss", text=QUESTION)
    concern = _concern(ctx)
    assert telegram.texts_to("tg_zs") == []
    assert (concern.state, concern.held_by, concern.held_until) == ("waiting_reply", "away", FRIDAY_9)
    assert concern.next_follow_up_at == FRIDAY_9
    assert feishu.texts_to("ou_boss") == [
        "张三请假到 后天 09:00：等张三回来再问“提测什么时候能给？”。 李四代理张三的工作。"
    ]
    assert _changes(ctx, "held")[0]["reasons"] == ["stand_in", "leave_until"]
    clock.set(FRIDAY_9 - H)
    tick(ctx)
    assert telegram.texts_to("tg_zs") == []  # not a minute early
    clock.set(FRIDAY_9 + timedelta(seconds=30))
    tick(ctx)
    assert telegram.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]
    back = _concern(ctx)
    assert (back.held_by, back.held_until) == (None, None) and back.next_follow_up_at > clock.now()


def test_a_p0_goes_through_to_someone_away_without_a_stand_in_and_a_p2_waits_open_ended(ctx, clock, client, team):
    feishu, telegram = team
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": {"status": "away"}}).status_code == 200
    body = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": "线上故障谁在跟？"}
    assert client.post("/v1/concerns", json={**body, "priority": "P0"}).status_code == 201
    assert telegram.texts_to("tg_zs") == ["老板想了解：线上故障谁在跟？"]
    response = client.post("/v1/concerns", json={**body, "question": "周报写了吗？", "priority": "P2"})
    assert response.status_code == 201, response.text
    held = response.json()
    assert (held["held_by"], held["held_until"], held["state"]) == ("away", None, "waiting_reply")
    assert "回来时间未定" in feishu.texts_to("ou_boss")[-1]
    clock.advance(7 * H)  # still away: looked at again, still held; the P0's follow-ups go on
    tick(ctx)
    assert not any("周报" in t for t in telegram.texts_to("tg_zs"))
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": {"status": "available"}}).status_code == 200
    tick(ctx)  # back: released at once, not at the next look
    assert [t for t in telegram.texts_to("tg_zs") if "周报" in t] == ["老板想了解：周报写了吗？"]


def test_a_follow_up_held_by_quiet_hours_is_recorded_on_the_loop(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text=QUESTION)  # 12:00, P1: first follow-up at 16:00
    quiet = {"quiet_hours": [{"start": "15:00", "end": "20:00"}]}
    assert client.patch("/v1/persons/p_zhangsan/interaction_policy", json=quiet).status_code == 200
    clock.advance(4 * H)
    tick(ctx)
    held = _concern(ctx)
    evening = datetime(2026, 3, 18, 12, 0, tzinfo=UTC)  # 20:00 local
    assert (held.held_by, held.held_until, len(telegram.texts_to("tg_zs"))) == ("quiet_hours", evening, 1)
    concern_id = held.concern_id
    api = client.get(f"/v1/concerns/{concern_id}").json()
    assert (api["held_by"], api["held_until"]) == ("quiet_hours", "2026-03-18T20:00:00+08:00")
    clock.set(evening + timedelta(seconds=30))
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】") and _concern(ctx).held_by is None


def test_a_follow_up_moves_to_the_hour_the_person_usually_answers_within_half_its_wait(ctx, clock, team):
    _, telegram = team
    with ctx.uow(actor="test") as uow:
        for day in range(1, 7):  # answered at 17:xx local on six recent days
            answered = clock.now() - timedelta(days=day) + timedelta(hours=5, minutes=20)
            uow.session.add(Concern(concern_id=f"con_2026031{day}_009", originator_id="p_boss",
                                    target_person_id="p_zhangsan", question="q", priority="P2", state="resolved",
                                    answered_by="p_zhangsan", resolved_at=answered,
                                    created_at=answered - H, updated_at=answered))  # fmt: skip
    say(ctx, channel="feishu", user="ou_boss", text=QUESTION)  # 12:00, P1: follow-up due 16:00, wait 4 h
    clock.advance(4 * H)
    tick(ctx)
    moved = _changes(ctx, "moved")
    assert len(moved) == 1 and moved[0]["reasons"] == ["answering_hours", "usually"]
    with ctx.reader() as uow:
        loop = uow.session.scalars(select(Concern).where(Concern.state == "waiting_reply")).one()
    assert loop.next_follow_up_at == datetime(2026, 3, 18, 9, 0, tzinfo=UTC) and loop.held_by is None  # 17:00 local
    assert len(telegram.texts_to("tg_zs")) == 1
    clock.set(datetime(2026, 3, 18, 9, 0, 30, tzinfo=UTC))
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】")


def _escalate_p0(ctx, clock) -> None:
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P0 线上故障谁在跟？")
    for _ in range(2):  # P0: a follow-up after an hour, the escalation after another
        clock.advance(H)
        tick(ctx)


def test_an_escalation_skips_a_manager_on_leave_to_their_stand_in(ctx, clock, client, team):
    feishu, telegram = team
    leave = {"status": "on_leave", "until": "2026-03-25T09:00:00+08:00", "stand_in_id": "p_lisi"}
    assert client.patch("/v1/persons/p_wangwu", json={"work_state": leave}).status_code == 200
    _escalate_p0(ctx, clock)
    assert feishu.texts_to("ou_wangwu") == []
    assert any("线上故障谁在跟" in t for t in telegram.texts_to("tg_ls"))
    assert _concern(ctx).escalated_to == "p_lisi"


def test_an_escalation_skips_an_away_manager_without_a_stand_in_to_the_next_level(ctx, clock, client, team):
    feishu, _ = team
    add_person(ctx, "p_zhaoliu", display_name="赵六", bindings=[{"channel": "feishu", "external_user_id": "ou_zl"}])
    away = {"manager_id": "p_zhaoliu", "work_state": {"status": "away"}}
    assert client.patch("/v1/persons/p_wangwu", json=away).status_code == 200
    _escalate_p0(ctx, clock)
    assert feishu.texts_to("ou_wangwu") == [] and any("线上故障谁在跟" in t for t in feishu.texts_to("ou_zl"))
