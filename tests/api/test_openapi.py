"""The OpenAPI document says what the API does: bearer auth, the error envelope on every error, and `Allow` on 405."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
ENVELOPE = {"$ref": "#/components/schemas/ErrorBody"}


@pytest.fixture
def spec(client) -> dict:
    return client.get("/openapi.json").json()


def operations(spec: dict):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_the_bearer_scheme_is_declared_and_every_token_route_requires_it(spec):
    assert spec["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An admin or viewer token (DEPUTY_ADMIN_TOKENS, _VIEWER_TOKENS)",
    }
    for path, method, operation in operations(spec):
        if path.startswith("/v1/"):
            assert operation["security"] in ([{"bearer": []}], [{"bearer": ["admin"]}]), (method, path)
            assert ("admin" in operation["security"][0]["bearer"]) == (method != "get"), (method, path)
    assert "security" not in spec["paths"]["/healthz"]["get"]


def test_every_error_response_is_the_envelope_and_fastapis_detail_body_is_gone(spec):
    for path, method, operation in operations(spec):
        for status, response in operation["responses"].items():
            if status.startswith("4"):
                assert response["content"]["application/json"]["schema"] == ENVELOPE, (method, path, status)
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    error = spec["components"]["schemas"]["ErrorDetail"]
    assert set(error["properties"]) == {"code", "message", "field", "details"}


@pytest.mark.parametrize(
    "method,path,statuses",
    [
        ("post", "/v1/persons", {"400", "401", "403", "404", "409", "413", "422"}),
        ("patch", "/v1/persons/{person_id}/interaction_policy", {"400", "401", "403", "404", "409", "413", "422"}),
        ("get", "/v1/persons/{person_id}", {"400", "401", "404", "422"}),
        ("get", "/v1/facts", {"400", "401", "422"}),
        ("post", "/v1/concerns/{concern_id}/cancel", {"400", "401", "403", "404", "409", "422"}),
        ("post", "/v1/scheduler/tick", {"400", "401", "403", "422"}),
    ],
)
def test_each_operation_documents_the_errors_it_can_answer(spec, method, path, statuses):
    documented = {s for s in spec["paths"][path][method]["responses"] if s.startswith("4")}
    assert documented == statuses


def test_the_documented_errors_are_what_the_api_answers(client, viewer_headers):
    assert client.post("/v1/persons", json={"person_id": "bad id"}).json()["error"]["code"] == "validation_error"
    assert client.post("/v1/persons", headers=viewer_headers, json={}).json()["error"]["code"] == "forbidden"
    assert client.get("/v1/persons", headers={"Authorization": ""}).json()["error"]["code"] == "unauthorized"


@pytest.mark.parametrize(
    "method,path,allow",
    [
        ("DELETE", "/v1/persons", "GET, POST"),
        ("POST", "/v1/persons/p_x", "GET, PATCH, DELETE"),
        ("GET", "/v1/concerns/con_20260318_001/cancel", "POST"),
        ("PUT", "/v1/persons/p_x/interaction_policy", None),
        ("POST", "/v1/persons/p_x/interaction_policy", "GET, PUT, PATCH"),
        ("DELETE", "/healthz", "GET"),
    ],
)
def test_a_405_names_every_method_the_path_allows(client, method, path, allow):
    response = client.request(method, path, json={})
    if allow is None:
        assert response.status_code != 405
        return
    assert response.status_code == 405 and response.headers["allow"] == allow
    assert response.json()["error"]["code"] == "method_not_allowed"
