"""External signals that lead somewhere: the routes of docs/behaviour.md, and unhandled signals (both databases)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.pipeline import tick
from app.wiring import build_context
from cognitive_core.signals import routing as signals
from tests.conftest import ADMIN_TOKEN, make_settings
from tests.unit.cognitive_core.test_signal_routes import EXAMPLES


@pytest.fixture
def ctx(database_url, clock):
    """The context with the three routes of docs/behaviour.md."""
    context = build_context(make_settings(database_url, signal_routes=json.dumps(EXAMPLES)), clock=clock)
    yield context
    context.close()


@pytest.fixture
def client(ctx):
    app = create_app(ctx=ctx, run_migrations=False)
    with TestClient(app, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, raise_server_exceptions=False) as c:
        yield c


_n = iter(range(1, 10_000))


def _signal(ctx, client, signal_type, *, person_id=None, **content):
    body = {"source": "tasks", "signal_type": signal_type, "external_id": f"x{next(_n)}", "content": content}
    if person_id:
        body["person_id"] = person_id
    response = client.post("/v1/signals", json=body)
    assert response.status_code == 202, response.text
    tick(ctx)
    return response.json()["fact_id"]


def _decision(client, fact_id):
    decisions = client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"]
    [found] = [d["content"] for d in decisions if d["content"]["inputs"][:1] == [fact_id]]
    return found


def test_task_overdue_notifies_the_signals_person_and_is_listed_for_the_principal_manager(ctx, clock, client, team):
    feishu, telegram = team
    client.patch("/v1/persons/p_zhangsan", json={"manager_id": "p_boss"})
    fact_id = _signal(ctx, client, "task_overdue", person_id="p_zhangsan", title="季度报告")
    assert telegram.texts_to("tg_zs")[-1] == "任务逾期：季度报告"
    decision = _decision(client, fact_id)
    assert decision["rule"] == "signal_route:task_overdue"
    assert decision["requested"][0]["route"] == "task_overdue"
    assert decision["requested"][0]["brief_for"] == ["p_boss"]
    with ctx.reader() as uow:
        [item] = signals.briefed_signals(uow, principal_id="p_boss", since=clock.now() - timedelta(hours=1))
        assert item["fact_id"] == fact_id and item["recipients"] == ["p_zhangsan"]
        assert signals.briefed_signals(uow, principal_id="p_wangwu", since=clock.now() - timedelta(hours=1)) == []


def test_approval_pending_raises_a_question_to_the_approver_with_the_deadline(ctx, clock, client, team):
    _, telegram = team
    due = (clock.now() + timedelta(days=1)).isoformat()
    fact_id = _signal(ctx, client, "approval_pending", approver_id="p_zhangsan", title="采购单 #12", due_at=due)
    [concern] = client.get("/v1/concerns", params={"kind": "question"}).json()["items"]
    assert (concern["originator_id"], concern["target_person_id"]) == ("p_boss", "p_zhangsan")
    assert datetime.fromisoformat(concern["deadline"]) == datetime.fromisoformat(due)
    assert "请审批：采购单 #12" in telegram.texts_to("tg_zs")[-1]
    assert _decision(client, fact_id)["rule"] == "signal_route:approval_pending"


def test_meeting_moved_notifies_each_attendee_in_their_language(ctx, clock, client, team):
    feishu, telegram = team
    fact_id = _signal(ctx, client, "meeting_moved", attendee_ids=["p_zhangsan", "p_lisi", "p_nobody"], title="周会")
    assert telegram.texts_to("tg_zs")[-1] == "来自 tasks 的消息：周会"
    assert telegram.texts_to("tg_ls")[-1] == "From tasks: 周会"
    requested = _decision(client, fact_id)["requested"][0]
    assert requested["recipients"] == ["p_zhangsan", "p_lisi"] and requested["missing"] == ["p_nobody"]


def test_a_signal_without_a_route_is_recorded_and_listed_as_unhandled(ctx, clock, client, team):
    feishu, telegram = team
    before = len(feishu.sent) + len(telegram.sent)
    fact_id = _signal(ctx, client, "deploy_finished", person_id="p_zhangsan", title="v2")
    assert len(feishu.sent) + len(telegram.sent) == before
    assert _decision(client, fact_id)["rule"] == "external_signal:unhandled"
    with ctx.reader() as uow:
        [item] = signals.unhandled_signals(uow, since=clock.now() - timedelta(hours=1))
        assert (item["fact_id"], item["signal_type"], item["person_id"]) == (fact_id, "deploy_finished", "p_zhangsan")
        assert signals.unhandled_signals(uow, since=clock.now() + timedelta(seconds=1)) == []


def test_the_brief_lists_unhandled_signals_and_a_reports_overdue_task_for_the_principal(ctx, clock, client, team):
    feishu, _ = team
    client.patch("/v1/persons/p_zhangsan", json={"manager_id": "p_boss"})
    _signal(ctx, client, "task_overdue", person_id="p_zhangsan", title="季度报告")
    _signal(ctx, client, "deploy_finished", person_id="p_zhangsan", title="v2")
    feishu.sent.clear()
    client.post("/v1/scheduler/tick")
    from tests.integration.story_helpers import say

    say(ctx, channel="feishu", user="ou_boss", text="/brief")
    brief = feishu.texts_to("ou_boss")[-1]
    assert "**外部事件（2）**" in brief
    assert "张三：「task_overdue」（来自 tasks）" in brief
    assert "「deploy_finished」（来自 tasks）没有对应的处理规则" in brief
