"""Console clients over the real app: a browser-like TestClient per role, logged in through the login form."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from concern import flows
from fact import decisions
from fact import service as fact_service
from fact.decisions import DecisionKind
from kernel.context import AppContext
from tests.conftest import ADMIN_TOKEN, VIEWER_TOKEN
from tests.integration.action_helpers import add_person

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


class Browser:
    """A TestClient with its own cookie jar, and the CSRF token of its session once logged in."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.csrf = ""

    def login(self, token: str) -> Browser:
        """Log in through the form and read the session's CSRF token from a page."""
        response = self.client.post("/console/login", data={"token": token}, follow_redirects=False)
        assert response.status_code == 303, response.text
        self.csrf = csrf_of(self.client.get("/console").text)
        return self

    def get(self, path: str, **kwargs):
        return self.client.get(path, follow_redirects=False, **kwargs)

    def post(self, path: str, data: dict | None = None, *, csrf: bool = True, **kwargs):
        """POST a form, with this session's CSRF token unless told not to."""
        body = {**({"csrf_token": self.csrf} if csrf else {}), **(data or {})}
        return self.client.post(path, data=body, follow_redirects=False, **kwargs)


def csrf_of(html: str) -> str:
    """The CSRF token a page's forms carry."""
    match = CSRF.search(html)
    assert match, "the page carries no csrf_token field"
    return match.group(1)


@pytest.fixture
def open_browser(ctx: AppContext) -> Iterator[Callable[..., Browser]]:
    """Make browsers (separate cookie jars) on one app."""
    app = create_app(ctx=ctx, run_migrations=False)
    clients: list[TestClient] = []

    def make(address: str = "testclient") -> Browser:
        client = TestClient(app, raise_server_exceptions=False, client=(address, 50000))
        client.__enter__()
        clients.append(client)
        return Browser(client)

    yield make
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def anonymous(open_browser) -> Browser:
    """Not logged in."""
    return open_browser()


@pytest.fixture
def admin(open_browser) -> Browser:
    """Logged in with the admin token (named `ops`)."""
    return open_browser().login(ADMIN_TOKEN)


@pytest.fixture
def viewer(open_browser) -> Browser:
    """Logged in with the viewer token (named `auditor`)."""
    return open_browser().login(VIEWER_TOKEN)


@pytest.fixture
def zhangsan(ctx: AppContext) -> str:
    """Zhang San, bound on Telegram, with his manager Wang Wu."""
    add_person(ctx, "p_wangwu", display_name="王五")
    add_person(
        ctx,
        "p_zhangsan",
        display_name="张三",
        manager_id="p_wangwu",
        bindings=[{"channel": "telegram", "external_user_id": "1001", "chat_id": "1001"}],
    )
    return "p_zhangsan"


def facts_of(ctx: AppContext, fact_type: str, person_id: str | None = None) -> list:
    """Every fact of a type (optionally about a person), newest first, read from the database."""
    with ctx.reader() as uow:
        found, _ = fact_service.list_(
            uow, filters=fact_service.FactFilter(fact_type=fact_type, person_id=person_id), limit=500
        )
        return found


def open_loop(ctx: AppContext, *, target: str, question: str = "提测什么时候能给？") -> str:
    """The principal `p_boss` (created here) asks `target` through the concern engine; returns the loop's id."""
    add_person(ctx, "p_boss", display_name="老板", role="principal")
    with ctx.uow(actor="test") as uow:
        decision = decisions.record(uow, kind=DecisionKind.raise_concern, rule="test", source="admin_api")
        concern = flows.raise_(
            uow,
            originator_id="p_boss",
            target_person_id=target,
            question=question,
            priority="P1",
            decision_id=decision,
        )
    return concern.concern_id
