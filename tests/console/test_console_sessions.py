"""Logging in and out of the console: the signed session cookie, its limits, and where a request without one goes."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from app.console.auth import COOKIE
from app.main import create_app
from app.wiring import build_context
from tests.conftest import ADMIN_TOKEN, VIEWER_TOKEN, make_settings

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # no database question here
PAGES = [
    "/console",
    "/console/persons",
    "/console/persons/p_x",
    "/console/concerns",
    "/console/concerns/con_1",
    "/console/facts",
    "/console/facts/fact_1",
    "/console/actions",
    "/console/actions/act_1",
    "/console/nowhere",
]


def set_cookie(response) -> str:
    return "; ".join(response.headers.get_list("set-cookie"))


@pytest.mark.parametrize("path", PAGES)
def test_every_console_page_redirects_to_the_login_without_a_session(anonymous, path):
    response = anonymous.get(path)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/console/login")


def test_the_login_remembers_the_page_asked_for(anonymous):
    response = anonymous.get("/console/persons?q=zh")
    assert response.headers["location"] == "/console/login?next=%2Fconsole%2Fpersons%3Fq%3Dzh"
    page = anonymous.get(response.headers["location"])
    assert page.status_code == 200 and 'name="token"' in page.text and 'value="/console/persons?q=zh"' in page.text
    login = anonymous.post("/console/login", {"token": ADMIN_TOKEN, "next": "/console/persons?q=zh"}, csrf=False)
    assert login.status_code == 303 and login.headers["location"] == "/console/persons?q=zh"


@pytest.mark.parametrize("target", ["//evil.example/x", "https://evil.example/", "/v1/persons", "/console\\\\x"])
def test_after_the_login_the_browser_never_leaves_the_console(anonymous, target):
    login = anonymous.post("/console/login", {"token": ADMIN_TOKEN, "next": target}, csrf=False)
    assert login.headers["location"] == "/console"


def test_htmx_requests_without_a_session_are_told_where_to_log_in(anonymous):
    response = anonymous.get("/console/facts", headers={"HX-Request": "true"})
    assert response.status_code == 401 and response.headers["HX-Redirect"].startswith("/console/login")


def test_a_configured_token_gets_a_signed_http_only_lax_cookie_that_expires(anonymous):
    response = anonymous.post("/console/login", {"token": VIEWER_TOKEN}, csrf=False)
    cookie = set_cookie(response)
    assert response.status_code == 303 and cookie.startswith(f"{COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Max-Age=43200" in cookie and "Path=/console" in cookie
    assert "Secure" not in cookie
    assert VIEWER_TOKEN not in cookie
    assert anonymous.get("/console").status_code == 200


def test_the_cookie_is_secure_when_the_setting_says_so(database_url, clock):
    ctx = build_context(make_settings(database_url, console_secure_cookies=True), clock=clock)
    try:
        with TestClient(create_app(ctx=ctx, run_migrations=False)) as client:
            response = client.post("/console/login", data={"token": ADMIN_TOKEN}, follow_redirects=False)
            assert "Secure" in set_cookie(response)
    finally:
        ctx.close()


@pytest.mark.parametrize("token", ["wrong-token", ADMIN_TOKEN[:-1], "", f"Bearer {ADMIN_TOKEN}"])
def test_a_wrong_token_sets_no_cookie_and_says_so(anonymous, token):
    response = anonymous.post("/console/login", {"token": token}, csrf=False)
    assert response.status_code == 401
    assert "set-cookie" not in response.headers
    assert "That token is not configured." in response.text
    assert anonymous.get("/console").status_code == 303


def test_failed_logins_are_limited_per_client_and_the_limit_passes(anonymous, open_browser, clock):
    for i in range(5):
        assert anonymous.post("/console/login", {"token": f"guess-{i}"}, csrf=False).status_code == 401
    limited = anonymous.post("/console/login", {"token": ADMIN_TOKEN}, csrf=False)
    assert limited.status_code == 429 and "set-cookie" not in limited.headers
    assert int(limited.headers["Retry-After"]) == 15 * 60
    assert "Too many failed logins" in limited.text
    other = open_browser("10.0.0.9")
    assert other.post("/console/login", {"token": ADMIN_TOKEN}, csrf=False).status_code == 303
    clock.advance(timedelta(minutes=15, seconds=1))
    assert anonymous.post("/console/login", {"token": ADMIN_TOKEN}, csrf=False).status_code == 303


def test_a_tampered_cookie_is_no_session(admin):
    value = admin.client.cookies.get(COOKIE)
    admin.client.cookies.clear()
    admin.client.cookies.set(COOKIE, value[:-2] + ("AA" if not value.endswith("AA") else "BB"), path="/console")
    assert admin.get("/console").status_code == 303


def test_a_session_expires_after_its_lifetime(admin, clock):
    clock.advance(timedelta(hours=11, minutes=59))
    assert admin.get("/console").status_code == 200
    clock.advance(timedelta(minutes=2))
    assert admin.get("/console").status_code == 303


def test_removing_a_token_ends_its_sessions(viewer, ctx):
    ctx.settings.viewer_tokens = {}
    assert viewer.get("/console").status_code == 303


def test_logout_needs_the_csrf_token_and_clears_the_cookie(viewer):
    refused = viewer.post("/console/logout", csrf=False)
    assert refused.status_code == 403 and viewer.get("/console").status_code == 200
    response = viewer.post("/console/logout")
    assert response.status_code == 303 and response.headers["location"] == "/console/login"
    assert f'{COOKIE}=""' in set_cookie(response) and "Max-Age=0" in set_cookie(response)
    assert viewer.get("/console").status_code == 303


def test_with_a_configured_secret_sessions_survive_a_restart(database_url, clock):
    settings = make_settings(database_url, console_secret="a-long-shared-console-secret")
    contexts = [build_context(settings, clock=clock) for _ in range(2)]
    try:
        with (
            TestClient(create_app(ctx=contexts[0], run_migrations=False)) as one,
            TestClient(create_app(ctx=contexts[1], run_migrations=False)) as two,
        ):
            one.post("/console/login", data={"token": ADMIN_TOKEN})
            two.cookies.set(COOKIE, one.cookies.get(COOKIE), path="/console")
            assert two.get("/console", follow_redirects=False).status_code == 200
    finally:
        for ctx in contexts:
            ctx.close()


def test_the_session_secret_never_reaches_the_log(database_url, clock, caplog):
    secret = "a-long-shared-console-secret"
    ctx = build_context(make_settings(database_url, console_secret=secret), clock=clock)
    try:
        with caplog.at_level(logging.DEBUG), TestClient(create_app(ctx=ctx, run_migrations=False)) as client:
            client.post("/console/login", data={"token": ADMIN_TOKEN})
            client.post("/console/login", data={"token": "wrong"})
    finally:
        ctx.close()
    logged = caplog.text + "".join(repr(r.__dict__) for r in caplog.records)
    assert secret not in logged and ADMIN_TOKEN not in logged
