"""A first start with no token explains itself: where the console is, each channel live or dry-run, and a one-time
admin login link printed once, kept in var/ (0600) and as a hash in the database, valid once or for 24 h."""

from __future__ import annotations

import hashlib
import re
import stat
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from app import first_start
from app.console.auth import COOKIE
from app.logging import Redactor
from app.main import create_app
from app.wiring import build_context
from tests.conftest import ADMIN_TOKEN, make_settings

LINK = re.compile(r"http://127\.0\.0\.1:8000/console/first-login\?login_code=([A-Za-z0-9_-]{40,})")


@pytest.fixture
def bare(database_url, clock) -> Iterator:
    """A service with no token configured, Telegram in dry-run, Feishu not set up."""
    settings = make_settings(database_url, admin_tokens="", viewer_tokens="", dry_run_channels="telegram")
    ctx = build_context(settings, clock=clock)
    yield ctx
    ctx.close()


def _code(lines: list[str]) -> str:
    [code] = {m.group(1) for line in lines if (m := LINK.search(line))}
    return code


def test_the_first_lines_say_where_the_console_is_and_which_channels_are_live(bare, tmp_path):
    lines = first_start.banner(bare, host="0.0.0.0", port=8000, var_dir=tmp_path)
    assert lines[0] == "Deputy is starting on http://127.0.0.1:8000"
    assert "  console   http://127.0.0.1:8000/console" in lines
    telegram = next(line for line in lines if line.strip().startswith("telegram"))
    feishu = next(line for line in lines if line.strip().startswith("feishu"))
    assert "dry-run" in telegram and "not connected: set DEPUTY_FEISHU_APP_ID and DEPUTY_FEISHU_APP_SECRET" in feishu
    assert any(line.startswith("Connect a platform: docs/configuration.md") for line in lines)


def test_the_one_time_link_is_printed_once_kept_0600_and_stored_only_as_its_hash(bare, tmp_path):
    lines = first_start.banner(bare, host="127.0.0.1", port=8000, var_dir=tmp_path)
    code = _code(lines)
    saved = tmp_path / "first-login.txt"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600 and code in saved.read_text()
    with bare.db.read() as session:
        rows = [tuple(r) for r in session.execute(text("SELECT * FROM console_login_codes"))]
    assert len(rows) == 1 and all(code not in str(value) for value in rows[0])
    assert hashlib.sha256(code.encode()).hexdigest() in rows[0]
    again = first_start.banner(bare, host="127.0.0.1", port=8000, var_dir=tmp_path)
    assert all(code not in line for line in again) and not any(LINK.search(line) for line in again)
    assert any(str(saved) in line for line in again)


def test_the_link_logs_in_as_admin_once(bare, tmp_path):
    code = _code(first_start.banner(bare, host="127.0.0.1", port=8000, var_dir=tmp_path))
    with TestClient(create_app(ctx=bare, run_migrations=False)) as browser:
        used = browser.get(f"/console/first-login?login_code={code}", follow_redirects=False)
        assert used.status_code == 303 and used.headers["location"] == "/console"
        assert browser.get("/console", follow_redirects=False).status_code == 200
        assert "first-start" in browser.get("/console").text
    with TestClient(create_app(ctx=bare, run_migrations=False)) as other:
        again = other.get(f"/console/first-login?login_code={code}", follow_redirects=False)
        assert again.status_code == 401 and COOKIE not in again.headers.get("set-cookie", "")
        english = {"Accept-Language": "en"}
        assert "already used" in other.get(f"/console/first-login?login_code={code}", headers=english).text


def test_the_link_expires_after_24_hours(bare, clock, tmp_path):
    code = _code(first_start.banner(bare, host="127.0.0.1", port=8000, var_dir=tmp_path))
    clock.advance(timedelta(hours=24, seconds=1))
    with TestClient(create_app(ctx=bare, run_migrations=False)) as browser:
        assert browser.get(f"/console/first-login?login_code={code}", follow_redirects=False).status_code == 401
    assert LINK.search("\n".join(first_start.banner(bare, host="127.0.0.1", port=8000, var_dir=tmp_path)))


def test_its_session_ends_once_a_token_is_configured(bare, clock, tmp_path):
    code = _code(first_start.banner(bare, host="127.0.0.1", port=8000, var_dir=tmp_path))
    with TestClient(create_app(ctx=bare, run_migrations=False)) as browser:
        browser.get(f"/console/first-login?login_code={code}")
        cookie = browser.cookies.get(COOKIE)
    configured = build_context(make_settings(bare.settings.database_url), clock=clock)
    try:
        with TestClient(create_app(ctx=configured, run_migrations=False)) as later:
            later.cookies.set(COOKIE, cookie, path="/console")
            assert later.get("/console", follow_redirects=False).status_code == 303
    finally:
        configured.close()


def test_no_page_an_anonymous_visitor_reaches_shows_the_code(bare, tmp_path):
    code = _code(first_start.banner(bare, host="127.0.0.1", port=8000, var_dir=tmp_path))
    with TestClient(create_app(ctx=bare, run_migrations=False)) as anonymous:
        login = anonymous.get("/console/login", headers={"Accept-Language": "en"})
        assert "one-time admin login link" in login.text and "var/first-login.txt" in login.text
        pages = [login.text, anonymous.get("/console").text, anonymous.get("/docs").text]
        pages += [anonymous.get(p).text for p in ("/openapi.json", "/healthz", "/readyz", "/metrics", "/v1/facts")]
    assert all(code not in page for page in pages)


def test_with_a_token_configured_there_is_no_one_time_login(ctx, tmp_path):
    lines = first_start.banner(ctx, host="127.0.0.1", port=8000, var_dir=tmp_path)
    assert not any("one-time" in line for line in lines) and not (tmp_path / "first-login.txt").exists()
    with TestClient(create_app(ctx=ctx, run_migrations=False)) as browser:
        assert "first-start" not in browser.get("/console/login").text
        assert browser.get("/console/first-login?login_code=anything", follow_redirects=False).status_code == 401
        assert browser.post("/console/login", data={"token": ADMIN_TOKEN}, follow_redirects=False).status_code == 303


def test_the_access_log_never_shows_a_login_code():
    line = "GET /console/first-login?login_code=Zx9-abcdefghijklmnopqrstuvwxyz0123456789 HTTP/1.1"
    assert "Zx9-abc" not in Redactor().text(line)
