"""The OpenAPI document refuses exactly what the service refuses, rule by rule: each request below is sent and
validated against the operation's schema in `/openapi.json`; a refused one is schema-invalid, its twin valid."""

from __future__ import annotations

from typing import Any

import jsonschema_rs
import pytest

from tests.api.persons_support import create_person

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
ON_LEAVE = {"status": "on_leave", "until": "2026-04-01T00:00:00+08:00"}
FEISHU = [{"channel": "feishu", "external_user_id": "ou_1"}]

# (method, path, where, value, accepted): `where` is "body" or a query parameter's name.
CASES = {
    "until_while_available": ("post", "/v1/persons", "body", {"work_state": {**ON_LEAVE, "status": "available"}}, 0),
    "until_while_away": ("post", "/v1/persons", "body", {"work_state": ON_LEAVE}, 1),
    "preferred_unbound": ("post", "/v1/persons", "body", {"interaction_policy": {"preferred_channel": "feishu"}}, 0),
    "preferred_bound": (
        "post",
        "/v1/persons",
        "body",
        {"interaction_policy": {"preferred_channel": "feishu"}, "channel_bindings": FEISHU},
        1,
    ),
    "binding_twice": ("post", "/v1/persons", "body", {"channel_bindings": FEISHU * 2}, 0),
    "zone_unknown": ("post", "/v1/persons", "body", {"timezone": "Mars/Olympus"}, 0),
    "zone_iana": ("post", "/v1/persons", "body", {"timezone": "Europe/London"}, 1),
    "display_name_null": ("patch", "/v1/persons/p_a", "body", {"display_name": None}, 0),
    "manager_null": ("patch", "/v1/persons/p_a", "body", {"manager_id": None}, 1),
    "window_equal": (
        "put",
        "/v1/persons/p_a/interaction_policy",
        "body",
        {"quiet_hours": [{"start": "22:30", "end": "22:30"}]},
        0,
    ),
    "window_one_minute": (
        "put",
        "/v1/persons/p_a/interaction_policy",
        "body",
        {"quiet_hours": [{"start": "22:30", "end": "22:31"}]},
        1,
    ),
    "cap_written_5_0": ("patch", "/v1/persons/p_a/interaction_policy", "body", {"quiet_days": [6.0, 7]}, 1),
    "pause_without_seconds": (
        "patch",
        "/v1/persons/p_a/interaction_policy",
        "body",
        {"paused_until": "2026-03-20T10:00+08:00"},
        0,
    ),
    "pause_as_number": ("patch", "/v1/persons/p_a/interaction_policy", "body", {"paused_until": 1774000000}, 0),
    "half_a_sender": ("post", "/v1/signals", "body", {"channel": "feishu"}, 0),
    "whole_sender": ("post", "/v1/signals", "body", {"channel": "feishu", "external_user_id": "ou_9"}, 1),
    "no_sender": ("post", "/v1/signals", "body", {}, 1),
    "nul_in_text": ("post", "/v1/notifications", "body", {"target_person_id": "p_a", "text": "a\u0000"}, 0),
    "since_1969": ("get", "/v1/facts", "since", "1969-12-31T23:00:00Z", 0),
    "since_2100": ("get", "/v1/facts", "since", "2100-01-01T00:00:00Z", 0),
    "since_last_day": ("get", "/v1/facts", "since", "2099-12-31T23:59:59+08:00", 1),
    "since_lower_t": ("get", "/v1/facts", "since", "2026-03-18t10:00:00Z", 0),
    "since_far_back": ("get", "/v1/facts", "since", "20000d", 0),
    "since_27_years": ("get", "/v1/facts", "since", "9999d", 1),
    "since_empty": ("get", "/v1/facts", "since", "", 0),
    "cursor_forged": ("get", "/v1/persons", "cursor", "eyJrIjogMX0", 0),
    "cursor_any_position": ("get", "/v1/persons", "cursor", "1_p_zzz", 1),
    "q_with_nul": ("get", "/v1/persons", "q", "a\u0000", 0),
}


@pytest.fixture
def spec(client) -> dict:
    return client.get("/openapi.json").json()


def schema_of(spec: dict, method: str, path: str, where: str) -> dict[str, Any]:
    """The request body's or the query parameter's schema, with the components it may refer to."""
    template = "/v1/persons/{person_id}" + path.removeprefix("/v1/persons/p_a") if "/p_a" in path else path
    operation = spec["paths"][template][method]
    if where == "body":
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
    else:
        schema = next(p["schema"] for p in operation["parameters"] if p["name"] == where)
    return {**schema, "components": spec["components"]}


def filled(path: str, value: dict[str, Any]) -> dict[str, Any]:
    """A whole body for the operation around the rule's fields."""
    if path == "/v1/persons":
        return {"person_id": "p_new", "display_name": "New", **value}
    if path == "/v1/signals":
        return {"source": "crm", "signal_type": "note", "external_id": "e1", **value}
    return value


@pytest.mark.parametrize(("method", "path", "where", "value", "accepted"), CASES.values(), ids=CASES.keys())
def test_the_document_admits_a_request_just_when_the_service_does(client, spec, method, path, where, value, accepted):
    create_person(client, "p_a")
    sent = filled(path, value) if where == "body" else value
    valid = jsonschema_rs.validator_for(schema_of(spec, method, path, where), validate_formats=True).is_valid(sent)
    if where == "body":
        response = client.request(method, path, json=sent)
    else:
        response = client.request(method, path, params={where: sent})
    assert valid == bool(accepted), f"the document {'admits' if valid else 'refuses'} {sent!r}"
    assert (response.status_code < 300) == bool(accepted), response.text
