"""Read state over the real SDK clients: Feishu's read event and read_users, urgent follow-ups, Telegram unchanged.

lark-oapi and python-telegram-bot talk to the local fakes (tests/fakes), which answer as the platforms document.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.pipeline import tick
from tests.fakes import feishu_server as fs
from tests.fakes.telegram_server import FakeTelegram
from tests.integration import read_state_helpers as h
from tests.integration.action_helpers import add_person

T1500 = datetime(2026, 3, 18, 7, 0, tzinfo=UTC)  # 15:00 Asia/Shanghai, a Wednesday
MS_1502 = int((T1500 + timedelta(minutes=2)).timestamp() * 1000)
FEISHU = [{"channel": "feishu", "external_user_id": "ou_zs"}]
TELEGRAM = [{"channel": "telegram", "external_user_id": "1001", "chat_id": "1001"}]
SLOW = '{"P0": ["1h"], "P1": ["4h"], "P2": ["10d"], "P3": ["10d"]}'  # no follow-up while the poller is watched


@pytest.fixture
def platforms():
    feishu, telegram = fs.FakeFeishu().start(), FakeTelegram().start()
    yield feishu, telegram
    feishu.stop()
    telegram.stop()


def start(database_url, clock, platforms, *, bindings, preferred=None, **settings):
    """The service, p_boss on Feishu and p_zhangsan with `bindings`, at 15:00; (ctx, api)."""
    clock.set(T1500)
    ctx = h.context(database_url, clock, *platforms, **settings)
    boss = [{"channel": "feishu", "external_user_id": "ou_boss"}]
    add_person(ctx, "p_boss", display_name="老板", role="principal", bindings=boss)
    policy = {"preferred_channel": preferred} if preferred else {}
    add_person(ctx, "p_zhangsan", display_name="张三", bindings=bindings, policy=policy)
    return ctx, h.client(ctx)


def question_id(feishu, open_id: str = "ou_zs") -> str:
    return feishu.sent_to(open_id)[0]["message_id"]


def test_a_read_event_delivered_twice_sets_read_at_once(database_url, clock, platforms):
    feishu, _ = platforms
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU)
    with api:
        concern_id = h.ask(api)
        clock.advance(timedelta(minutes=5))
        event = fs.read_event(message_ids=[question_id(feishu)], open_id="ou_zs", read_time_ms=MS_1502, token=h.VTOKEN)
        h.deliver(api, event)
        h.deliver(api, event)  # Feishu delivers at least once
        assert h.loop(api, concern_id)["read_at"] == "2026-03-18T15:02:00+08:00"
        facts = api.get("/v1/facts", params={"fact_type": "system"}).json()["items"]
    assert [f["content"]["event"] for f in facts].count("message_read") == 1
    [read] = h.changes(ctx, concern_id, "read")
    assert (read["via"], read["after"]["read_at"]) == ("event", "2026-03-18T07:02:00+00:00")
    ctx.close()


def test_a_read_event_from_someone_else_or_for_an_older_message_changes_nothing(database_url, clock, platforms):
    feishu, _ = platforms
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU)
    with api:
        concern_id = h.ask(api)
        h.deliver(api, fs.read_event(message_ids=[question_id(feishu)], open_id="ou_other", token=h.VTOKEN))
        h.deliver(api, fs.read_event(event_id="ev_r2", message_ids=["om_elsewhere"], open_id="ou_zs", token=h.VTOKEN))
        assert h.loop(api, concern_id)["read_at"] is None
    ctx.close()


def test_a_read_event_over_the_long_connection_sets_read_at_once(database_url, clock, platforms):
    import lark_oapi.ws.client as ws_client

    from app.inbound import PerceptionInbound
    from channels.feishu.longconn import start_long_connection
    from tests.integration.test_feishu_longconn import wait_for

    feishu, _ = platforms
    feishu.start_long_connection()
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, feishu_mode="websocket")
    captured = ws_client.loop
    with api:
        concern_id = h.ask(api)
        clock.advance(timedelta(minutes=5))
        connection = start_long_connection(ctx, inbound=PerceptionInbound(ctx))
        try:
            event = fs.read_event(message_ids=[question_id(feishu)], open_id="ou_zs", read_time_ms=MS_1502)
            answers = [feishu.push_event(event), feishu.push_event(event)]
            assert wait_for(lambda: h.loop(api, concern_id)["read_at"] is not None)
        finally:
            connection.stop()
            ws_client.loop = captured
        assert h.loop(api, concern_id)["read_at"] == "2026-03-18T15:02:00+08:00"
    assert [a["code"] for a in answers] == [200, 200]
    assert len(h.changes(ctx, concern_id, "read")) == 1
    ctx.close()


def test_the_poller_finds_a_read_in_a_group_chat_and_then_stops_asking(database_url, clock, platforms):
    feishu, _ = platforms
    feishu.members["oc_team"] = {"ou_zs", "ou_ww"}
    group = [{"channel": "feishu", "external_user_id": "ou_zs", "chat_id": "oc_team"}]
    ctx, api = start(database_url, clock, platforms, bindings=group, follow_up_schedule=SLOW)
    with api:
        concern_id = h.ask(api, priority="P2")
        message_id = feishu.sent_to("oc_team")[0]["message_id"]
        feishu.mark_read(message_id, "ou_ww")  # another member of the group read it: not the person asked
        tick(ctx)
        assert h.lookups(feishu) == []  # the first lookup waits one interval after the message went
        clock.advance(timedelta(minutes=5))
        tick(ctx)
        assert len(h.lookups(feishu)) == 1 and h.loop(api, concern_id)["read_at"] is None
        feishu.mark_read(message_id, "ou_zs", at_ms=MS_1502 + 3 * 60_000)
        tick(ctx)
        assert len(h.lookups(feishu)) == 1  # once per interval
        clock.advance(timedelta(minutes=5))
        tick(ctx)
        assert h.loop(api, concern_id)["read_at"] == "2026-03-18T15:05:00+08:00"
        clock.advance(timedelta(minutes=30))
        tick(ctx)
    [lookup, found] = h.lookups(feishu)
    assert (
        found.query["user_id_type"] == "open_id" and found.path == f"/open-apis/im/v1/messages/{message_id}/read_users"
    )
    assert [c["via"] for c in h.changes(ctx, concern_id, "read")] == ["read_users"]
    ctx.close()


def test_the_poller_stops_after_seven_days_and_when_the_loop_closes(database_url, clock, platforms):
    feishu, _ = platforms
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, follow_up_schedule=SLOW)
    with api:
        old, closed = h.ask(api, "预算？", priority="P2"), h.ask(api, "合同？", priority="P2")
        clock.advance(timedelta(minutes=5))
        tick(ctx)
        assert len(h.lookups(feishu)) == 2
        assert api.post(f"/v1/concerns/{closed}/cancel").status_code == 200
        clock.advance(timedelta(days=6, hours=23))
        tick(ctx)
        assert len(h.lookups(feishu)) == 3  # only the open loop's message
        clock.advance(timedelta(hours=2))  # the message is now older than 7 days: Feishu would refuse (230033)
        tick(ctx)
        assert h.loop(api, old)["read_at"] is None
    assert len(h.lookups(feishu)) == 3
    ctx.close()


def follow_up(ctx, clock, concern_id):
    """Four hours on, the P1 follow-up is due: one pass sends it; its action row."""
    clock.advance(timedelta(hours=4))
    tick(ctx)
    sent = h.actions(ctx, concern_id)
    assert len(sent) == 2, [a.result_detail for a in sent]
    return sent[1]


def test_an_unread_p1_follow_up_is_made_urgent_in_app(database_url, clock, platforms):
    feishu, _ = platforms
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, feishu_urgent="app")
    with api:
        concern_id = h.ask(api)
        action = follow_up(ctx, clock, concern_id)
    message_id = feishu.sent_to("ou_zs")[1]["message_id"]
    assert feishu.urgents == [{"message_id": message_id, "mode": "app", "user_ids": ["ou_zs"]}]
    assert action.result == "success" and action.result_detail["urgent"] == {"result": "ok", "modes": ["app"]}
    calls = [(a["channel"], a.get("call"), a.get("result")) for a in action.result_detail["attempts"]]
    assert calls == [("feishu", None, "success"), ("feishu", "urgent_app", "success")]
    assert [c.get("means") for c in h.changes(ctx, concern_id, "timer_fired")] == [["unread_urgent"]]
    ctx.close()


@pytest.mark.parametrize(
    "urgent,limit,failed,modes,reason",
    [
        ("app", "unread", "urgent_app", [], "too_many_unread_urgent"),  # 200 unread urgent messages
        ("app,sms", "quota", "urgent_sms", ["app"], "urgent_quota_exhausted"),  # the tenant's SMS quota is spent
    ],
)
def test_a_failed_urgent_call_leaves_a_successful_follow_up(
    database_url, clock, platforms, urgent, limit, failed, modes, reason
):
    feishu, _ = platforms
    feishu.unread_urgent["ou_zs"] = 200 if limit == "unread" else 0
    feishu.urgent_quota["sms"] = 0
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, feishu_urgent=urgent)
    with api:
        concern_id = h.ask(api)
        action = follow_up(ctx, clock, concern_id)
        assert h.loop(api, concern_id)["follow_up_count"] == 1
    assert action.result == "success" and action.result_detail["message_id"] == feishu.sent_to("ou_zs")[1]["message_id"]
    assert action.result_detail["urgent"] == {"result": "failed", "reason": reason, "modes": modes}
    attempts = action.result_detail["attempts"]
    assert attempts[0]["result"] == "success" and attempts[-1]["call"] == failed
    assert (attempts[-1]["error"], attempts[-1]["code"]) == ("invalid_request", reason)
    assert len(attempts) == 2 + len(modes)
    ctx.close()


def test_a_read_but_unanswered_follow_up_stays_on_its_channel_and_is_never_urgent(database_url, clock, platforms):
    feishu, telegram = platforms
    both = FEISHU + TELEGRAM
    ctx, api = start(database_url, clock, platforms, bindings=both, preferred="feishu", feishu_urgent="app,sms")
    with api:
        concern_id = h.ask(api)
        h.deliver(api, fs.read_event(message_ids=[question_id(feishu)], open_id="ou_zs", token=h.VTOKEN))
        action = follow_up(ctx, clock, concern_id)
        assert h.loop(api, concern_id)["read_at"] is None  # the follow-up is the latest message now: unread
    assert action.channel == "feishu" and len(feishu.sent_to("ou_zs")) == 2 and telegram.calls("sendMessage") == []
    assert feishu.urgents == [] and "urgent" not in action.result_detail
    assert "看到你已经读过了" in action.content_preview  # the gentler follow-up
    assert [c.get("means") for c in h.changes(ctx, concern_id, "timer_fired")] == [["read_unanswered"]]
    ctx.close()


def test_an_unread_p1_follow_up_goes_to_the_other_channel_first(database_url, clock, platforms):
    feishu, telegram = platforms
    both = FEISHU + TELEGRAM
    ctx, api = start(database_url, clock, platforms, bindings=both, preferred="feishu", feishu_urgent="app")
    with api:
        concern_id = h.ask(api)
        action = follow_up(ctx, clock, concern_id)
    assert h.actions(ctx, concern_id)[0].channel == "feishu"  # the preferred channel first for the first contact
    assert action.channel == "telegram" and [c["chat_id"] for c in telegram.calls("sendMessage")] == ["1001"]
    assert feishu.urgents == [] and len(feishu.sent_to("ou_zs")) == 1
    assert "看到你已经读过了" not in action.content_preview and "【跟进】" in action.content_preview
    assert [c.get("means") for c in h.changes(ctx, concern_id, "timer_fired")] == [["unread_other_channel"]]
    ctx.close()


def test_telegram_loops_show_no_read_state_and_follow_up_as_before(database_url, clock, platforms):
    feishu, telegram = platforms
    ctx, api = start(database_url, clock, platforms, bindings=TELEGRAM, feishu_urgent="app,sms,phone")
    with api:
        concern_id = h.ask(api)
        clock.advance(timedelta(minutes=5))
        tick(ctx)
        action = follow_up(ctx, clock, concern_id)
        assert h.loop(api, concern_id)["read_at"] is None
    assert action.channel == "telegram" and "urgent" not in action.result_detail
    assert h.lookups(feishu) == [] and feishu.urgents == [] and len(telegram.calls("sendMessage")) == 2
    assert [c.get("means") for c in h.changes(ctx, concern_id, "timer_fired")] == [None]
    ctx.close()


def test_a_follow_up_decided_urgent_goes_plain_when_the_last_message_is_read_before_it_goes(
    database_url, clock, platforms
):
    from concern.outbox import drain
    from concern.timers import fire_due

    feishu, _ = platforms
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, feishu_urgent="app")
    with api:
        concern_id = h.ask(api)
        clock.advance(timedelta(hours=4))
        assert fire_due(ctx) == 1  # decided while unread: queued as urgent
        h.deliver(api, fs.read_event(message_ids=[question_id(feishu)], open_id="ou_zs", token=h.VTOKEN))
        drain.drain(ctx)
    [_, action] = h.actions(ctx, concern_id)
    assert action.result == "success" and "urgent" not in action.result_detail and feishu.urgents == []
    assert [c.get("means") for c in h.changes(ctx, concern_id, "timer_fired")] == [["unread_urgent"]]
    ctx.close()


def test_a_dry_run_feishu_loop_has_no_read_state_to_act_on(database_url, clock, platforms):
    feishu, _ = platforms
    ctx, api = start(database_url, clock, platforms, bindings=FEISHU, feishu_urgent="app", dry_run_channels="feishu")
    with api:
        concern_id = h.ask(api)
        action = follow_up(ctx, clock, concern_id)
        assert h.loop(api, concern_id)["read_at"] is None
    assert action.result_detail["attempts"][0]["dry_run"] is True and "urgent" not in action.result_detail
    assert feishu.requests == [] and [c.get("means") for c in h.changes(ctx, concern_id, "timer_fired")] == [None]
    ctx.close()
