"""`/v1/concerns`, `/v1/signals`, `/v1/scheduler/tick` and the action trace over HTTP."""

from datetime import timedelta

ASK = {"originator_id": "p_boss", "target_person_id": "p_zhangsan", "question": "提测什么时候能给？", "priority": "P1"}


def test_raising_a_concern_returns_it_with_the_first_action(client, team):
    _, telegram = team
    response = client.post("/v1/concerns", json=ASK)
    assert response.status_code == 201
    body = response.json()
    assert body["concern_id"].startswith("con_20260318_") and body["state"] == "waiting_reply"
    assert body["action"]["action_type"] == "send_message" and body["action"]["result"] == "success"
    assert body["next_follow_up_at"] == "2026-03-18T16:00:00+08:00"
    assert telegram.texts_to("tg_zs") == ["老板想了解：提测什么时候能给？"]


def test_bad_concern_requests_are_4xx_and_write_nothing(client, team):
    cases = [
        ({**ASK, "priority": "P7"}, 422),
        ({**ASK, "target_person_id": "p_ghost"}, 404),
        ({**ASK, "question": ""}, 422),
        ({**ASK, "target_person_id": "p_boss"}, 409),  # the document admits it; only the two ids refuse it
        ({**ASK, "deadline": "2026-03-20T10:00:00"}, 422),
        ({**ASK, "extra": 1}, 422),
        ({**ASK, "deadline": "2026-03-18T09:00:00+08:00"}, 409),  # passed: the clock refuses it
    ]
    for body, status in cases:
        response = client.post("/v1/concerns", json=body)
        assert response.status_code == status, body
        assert "error" in response.json()
    assert client.get("/v1/concerns").json()["items"] == []
    assert client.get("/v1/actions").json()["items"] == []


def test_concern_filters_and_cancel(client, team):
    first = client.post("/v1/concerns", json=ASK).json()
    client.post("/v1/concerns", json={**ASK, "target_person_id": "p_lisi", "question": "weekly report?"})
    assert [
        c["target_person_id"] for c in client.get("/v1/concerns", params={"person_id": "p_zhangsan"}).json()["items"]
    ] == ["p_zhangsan"]
    assert len(client.get("/v1/concerns", params={"originator_id": "p_boss"}).json()["items"]) == 2
    cancelled = client.post(f"/v1/concerns/{first['concern_id']}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["state"] == "cancelled"
    assert client.post(f"/v1/concerns/{first['concern_id']}/cancel").status_code == 409
    assert [c["state"] for c in client.get("/v1/concerns", params={"state": "cancelled"}).json()["items"]] == [
        "cancelled"
    ]
    assert client.get("/v1/concerns/con_20260318_999").status_code == 404


def test_the_l2_person_limit_refuses_a_sixth_concern_with_the_reason(client, team):
    for i in range(5):
        assert client.post("/v1/concerns", json={**ASK, "question": f"q{i}"}).status_code == 201
    refused = client.post("/v1/concerns", json={**ASK, "question": "q6"})
    assert refused.status_code == 409 and "L2:person_concern_limit" in refused.json()["error"]["message"]


def test_scheduler_tick_runs_due_follow_ups(client, clock, team):
    _, telegram = team
    client.post("/v1/concerns", json=ASK)
    clock.advance(timedelta(hours=4))
    result = client.post("/v1/scheduler/tick").json()
    assert result["timers_fired"] == 1 and result["actions_drained"] >= 1
    assert telegram.texts_to("tg_zs")[-1].startswith("【跟进】")


def test_viewer_cannot_raise_cancel_or_tick(client, team, viewer_headers):
    assert client.post("/v1/concerns", json=ASK, headers=viewer_headers).status_code == 403
    assert client.post("/v1/scheduler/tick", headers=viewer_headers).status_code == 403
    assert client.get("/v1/concerns", headers=viewer_headers).status_code == 200


def test_signals_are_recorded_once_per_source_and_external_id(client, team):
    body = {
        "source": "ci",
        "signal_type": "build_failed",
        "external_id": "build-42",
        "person_id": "p_zhangsan",
        "content": {"branch": "main"},
        "occurred_at": "2026-03-18T11:00:00+08:00",
    }
    first = client.post("/v1/signals", json=body)
    again = client.post("/v1/signals", json=body)
    assert first.status_code == 202 and again.status_code == 200
    assert first.json()["fact_id"] == again.json()["fact_id"] and first.json()["fact_type"] == "external_signal"
    assert first.json()["person_refs"] == ["p_zhangsan"]
    by_binding = client.post(
        "/v1/signals",
        json={**body, "external_id": "build-43", "person_id": None, "channel": "telegram", "external_user_id": "tg_zs"},
    )
    assert by_binding.json()["person_refs"] == ["p_zhangsan"]


def test_bad_signals_are_rejected_and_write_nothing(client, team):
    base = {"source": "ci", "signal_type": "x", "external_id": "1"}
    for body, status in [
        ({**base, "person_id": "p_ghost"}, 404),
        ({**base, "channel": "telegram"}, 422),
        ({"source": "ci"}, 422),
        ({**base, "occurred_at": "yesterday"}, 422),
    ]:
        assert client.post("/v1/signals", json=body).status_code == status
    assert client.get("/v1/facts", params={"fact_type": "external_signal"}).json()["items"] == []


def test_trace_of_a_question_reaches_the_admin_decision(client, team):
    concern = client.post("/v1/concerns", json=ASK).json()
    chain = client.get(f"/v1/actions/{concern['action']['action_id']}/trace").json()["chain"]
    assert [step["kind"] for step in chain] == ["action_result", "concern", "decision"]
    assert chain[2]["fact"]["content"]["rule"] == "admin_api:concerns"
    assert client.get("/v1/actions/act_20260318_999/trace").status_code == 404


def test_concerns_filter_by_kind_and_an_unknown_kind_is_a_422_naming_the_field(ctx, clock, client, team):
    from tests.integration.story_helpers import say

    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 测试报告什么时候给？")
    say(ctx, channel="telegram", user="tg_zs", text="明天下午3点给你")
    [commitment] = client.get("/v1/concerns", params={"kind": "commitment"}).json()["items"]
    assert commitment["kind"] == "commitment" and commitment["due_at"] == "2026-03-19T15:00:00+08:00"
    [question] = client.get("/v1/concerns", params={"kind": "question"}).json()["items"]
    assert question["kind"] == "question" and question["due_at"] is None
    response = client.get("/v1/concerns", params={"kind": "bogus"})
    assert response.status_code == 422
    assert "kind" in str(response.json()["error"])
