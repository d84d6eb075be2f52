"""An operator's notification to someone away waits for their return (below P0), answered as held, sent once."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from action import service as actions
from app.pipeline import tick
from app.wiring import build_context
from fact.models import Fact
from tests.conftest import make_settings
from tests.integration.story_helpers import say

H = timedelta(hours=1)
FRIDAY_9 = datetime(2026, 3, 20, 1, 0, tzinfo=UTC)  # Friday 09:00 Asia/Shanghai
BODY = {"target_person_id": "p_zhangsan", "text": "明早10点开会", "notification_type": "meeting", "priority": "P2"}


def _away(client, until: str | None = "2026-03-20T09:00:00+08:00") -> None:
    state = {"status": "on_leave", "until": until}
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": state}).status_code == 200


def _facts(ctx, fact_type: str, event: str | None = None) -> list[Fact]:
    with ctx.reader() as uow:
        rows = uow.session.scalars(select(Fact).where(Fact.fact_type == fact_type).order_by(Fact.pk))
        return [f for f in rows if event is None or f.content.get("event") == event]


def _results_of(ctx, action_id: str) -> list[Fact]:
    return [f for f in _facts(ctx, "action_result") if f.content["action_id"] == action_id]


def _meetings(telegram) -> list[str]:
    return [t for t in telegram.texts_to("tg_zs") if "开会" in t]


def test_a_notification_to_someone_on_leave_is_held_until_their_return_then_sent_once(ctx, clock, client, team):
    _, telegram = team
    _away(client)
    response = client.post("/v1/notifications", json=BODY)
    assert response.status_code == 202
    held = response.json()
    assert held["result"] == "pending" and _meetings(telegram) == []
    assert held["result_detail"]["held_by"] == "away"
    assert held["result_detail"]["held_until"] == "2026-03-20T09:00:00+08:00"
    assert client.get(f"/v1/actions/{held['action_id']}").json() == held  # the operator reads the same hold back
    assert len(_facts(ctx, "system", "away_held")) == 1
    clock.set(FRIDAY_9 - H)
    tick(ctx)
    assert _meetings(telegram) == []  # not a minute early
    clock.set(FRIDAY_9 + timedelta(seconds=30))
    tick(ctx)
    tick(ctx)
    assert _meetings(telegram) == ["明早10点开会"]
    sent = client.get(f"/v1/actions/{held['action_id']}").json()
    assert sent["result"] == "success" and "held_by" not in sent["result_detail"]
    assert sent["result_detail"]["target_local_time"].startswith("2026-03-20T09:00")  # judged when it went
    assert [f.content["result"] for f in _results_of(ctx, held["action_id"])] == ["success"]
    assert len(_facts(ctx, "system", "away_held")) == 1  # said once


def test_a_p0_notification_goes_to_someone_away_at_once(ctx, clock, client, team):
    _, telegram = team
    _away(client)
    response = client.post("/v1/notifications", json={**BODY, "priority": "P0"})
    assert response.status_code == 200 and response.json()["result"] == "success"
    assert _meetings(telegram) == ["明早10点开会"] and _facts(ctx, "system", "away_held") == []


def test_an_open_ended_absence_holds_a_notification_until_an_admin_sets_them_back(ctx, clock, client, team):
    _, telegram = team
    _away(client, until=None)
    held = client.post("/v1/notifications", json=BODY).json()
    assert (held["result_detail"]["held_by"], held["result_detail"]["held_until"]) == ("away", None)
    clock.advance(7 * H)  # looked at again: still away, still held, not said again
    tick(ctx)
    assert _meetings(telegram) == [] and client.get(f"/v1/actions/{held['action_id']}").json()["result"] == "pending"
    assert len(_facts(ctx, "system", "away_held")) == 1
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": {"status": "available"}}).status_code == 200
    tick(ctx)
    assert _meetings(telegram) == ["明早10点开会"]
    assert client.get(f"/v1/actions/{held['action_id']}").json()["result"] == "success"


def test_saying_back_in_chat_releases_a_held_notification(ctx, clock, client, team):
    _, telegram = team
    say(ctx, channel="telegram", user="tg_zs", text="/away")
    held = client.post("/v1/notifications", json=BODY).json()
    assert held["result_detail"]["held_by"] == "away" and _meetings(telegram) == []
    say(ctx, channel="telegram", user="tg_zs", text="/back")
    tick(ctx)
    assert _meetings(telegram) == ["明早10点开会"]


def test_a_held_notification_is_not_in_flight_nor_counted_toward_the_cap(ctx, clock, client, team):
    _, telegram = team
    assert client.patch("/v1/persons/p_zhangsan/interaction_policy", json={"max_proactive_contacts_per_day": 1})
    _away(client, until=None)
    held = client.post("/v1/notifications", json=BODY).json()
    assert actions.recover_interrupted(ctx, older_than=timedelta(0)) == []  # waiting, not interrupted
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": {"status": "available"}}).status_code == 200
    tick(ctx)  # the one contact the cap allows today is the held notification itself
    assert client.get(f"/v1/actions/{held['action_id']}").json()["result"] == "success"
    again = client.post("/v1/notifications", json={**BODY, "notification_type": "other"}).json()
    assert again["result_detail"]["blocked_by"] == "L1:daily_cap"  # and it counted once it went


def test_two_processors_at_the_return_send_a_held_notification_once(ctx, clock, client, team, database_url):
    feishu, telegram = team
    _away(client)
    held = client.post("/v1/notifications", json=BODY).json()
    clock.set(FRIDAY_9 + timedelta(seconds=30))
    replicas = [build_context(make_settings(database_url), clock=clock) for _ in range(2)]
    for replica in replicas:  # the same platforms: a double send would show
        replica.channels.register(feishu)
        replica.channels.register(telegram)
    barrier = threading.Barrier(2)

    def run(replica) -> None:
        barrier.wait()
        tick(replica)

    try:
        threads = [threading.Thread(target=run, args=(r,)) for r in replicas]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for r in replicas:
            r.close()
    tick(ctx)
    assert _meetings(telegram) == ["明早10点开会"]
    assert [f.content["result"] for f in _results_of(ctx, held["action_id"])] == ["success"]
