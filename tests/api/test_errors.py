"""Every failure is a 4xx `{"error": {...}}` envelope and writes nothing (SPEC §8)."""

from __future__ import annotations

import json

import pytest

from tests.api.persons_support import assert_error, person_changed_facts

LIMIT = 1024 * 1024
JSON_HEADERS = {"content-type": "application/json"}


def padded_person(size: int, person_id: str = "p_big") -> bytes:
    """A valid person body padded with JSON whitespace to exactly `size` bytes."""
    raw = json.dumps({"person_id": person_id, "display_name": "Big"}).encode()
    return raw[:-1] + b" " * (size - len(raw)) + b"}"


def assert_nothing_written(client) -> None:
    assert client.get("/v1/persons").json()["items"] == []
    assert person_changed_facts(client) == []


def test_a_body_of_exactly_one_mebibyte_is_accepted(client):
    response = client.post("/v1/persons", content=padded_person(LIMIT), headers=JSON_HEADERS)
    assert response.status_code == 201, response.text[:300]


def test_a_body_over_one_mebibyte_with_content_length_is_a_413(client):
    response = client.post("/v1/persons", content=padded_person(LIMIT + 1), headers=JSON_HEADERS)
    assert_error(response, 413, code="payload_too_large")
    assert_nothing_written(client)


def test_a_streamed_body_over_one_mebibyte_without_content_length_is_a_413(client):
    body = padded_person(LIMIT + 1)

    def chunks():
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    request = client.build_request("POST", "/v1/persons", content=chunks(), headers=JSON_HEADERS)
    assert "content-length" not in request.headers and request.headers.get("transfer-encoding") == "chunked"
    response = client.send(request)
    assert_error(response, 413, code="payload_too_large")
    assert_nothing_written(client)


def test_a_streamed_body_under_the_limit_is_accepted(client):
    body = padded_person(LIMIT - 10)
    response = client.post(
        "/v1/persons", content=(body[i : i + 50_000] for i in range(0, len(body), 50_000)), headers=JSON_HEADERS
    )
    assert response.status_code == 201, response.text[:300]


@pytest.mark.parametrize("path,method", [("/v1/persons/p_x", "PATCH"), ("/v1/persons/p_x/interaction_policy", "PUT")])
def test_oversized_bodies_are_refused_on_every_write_route(client, path, method):
    client.post("/v1/persons", json={"person_id": "p_x", "display_name": "X"})
    before = client.get("/v1/persons/p_x").json()
    response = client.request(method, path, content=b'{"display_name": "' + b"x" * LIMIT + b'"}', headers=JSON_HEADERS)
    assert_error(response, 413, code="payload_too_large")
    assert client.get("/v1/persons/p_x").json() == before


@pytest.mark.parametrize(
    "raw", [b'{"person_id": "p_x",', b"{'person_id': 'p_x'}", b"not json", b'{"person_id": "p_x"} trailing']
)
def test_malformed_json_is_a_400_malformed_json(client, raw):
    response = client.post("/v1/persons", content=raw, headers=JSON_HEADERS)
    assert_error(response, 400, code="malformed_json")
    assert_nothing_written(client)


@pytest.mark.parametrize("payload", [[{"person_id": "p_x", "display_name": "X"}], "p_x", 42, None])
def test_a_json_value_that_is_not_an_object_is_a_422(client, payload):
    response = client.post("/v1/persons", content=json.dumps(payload).encode(), headers=JSON_HEADERS)
    assert_error(response, 422, code="validation_error")
    assert_nothing_written(client)


def test_a_non_object_policy_body_is_a_422_and_nothing_changes(client):
    client.post("/v1/persons", json={"person_id": "p_x", "display_name": "X"})
    response = client.put("/v1/persons/p_x/interaction_policy", json=[{"allow_proactive_ping": False}])
    assert_error(response, 422, code="validation_error")
    assert client.get("/v1/persons/p_x/interaction_policy").json()["allow_proactive_ping"] is True


def test_an_unknown_route_is_a_404_envelope(client):
    assert_error(client.get("/v1/nothing-here"), 404, code="not_found")
    assert_error(client.post("/v2/persons", json={}), 404, code="not_found")


def test_a_wrong_method_is_a_405_envelope(client):
    assert_error(
        client.put("/v1/persons", json={"person_id": "p_x", "display_name": "X"}), 405, code="method_not_allowed"
    )
    assert_error(client.post("/v1/persons/p_x", json={}), 405, code="method_not_allowed")
    assert_nothing_written(client)


def test_validation_errors_list_every_offending_field(client):
    response = client.post("/v1/persons", json={"person_id": "bad", "display_name": "", "locale": "fr"})
    error = assert_error(response, 422, field="person_id", code="validation_error")
    assert {d["field"] for d in error["details"]} == {"person_id", "display_name", "locale"}
