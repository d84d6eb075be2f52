"""`POST /v1/notifications` and `GET /v1/actions`: the action layer over HTTP."""

import pytest

from tests.integration.action_helpers import add_memory_channels, add_person

BODY = {"target_person_id": "p_zhangsan", "text": "明早10点开会", "notification_type": "meeting", "priority": "P2"}


@pytest.fixture
def chans(ctx):
    return add_memory_channels(ctx)


def test_notification_returns_the_action_record_at_the_top_level(client, ctx, chans):
    add_person(ctx)
    response = client.post("/v1/notifications", json=BODY)
    assert response.status_code == 200
    record = response.json()
    assert set(record) == {
        "action_id",
        "action_type",
        "decision_ref",
        "target_person_id",
        "channel",
        "content_preview",
        "result",
        "result_detail",
        "timestamp",
    }
    assert (
        record["result"] == "success" and record["action_type"] == "notify" and record["timestamp"].endswith("+08:00")
    )
    assert record["decision_ref"].startswith("dec_20260318_")


def test_notification_decision_is_recorded_as_a_fact_that_the_action_points_to(client, ctx, chans):
    add_person(ctx)
    record = client.post("/v1/notifications", json=BODY).json()
    [decision] = client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"]
    assert decision["content"]["decision_id"] == record["decision_ref"]
    assert decision["content"]["rule"] == "admin_api:notifications" and decision["content"]["actor"] == "ops"
    [result] = client.get(
        "/v1/facts", params={"fact_type": "action_result", "causation_id": record["decision_ref"]}
    ).json()["items"]
    assert result["content"] == record


def test_blocked_and_failed_notifications_are_200_with_the_result_field(client, ctx, chans):
    add_person(ctx, policy={"max_proactive_contacts_per_day": 0})
    add_person(ctx, "p_lisi", bindings=[])
    blocked = client.post("/v1/notifications", json=BODY)
    failed = client.post("/v1/notifications", json={**BODY, "target_person_id": "p_lisi"})
    assert blocked.status_code == failed.status_code == 200
    assert blocked.json()["result_detail"]["blocked_by"] == "L1:daily_cap"
    assert failed.json()["result"] == "failed"


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"text": ""}, "text"),
        ({"priority": "P9"}, "priority"),
        ({"notification_type": "Bad Type"}, "notification_type"),
        ({"target_person_id": "zhangsan"}, "target_person_id"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_notification_is_422_naming_the_field_and_writes_nothing(client, ctx, chans, patch, field):
    add_person(ctx)
    response = client.post("/v1/notifications", json={**BODY, **patch})
    assert response.status_code == 422
    assert response.json()["error"]["field"] == field
    assert client.get("/v1/actions").json()["items"] == []
    assert client.get("/v1/facts", params={"fact_type": "decision"}).json()["items"] == []


def test_notification_to_an_unknown_person_is_404_and_writes_nothing(client, ctx, chans):
    response = client.post("/v1/notifications", json={**BODY, "target_person_id": "p_ghost"})
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert client.get("/v1/facts").json()["items"] == []


def test_viewer_cannot_send_notifications(client, ctx, chans, viewer_headers):
    add_person(ctx)
    assert client.post("/v1/notifications", json=BODY, headers=viewer_headers).status_code == 403
    assert client.get("/v1/actions", headers=viewer_headers).status_code == 200


def test_actions_list_filters_and_pages_newest_first(client, ctx, chans):
    add_person(ctx, policy={"max_proactive_contacts_per_day": 2})
    add_person(ctx, "p_lisi")
    ids = [
        client.post("/v1/notifications", json={**BODY, "notification_type": f"t{i}"}).json()["action_id"]
        for i in range(3)
    ]
    other = client.post("/v1/notifications", json={**BODY, "target_person_id": "p_lisi"}).json()["action_id"]
    everything = client.get("/v1/actions").json()["items"]
    assert [a["action_id"] for a in everything] == [other, *reversed(ids)]
    assert [a["action_id"] for a in client.get("/v1/actions", params={"person_id": "p_lisi"}).json()["items"]] == [
        other
    ]
    assert [a["action_id"] for a in client.get("/v1/actions", params={"result": "blocked"}).json()["items"]] == [ids[2]]
    page = client.get("/v1/actions", params={"limit": 3}).json()
    rest = client.get("/v1/actions", params={"limit": 3, "cursor": page["next_cursor"]}).json()
    assert [a["action_id"] for a in page["items"] + rest["items"]] == [a["action_id"] for a in everything]
    assert rest["next_cursor"] is None
    assert client.get("/v1/actions", params={"action_type": "notify", "since": "1h"}).json()["items"] == everything
    assert client.get("/v1/actions", params={"action_type": "escalate"}).json()["items"] == []


def test_action_by_id_and_unknown_id(client, ctx, chans):
    add_person(ctx)
    record = client.post("/v1/notifications", json=BODY).json()
    assert client.get(f"/v1/actions/{record['action_id']}").json() == record
    missing = client.get("/v1/actions/act_20260318_999")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_metrics_count_actions_by_type_result_and_layer(client, ctx, chans):
    add_person(ctx, policy={"max_proactive_contacts_per_day": 0})
    client.post("/v1/notifications", json=BODY)
    text = client.get("/metrics").text
    assert 'deputy_actions_total{action_type="notify",blocked_by="L1:daily_cap",result="blocked"}' in text


def test_a_notification_to_someone_away_is_202_pending_held_by_away_with_their_return(client, ctx, chans):
    add_person(ctx)
    leave = {"status": "away", "until": "2026-03-20T09:00:00+08:00"}
    assert client.patch("/v1/persons/p_zhangsan", json={"work_state": leave}).status_code == 200
    response = client.post("/v1/notifications", json=BODY)
    assert response.status_code == 202
    record = response.json()
    assert record["result"] == "pending" and record["action_type"] == "notify"
    detail = record["result_detail"]
    assert (detail["held_by"], detail["held_until"]) == ("away", "2026-03-20T09:00:00+08:00")
    assert "blocked_by" not in detail and "error" not in detail  # held, not refused
    assert client.get("/v1/actions", params={"result": "pending"}).json()["items"] == [record]
    [held] = client.get("/v1/facts", params={"fact_type": "system"}).json()["items"]
    assert held["content"]["event"] == "away_held" and held["content"]["until"] == "2026-03-20T01:00:00+00:00"
    assert client.get("/v1/facts", params={"fact_type": "action_result"}).json()["items"] == []  # nothing went
