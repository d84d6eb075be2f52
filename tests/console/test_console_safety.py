"""Roles, CSRF and security headers: viewers change nothing, a POST without this session's token changes nothing."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select

from action.models import ActionRow
from app.console.headers import CSP
from fact.models import Fact
from person.models import Person
from tests.conftest import ADMIN_TOKEN
from tests.console.conftest import facts_of, open_loop

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
NEW_PERSON = {"person_id": "p_new", "display_name": "New", "role": "member", "locale": "zh"}
POLICY = {"allow_proactive_ping": "true", "max_proactive_contacts_per_day": "3", "quiet_hours": "22:00-08:00"}
# Every change the console offers, as (path, form).
CHANGES = [
    ("/console/persons", NEW_PERSON),
    ("/console/persons/p_zhangsan/policy", POLICY),
    ("/console/persons/p_zhangsan/policy/check", POLICY),
    (
        "/console/persons/p_zhangsan/profile",
        {"display_name": "Changed", "role": "member", "locale": "zh", "timezone": "Asia/Shanghai"},
    ),
    ("/console/persons/p_zhangsan/bind_codes", {}),
    ("/console/persons/p_zhangsan/bindings/reachable", {"channel": "telegram", "external_user_id": "1001"}),
    ("/console/concerns/con_20260318_001/cancel", {}),
    ("/console/concerns/con_20260318_001/nudge", {}),
]


def snapshot(ctx) -> tuple[int, int, int]:
    """How many persons, facts and actions exist: a refused POST must leave all three alone."""
    with ctx.reader() as uow:
        return tuple(uow.session.scalar(select(func.count()).select_from(m)) for m in (Person, Fact, ActionRow))


@pytest.fixture
def loop(ctx, zhangsan) -> str:
    return open_loop(ctx, target=zhangsan)


@pytest.mark.parametrize("path,form", CHANGES, ids=[c[0].rsplit("/", 1)[-1] for c in CHANGES])
def test_a_viewer_post_is_refused_and_changes_nothing(viewer, ctx, loop, path, form):
    before = snapshot(ctx)
    response = viewer.post(path, form)
    assert response.status_code == 403
    assert "This token may only look" in response.text
    assert snapshot(ctx) == before


@pytest.mark.parametrize("path,form", CHANGES, ids=[c[0].rsplit("/", 1)[-1] for c in CHANGES])
@pytest.mark.parametrize("token", [None, "", "forged-token"], ids=["missing", "empty", "wrong"])
def test_an_admin_post_without_the_session_csrf_token_is_refused_and_changes_nothing(
    admin, ctx, loop, path, form, token
):
    before = snapshot(ctx)
    data = dict(form) if token is None else {**form, "csrf_token": token}
    response = admin.post(path, data, csrf=False)
    assert response.status_code == 403 and "did not come from this console" in response.text
    assert snapshot(ctx) == before


def test_another_sessions_csrf_token_is_refused(admin, open_browser, ctx, loop):
    other = open_browser().login(ADMIN_TOKEN)
    assert other.csrf != admin.csrf
    before = snapshot(ctx)
    assert admin.post("/console/persons", {**NEW_PERSON, "csrf_token": other.csrf}, csrf=False).status_code == 403
    assert snapshot(ctx) == before


def test_htmx_sends_the_csrf_token_as_a_header(admin, ctx, zhangsan):
    response = admin.client.post(
        "/console/persons/p_zhangsan/policy/check",
        data={"max_proactive_contacts_per_day": "500"},
        headers={"X-CSRF-Token": admin.csrf, "HX-Request": "true"},
    )
    assert response.status_code == 200 and 'id="error-max_proactive_contacts_per_day"' in response.text
    assert "less than or equal to 100" in response.text


def test_the_admin_change_is_attributed_to_the_token_name(admin, ctx):
    response = admin.post("/console/persons", NEW_PERSON)
    assert response.status_code == 303 and response.headers["location"].startswith("/console/persons/p_new")
    [fact] = facts_of(ctx, "person_changed", "p_new")
    assert fact.content["actor"] == "ops" and fact.content["change"] == "created"


def test_every_page_a_viewer_sees_offers_no_change(viewer, ctx, loop):
    for path in ("/console/persons", "/console/persons/p_zhangsan", f"/console/concerns/{loop}"):
        html = viewer.get(path).text
        assert 'id="save-policy"' not in html and 'id="cancel"' not in html and 'id="nudge"' not in html
        assert "New person" not in html and 'id="issue-bind-code"' not in html
    assert 'id="logout"' in viewer.get("/console").text


@pytest.mark.parametrize(
    "path", ["/console", "/console/login", "/console/persons", "/console/nowhere", "/console/static/console.css"]
)
def test_console_responses_carry_the_security_headers(admin, path):
    response = admin.get(path)
    assert response.headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "'unsafe-inline'" not in CSP and "frame-ancestors 'none'" in CSP
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "same-origin"
    assert response.headers["x-content-type-options"] == "nosniff"


def test_pages_are_not_cached_and_the_redirect_to_the_login_is_framed_by_nothing(anonymous, admin):
    assert admin.get("/console").headers["cache-control"] == "no-store"
    assert anonymous.get("/console").headers["x-frame-options"] == "DENY"


def test_no_console_page_holds_an_inline_script_or_style(admin, ctx, loop):
    for path in (
        "/console",
        "/console/persons",
        "/console/persons/p_zhangsan",
        f"/console/concerns/{loop}",
        "/console/facts",
        "/console/actions",
        "/console/login",
    ):
        html = admin.get(path).text
        assert not re.search(r"<script(?![^>]*\bsrc=)", html), path
        assert not re.search(r"\sstyle=|<style", html), path
        assert not re.search(r"\son[a-z]+=", html), path


def test_the_api_keeps_its_own_headers(admin, client):
    response = client.get("/v1/persons")
    assert response.status_code == 200 and "content-security-policy" not in response.headers
    assert client.get("/docs").status_code == 200
