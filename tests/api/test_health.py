"""`GET /healthz` reports the database and Redis; `GET /metrics` is Prometheus text (SPEC §8)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.main import create_app
from app.wiring import build_context
from tests.conftest import make_settings, postgres_admin_url, redis_url


@contextmanager
def _client_with(database_url: str, clock, **settings) -> Iterator[TestClient]:
    ctx = build_context(make_settings(database_url, **settings), clock=clock)
    try:
        with TestClient(create_app(ctx=ctx, run_migrations=False), raise_server_exceptions=False) as client:
            yield client
    finally:
        ctx.close()


def test_healthz_is_ok_without_a_token_and_redis_disabled(client):
    response = client.get("/healthz", headers={"Authorization": ""})
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "db": "ok", "redis": "disabled"}


@pytest.mark.redis
def test_healthz_reports_redis_ok_when_configured_and_reachable(database_url, clock):
    with _client_with(database_url, clock, redis_url=redis_url()) as client:
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "db": "ok", "redis": "ok"}


def test_healthz_is_503_when_configured_redis_is_unreachable(database_url, clock):
    with _client_with(database_url, clock, redis_url="redis://127.0.0.1:1/0") as client:
        response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert (body["db"], body["redis"]) == ("ok", "error")
    assert body["status"] != "ok"


@pytest.mark.parametrize("database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_healthz_is_503_when_the_database_is_gone(database_url, clock):
    with _client_with(database_url, clock) as client:
        assert client.get("/healthz").json()["db"] == "ok"
        admin = create_engine(postgres_admin_url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{make_url(database_url).database}" WITH (FORCE)'))
        admin.dispose()
        response = client.get("/healthz")
    assert response.status_code == 503
    assert (response.json()["status"], response.json()["db"]) == ("degraded", "error")


def _samples(text: str, name: str) -> list:
    return [s for family in text_string_to_metric_families(text) for s in family.samples if s.name == name]


def test_metrics_are_prometheus_text_counting_requests_by_route(client):
    assert client.get("/healthz").status_code == 200
    assert client.get("/v1/facts/fact_20260318_001").status_code == 404
    assert client.get("/v1/facts/fact_20260318_002").status_code == 404
    response = client.get("/metrics", headers={"Authorization": ""})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert "# TYPE deputy_http_requests_total counter" in response.text
    counts = {
        (s.labels["method"], s.labels["route"], s.labels["status"]): s.value
        for s in _samples(response.text, "deputy_http_requests_total")
    }
    assert counts[("GET", "/healthz", "200")] == 1
    # Labels use the route template, never the raw path, so their number stays bounded.
    assert counts[("GET", "/v1/facts/{fact_id}", "404")] == 2
    assert not any("fact_20260318" in route for _, route, _ in counts)
