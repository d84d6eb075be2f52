"""`GET /healthz` is liveness, `GET /readyz` readiness (the database only); `GET /metrics` is Prometheus text."""

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
from tests.conftest import ADMIN_TOKEN, make_settings, postgres_admin_url, redis_url
from tests.fakes.silent_server import SilentServer


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


def test_readyz_is_ready_without_a_token_once_started(client):
    response = client.get("/readyz", headers={"Authorization": ""})
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "db": "ok", "redis": "disabled"}


@pytest.mark.redis
def test_both_probes_report_redis_ok_when_configured_and_reachable(database_url, clock):
    with _client_with(database_url, clock, redis_url=redis_url()) as client:
        live, ready = client.get("/healthz"), client.get("/readyz")
    assert (live.status_code, live.json()) == (200, {"status": "ok", "db": "ok", "redis": "ok"})
    assert (ready.status_code, ready.json()) == (200, {"status": "ready", "db": "ok", "redis": "ok"})


def test_an_unreachable_redis_is_reported_by_both_probes_but_fails_neither(database_url, clock):
    with _client_with(database_url, clock, redis_url="redis://127.0.0.1:1/0") as client:
        live, ready = client.get("/healthz"), client.get("/readyz")
    assert (live.status_code, live.json()) == (200, {"status": "degraded", "db": "ok", "redis": "error"})
    assert (ready.status_code, ready.json()) == (200, {"status": "ready", "db": "ok", "redis": "error"})


def test_readyz_is_503_until_start_up_has_applied_the_migrations(tmp_path, clock):
    database_url = f"sqlite:///{tmp_path / 'fresh.db'}"  # never migrated: start-up applies the migrations
    ctx = build_context(make_settings(database_url), clock=clock)
    app = create_app(ctx=ctx)
    try:
        before = TestClient(app).get("/readyz")  # the app serves, its start-up (lifespan) has not run
        assert (before.status_code, before.json()["status"]) == (503, "starting")
        assert TestClient(app).get("/healthz").status_code == 200  # alive all the same
        with TestClient(app) as client:
            assert client.get("/readyz").status_code == 200
            assert client.get("/v1/facts", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}).status_code == 200
        assert TestClient(app).get("/readyz").json()["status"] == "stopping"
    finally:
        ctx.close()


@pytest.mark.parametrize("database_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_readyz_is_503_and_healthz_200_when_the_database_is_gone(database_url, clock):
    with _client_with(database_url, clock) as client:
        assert client.get("/readyz").json()["db"] == "ok"
        admin = create_engine(postgres_admin_url(), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{make_url(database_url).database}" WITH (FORCE)'))
        admin.dispose()
        live, ready = client.get("/healthz"), client.get("/readyz")
    assert (live.status_code, live.json()["status"], live.json()["db"]) == (200, "degraded", "error")
    assert (ready.status_code, ready.json()["status"], ready.json()["db"]) == (503, "unavailable", "error")


def test_a_database_that_never_answers_times_the_probes_out_instead_of_hanging_them(clock):
    with SilentServer() as silent:
        ctx = build_context(make_settings(silent.url("postgresql+psycopg", "/deputy"), probe_timeout="1s"), clock=clock)
        app = create_app(ctx=ctx, run_migrations=False)
        app.state.phase = "serving"  # its start-up would wait on the silent database too: probe the probes alone
        client = TestClient(app)
        try:
            responses = [client.get("/readyz"), client.get("/healthz"), client.get("/readyz")]
        finally:
            ctx.close()
    assert [r.status_code for r in responses] == [503, 200, 503]
    assert [r.json()["db"] for r in responses] == ["timeout"] * 3
    assert silent.connections == 1  # one ping hangs; later probes wait for it rather than pile up more


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
