"""Bearer tokens: admin reads and writes, viewer only reads, everything else is a 401 (SPEC §8)."""

from __future__ import annotations

import hmac
import inspect
import logging

import pytest

from app.api import deps
from tests.api.persons_support import assert_error, create_person, person_changed_facts
from tests.conftest import ADMIN_TOKEN, VIEWER_TOKEN

READS = [
    ("GET", "/v1/persons"),
    ("GET", "/v1/persons/p_auth"),
    ("GET", "/v1/persons/p_auth/interaction_policy"),
    ("GET", "/v1/facts"),
]
WRITES = [
    ("POST", "/v1/persons", {"person_id": "p_new", "display_name": "New"}),
    ("PATCH", "/v1/persons/p_auth", {"display_name": "Changed"}),
    ("DELETE", "/v1/persons/p_auth", None),
    ("PUT", "/v1/persons/p_auth/interaction_policy", {"allow_proactive_ping": False}),
    ("PATCH", "/v1/persons/p_auth/interaction_policy", {"allow_proactive_ping": False}),
    ("PUT", "/v1/persons/p_auth/channel_bindings", {"channel_bindings": []}),
]
BAD_HEADERS = {
    "no_header": {"Authorization": ""},
    "unknown_token": {"Authorization": "Bearer not-a-real-token"},
    "token_prefix": {"Authorization": f"Bearer {ADMIN_TOKEN[:-1]}"},
    "token_with_suffix": {"Authorization": f"Bearer {ADMIN_TOKEN}x"},
    "wrong_scheme": {"Authorization": f"Basic {ADMIN_TOKEN}"},
    "scheme_only": {"Authorization": "Bearer"},
    "bare_token": {"Authorization": ADMIN_TOKEN},
}


@pytest.fixture
def person(client):
    return create_person(client, "p_auth", channel_bindings=[{"channel": "feishu", "external_user_id": "ou_auth"}])


def send(client, method, path, body=None, headers=None):
    return client.request(method, path, json=body, headers=headers)


@pytest.mark.parametrize("headers", BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
@pytest.mark.parametrize("method,path", READS + [w[:2] for w in WRITES])
def test_requests_without_a_known_token_are_a_401_envelope(client, person, headers, method, path):
    body = next((w[2] for w in WRITES if w[:2] == (method, path)), None)
    assert_error(send(client, method, path, body, headers), 401, code="unauthorized")


@pytest.mark.parametrize("headers", BAD_HEADERS.values(), ids=BAD_HEADERS.keys())
def test_unauthenticated_writes_change_nothing(client, person, headers):
    facts = person_changed_facts(client)
    for method, path, body in WRITES:
        send(client, method, path, body, headers)
    assert client.get("/v1/persons/p_auth").json() == person
    assert client.get("/v1/persons/p_new").status_code == 404
    assert person_changed_facts(client) == facts


@pytest.mark.parametrize("method,path", READS)
def test_the_viewer_token_may_read(client, person, viewer_headers, method, path):
    assert send(client, method, path, headers=viewer_headers).status_code == 200


@pytest.mark.parametrize("method,path,body", WRITES)
def test_the_viewer_token_may_not_write_and_nothing_changes(client, person, viewer_headers, method, path, body):
    facts = person_changed_facts(client)
    assert_error(send(client, method, path, body, viewer_headers), 403, code="forbidden")
    assert client.get("/v1/persons/p_auth").json() == person
    assert person_changed_facts(client) == facts


@pytest.mark.parametrize("method,path,body", WRITES)
def test_the_admin_token_may_write(client, person, method, path, body):
    assert send(client, method, path, body, {"Authorization": f"Bearer {ADMIN_TOKEN}"}).status_code in (200, 201)


def test_the_scheme_is_case_insensitive(client, person):
    assert client.get("/v1/persons", headers={"Authorization": f"bearer {VIEWER_TOKEN}"}).status_code == 200


def test_healthz_needs_no_token(client):
    assert client.get("/healthz", headers={"Authorization": ""}).status_code == 200
    assert client.get("/healthz", headers={"Authorization": "Bearer wrong"}).status_code == 200


def test_tokens_never_appear_in_logs(client, caplog):
    bad_token = "bad-secret-token-0000"
    with caplog.at_level(logging.DEBUG):
        client.get("/v1/persons", headers={"Authorization": f"Bearer {bad_token}"})
        client.post(
            "/v1/persons",
            json={"person_id": "p_log", "display_name": "Log"},
            headers={"Authorization": f"Bearer {VIEWER_TOKEN}"},
        )
        client.post("/v1/persons", json={"person_id": "p_log", "display_name": "Log"})
        client.get("/v1/nowhere")
    assert caplog.records, "expected some log output at DEBUG"
    logged = "\n".join([caplog.text] + [repr(r.__dict__) for r in caplog.records])
    for secret in (bad_token, ADMIN_TOKEN, VIEWER_TOKEN):
        assert secret not in logged


def test_error_bodies_never_echo_the_token(client):
    for token in ("bad-secret-token-0000", VIEWER_TOKEN):
        response = client.post("/v1/persons", json={}, headers={"Authorization": f"Bearer {token}"})
        assert token not in response.text


def test_every_configured_token_is_compared_in_constant_time(client, monkeypatch):
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(deps.hmac, "compare_digest", spy)
    assert client.get("/v1/persons").status_code == 200
    secrets = {ADMIN_TOKEN.encode(), VIEWER_TOKEN.encode()}
    assert {b for _, b in calls} == secrets, "the admin match must not stop the comparison early"
    assert all(a == ADMIN_TOKEN.encode() for a, _ in calls)
    calls.clear()
    assert client.get("/v1/persons", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert {b for _, b in calls} == secrets


def test_the_token_check_uses_hmac_compare_digest_and_no_plain_equality():
    source = inspect.getsource(deps.authenticate)
    assert "hmac.compare_digest(" in source
    assert "== secret" not in source and "secret ==" not in source
