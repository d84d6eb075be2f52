"""The console's signing key lives in the database: replicas share it with no hand configuration, a command rotates
it (every session ends), and nothing shows it: no page, API answer, command output or log line."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from typer.testing import CliRunner

from app.cli import cli
from app.console.auth import COOKIE, KEY_REFRESH
from app.main import create_app
from app.wiring import build_context
from tests.conftest import ADMIN_TOKEN, make_settings


@pytest.fixture
def replicas(database_url, clock) -> Iterator[list]:
    """Two processes' contexts over one database, no DEPUTY_CONSOLE_SECRET."""
    contexts = [build_context(make_settings(database_url), clock=clock) for _ in range(2)]
    yield contexts
    for ctx in contexts:
        ctx.close()


def _key(ctx) -> str:
    with ctx.db.read() as session:
        return session.execute(text("SELECT value FROM console_secrets WHERE name = 'session'")).scalar_one()


def test_without_a_configured_secret_a_cookie_from_one_replica_is_read_by_the_next(replicas):
    with (
        TestClient(create_app(ctx=replicas[0], run_migrations=False)) as one,
        TestClient(create_app(ctx=replicas[1], run_migrations=False)) as two,
    ):
        assert one.post("/console/login", data={"token": ADMIN_TOKEN}, follow_redirects=False).status_code == 303
        two.cookies.set(COOKIE, one.cookies.get(COOKIE), path="/console")
        assert two.get("/console", follow_redirects=False).status_code == 200
    assert len(_key(replicas[0])) >= 48


def test_rotating_the_key_ends_every_session_on_every_replica(replicas, clock, monkeypatch):
    for name in [n for n in os.environ if n.startswith("DEPUTY_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DEPUTY_DATABASE_URL", replicas[0].settings.database_url)
    with (
        TestClient(create_app(ctx=replicas[0], run_migrations=False)) as one,
        TestClient(create_app(ctx=replicas[1], run_migrations=False)) as two,
    ):
        one.post("/console/login", data={"token": ADMIN_TOKEN})
        two.cookies.set(COOKIE, one.cookies.get(COOKIE), path="/console")
        assert two.get("/console", follow_redirects=False).status_code == 200
        before = _key(replicas[0])
        result = CliRunner().invoke(cli, ["console", "rotate-secret"])
        assert result.exit_code == 0, result.output
        after = _key(replicas[0])
        assert after != before and after not in result.output and before not in result.output
        assert "every console session ends" in result.output
        clock.advance(KEY_REFRESH + timedelta(seconds=1))
        for client in (one, two):
            assert client.get("/console", follow_redirects=False).status_code == 303
        assert one.post("/console/login", data={"token": ADMIN_TOKEN}, follow_redirects=False).status_code == 303
        two.cookies.set(COOKIE, one.cookies.get(COOKIE), path="/console")
        assert two.get("/console", follow_redirects=False).status_code == 200


def test_the_signing_key_reaches_no_page_api_answer_or_log_line(replicas, caplog):
    ctx = replicas[0]
    with caplog.at_level(logging.DEBUG), TestClient(create_app(ctx=ctx, run_migrations=False)) as client:
        client.post("/console/login", data={"token": ADMIN_TOKEN})
        key = _key(ctx)
        bodies = [client.get(path).text for path in ("/console", "/console/facts", "/console/actions", "/docs")]
        api = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        bodies += [client.get(path, headers=api).text for path in ("/v1/facts", "/openapi.json", "/metrics")]
    logged = caplog.text + "".join(repr(r.__dict__) for r in caplog.records)
    assert all(key not in body for body in bodies) and key not in logged
    assert "console_secrets" not in client.app.openapi()["paths"].__repr__()


def test_a_configured_secret_still_signs_and_the_database_key_is_not_made(database_url, clock):
    ctx = build_context(make_settings(database_url, console_secret="a-long-shared-console-secret"), clock=clock)
    try:
        with TestClient(create_app(ctx=ctx, run_migrations=False)) as client:
            client.post("/console/login", data={"token": ADMIN_TOKEN})
            assert client.get("/console", follow_redirects=False).status_code == 200
        with ctx.db.read() as session:
            assert session.execute(text("SELECT count(*) FROM console_secrets")).scalar_one() == 0
    finally:
        ctx.close()
