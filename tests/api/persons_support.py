"""Helpers shared by the person API tests: payloads, fact queries, the "nothing written" check."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

DEFAULT_POLICY = {
    "allow_proactive_ping": True,
    "max_proactive_contacts_per_day": 5,
    "preferred_channel": None,
    "quiet_hours": [{"start": "23:00", "end": "08:00"}],
    "quiet_days": [],
    "paused_until": None,
    "daily_brief_at": "09:00",
    "weekly_review_at": None,
    "digest": False,
    "digest_max_wait": "4h",
    "follow_up_stretch": 1.0,
}


def person_body(person_id: str = "p_zhangsan", **overrides: Any) -> dict[str, Any]:
    """A valid POST /v1/persons body; keyword arguments replace or add fields."""
    body: dict[str, Any] = {"person_id": person_id, "display_name": "张三"}
    body.update(overrides)
    return body


def create_person(client: TestClient, person_id: str = "p_zhangsan", **overrides: Any) -> dict[str, Any]:
    """Create a person through the API and return the response body (asserting 201)."""
    response = client.post("/v1/persons", json=person_body(person_id, **overrides))
    assert response.status_code == 201, response.text
    return response.json()


def person_changed_facts(client: TestClient, person_id: str | None = None) -> list[dict[str, Any]]:
    """Every person_changed fact (newest first), optionally only those about `person_id`."""
    params: dict[str, Any] = {"fact_type": "person_changed", "limit": 500}
    if person_id:
        params["person_id"] = person_id
    response = client.get("/v1/facts", params=params)
    assert response.status_code == 200, response.text
    return response.json()["items"]


def state(client: TestClient, person_id: str) -> tuple[int, Any, list[str]]:
    """What a bad request must not change: the person (or its absence) and the person_changed facts."""
    response = client.get(f"/v1/persons/{person_id}")
    return response.status_code, response.json(), [f["fact_id"] for f in person_changed_facts(client)]


def assert_error(response: Any, status: int, field: str | None = None, code: str | None = None) -> dict[str, Any]:
    """The SPEC §8 envelope with `status`; `field` must be named by the error's field or message."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert isinstance(error.get("code"), str) and error["code"], body
    assert isinstance(error.get("message"), str) and error["message"], body
    if code is not None:
        assert error["code"] == code, body
    if field is not None:
        assert field in (error.get("field") or "") or field in error["message"], body
    return error


def assert_rejected_unchanged(
    client: TestClient, person_id: str, send: Any, status: int, field: str | None
) -> dict[str, Any]:
    """Send a bad request via `send()` and check the envelope and that nothing was written."""
    before = state(client, person_id)
    error = assert_error(send(), status, field)
    assert state(client, person_id) == before
    return error
