"""Concern engine rules through perception and the core: duplicates, refusals, races, snooze, cancel, risk."""

from datetime import datetime, timedelta

from sqlalchemy import func, select

from action.models import ActionRow
from app.pipeline import tick
from channels.inbound import InboundMessage
from cognitive_core.inbox import process_pending
from concern import timers
from fact.models import Fact
from perception import service as perception
from tests.integration.story_helpers import say

H = timedelta(hours=1)


def _concerns(client, **params):
    return client.get("/v1/concerns", params=params).json()["items"]


def _count(ctx, model, *where):
    with ctx.reader() as uow:
        return uow.session.scalar(select(func.count()).select_from(model).where(*where))


def test_the_same_inbound_event_three_times_makes_one_fact_and_one_question(ctx, client, team):
    _, telegram = team
    for _ in range(3):
        say(ctx, channel="feishu", user="ou_boss", text="尽快问一下张三：提测什么时候能给？", event_id="evt_dup")
    assert _count(ctx, Fact, Fact.fact_type == "message_received") == 1
    assert len(_concerns(client)) == 1 and len(telegram.texts_to("tg_zs")) == 1


def test_a_member_cannot_make_the_bot_ask_someone(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="/ask @p_lisi P1 你好吗")
    assert _concerns(client) == [] and telegram.texts_to("tg_ls") == []
    assert "只有负责人" in telegram.texts_to("tg_zs")[-1]


def test_an_unknown_sender_is_recorded_but_cannot_command(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="telegram", user="tg_stranger", text="/ask @p_zhangsan P1 你好")
    [fact] = client.get("/v1/facts", params={"fact_type": "message_received"}).json()["items"]
    assert fact["content"]["person_id"] is None and fact["person_refs"] == []
    [decision] = client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"]
    assert decision["content"]["rule"] == "unknown_sender"
    assert client.get("/v1/actions").json()["items"] == []


def test_a_reply_that_wins_the_race_stops_the_follow_up(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    clock.advance(4 * H)
    with ctx.uow(actor="scheduler") as uow:  # the timer fires and queues the follow-up ...
        from concern import service

        [due] = service.claim_due(uow, now=uow.now)
        timers.fire(uow, due)
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")  # ... but the answer lands before it is sent
    assert telegram.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？", "已转告老板。"]  # no follow-up
    assert _concerns(client, kind="question")[0]["state"] == "resolved"
    asked = (ActionRow.target_person_id == "p_zhangsan", ActionRow.action_type == "send_message")
    assert _count(ctx, ActionRow, *asked) == 1


def test_snooze_moves_the_next_follow_up(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    clock.advance(3 * H)
    say(ctx, channel="telegram", user="tg_zs", text="稍后 2小时")
    [concern] = _concerns(client)
    assert concern["state"] == "waiting_reply" and concern["next_follow_up_at"] == "2026-03-18T17:00:00+08:00"
    assert "之后再提醒你" in telegram.texts_to("tg_zs")[-1]
    clock.advance(H + H / 2)
    tick(ctx)
    assert len(telegram.texts_to("tg_zs")) == 2  # question + snooze confirmation, no follow-up yet
    clock.advance(H)
    tick(ctx)
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】")


def test_the_originator_cancels_and_no_one_else_can(ctx, clock, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    [concern] = _concerns(client)
    say(ctx, channel="telegram", user="tg_ls", text=f"/cancel {concern['concern_id']}")
    assert _concerns(client)[0]["state"] == "waiting_reply" and "can't cancel" in telegram.texts_to("tg_ls")[-1]
    say(ctx, channel="feishu", user="ou_boss", text=f"取消 {concern['concern_id']}")
    assert _concerns(client)[0]["state"] == "cancelled" and "已取消" in feishu.texts_to("ou_boss")[-1]
    clock.advance(72 * H)
    tick(ctx)
    # The person asked hears once that it is off, and nothing after.
    assert telegram.texts_to("tg_zs")[1:] == ["老板取消了问你的问题“提测什么时候能给？”，不用再回复了。"]


def test_a_risky_message_goes_to_the_manager_and_the_decision_comes_back(ctx, client, team):
    feishu, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="客户要求把合同付款周期改成90天，可以吗？")
    [concern] = _concerns(client)
    assert (
        concern["kind"] == "question"
        and concern["approval"] is True
        and concern["target_person_id"] == "p_wangwu"
        and concern["originator_id"] == "p_zhangsan"
    )
    assert feishu.texts_to("ou_wangwu")[0].startswith("【需要你决定】张三")
    assert "已转给王五" in telegram.texts_to("tg_zs")[-1]
    say(ctx, channel="feishu", user="ou_wangwu", text="最多60天")
    assert telegram.texts_to("tg_zs")[-1] == "王五的决定：最多60天"


def test_without_a_manager_the_originator_hears_that_the_loop_stalled(ctx, clock, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="ask 李四: when is the build ready?")
    assert telegram.texts_to("tg_ls") == ["老板 would like to know: when is the build ready?"]
    for _ in range(7):  # P2 (nothing said about urgency): follow-ups after 1 d and 2 d, the escalation 2 d later
        clock.advance(24 * H)
        tick(ctx)
    assert any(t.startswith("【停滞】你问李四") for t in feishu.texts_to("ou_boss"))


def test_a_quoted_reply_resolves_the_concern_it_quotes(ctx, clock, client, team):
    feishu, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    clock.advance(H)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 周报写了吗？")
    first_message = telegram.sent[0].message_id
    say(ctx, channel="telegram", user="tg_zs", text="周五", reply_to=first_message)
    states = {c["question"]: c["state"] for c in _concerns(client, kind="question")}
    assert states == {"提测什么时候能给？": "resolved", "周报写了吗？": "waiting_reply"}


def test_a_deadline_brings_the_escalation_forward(ctx, clock, client, team):
    feishu, _ = team
    response = client.post(
        "/v1/concerns",
        json={
            "originator_id": "p_boss",
            "target_person_id": "p_zhangsan",
            "question": "报价单发了吗？",
            "priority": "P2",
            "deadline": "2026-03-18T15:00:00+08:00",
        },
    )
    assert response.status_code == 201 and response.json()["action"]["result"] == "success"
    clock.advance(3 * H + H / 2)
    tick(ctx)
    assert feishu.texts_to("ou_wangwu")[0].startswith("【升级】")


def test_a_backflow_blocked_by_quiet_hours_is_delivered_when_they_end(ctx, clock, client, team):
    feishu, _ = team
    client.patch("/v1/persons/p_boss/interaction_policy", json={"quiet_hours": [{"start": "23:00", "end": "08:00"}]})
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan P1 提测什么时候能给？")
    clock.advance(11 * H + H / 2)  # 23:30 local, the boss's quiet hours
    say(ctx, channel="telegram", user="tg_zs", text="明天下午")
    [concern] = _concerns(client, kind="question")
    assert concern["state"] == "resolved" and concern["pending_deliveries"][0]["blocked_by"] == "L1:quiet_hours"
    assert not any("明天下午" in t for t in feishu.texts_to("ou_boss"))
    say(ctx, channel="feishu", user="ou_boss", text="/concerns")  # the answer is visible meanwhile (reactive reply)
    assert "明天下午" in feishu.texts_to("ou_boss")[-1]
    clock.advance(9 * H)  # 08:30
    tick(ctx)
    assert "张三回复了你的问题" in feishu.texts_to("ou_boss")[-1]


def test_self_service_quiet_hours_and_pause_confirm_what_changed(ctx, client, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="免打扰 22:00-07:00")
    policy = client.get("/v1/persons/p_zhangsan/interaction_policy").json()
    assert policy["quiet_hours"] == [{"start": "22:00", "end": "07:00"}]
    assert telegram.texts_to("tg_zs")[-1] == "好的，免打扰时段改为每天 22:00–07:00"
    say(ctx, channel="telegram", user="tg_zs", text="/pause 3d")
    paused = client.get("/v1/persons/p_zhangsan/interaction_policy").json()["paused_until"]
    assert datetime.fromisoformat(paused) == ctx.clock.now() + timedelta(days=3)
    assert telegram.texts_to("tg_zs")[-1] == "好的，暂停到 03-21 12:00（周六）"  # Wednesday noon + 3 days, local
    say(ctx, channel="telegram", user="tg_zs", text="恢复")
    assert client.get("/v1/persons/p_zhangsan/interaction_policy").json()["paused_until"] is None
    assert telegram.texts_to("tg_zs")[-1] == "好的，已恢复消息"
    client.patch("/v1/persons/p_lisi", json={"timezone": "Europe/Berlin"})
    say(ctx, channel="telegram", user="tg_ls", text="/pause 1d")
    assert telegram.texts_to("tg_ls")[-1] == "Done: paused until Thu 03-19 05:00."  # in their own timezone


def test_a_signal_recorded_before_a_crash_is_processed_once_on_restart(ctx, client, team):
    _, telegram = team
    message = InboundMessage(
        channel="feishu",
        event_id="evt_crash",
        message_id="m1",
        chat_id="c1",
        chat_type="p2p",
        external_user_id="ou_boss",
        text="/ask @p_zhangsan P1 提测什么时候能给？",
        occurred_at=ctx.clock.now(),
    )
    perception.record_message(ctx, message=message)  # durable, then the process "dies" before processing
    assert telegram.sent == []
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app(ctx=ctx, run_migrations=False)):
        pass  # start-up resumes the inbox
    assert len(telegram.texts_to("tg_zs")) == 1
    assert process_pending(ctx) == 0
    assert len(telegram.texts_to("tg_zs")) == 1


def test_two_messages_relayed_within_the_hour_both_arrive(ctx, client, team):
    _, telegram = team
    say(ctx, channel="feishu", user="ou_boss", text="告诉张三：明早10点开会")
    say(ctx, channel="feishu", user="ou_boss", text="/tell @zhangsan 会议改到11点")
    assert telegram.texts_to("tg_zs") == ["老板让我转告：明早10点开会。", "老板让我转告：会议改到11点。"]
    assert "已转告张三" in team[0].texts_to("ou_boss")[-1]


def test_asking_yourself_is_answered_not_raised(ctx, client, team):
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_boss P1 在吗")
    assert _concerns(client) == [] and team[0].texts_to("ou_boss")[-1] == "这是你自己呀。"
