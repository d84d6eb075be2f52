"""Chromium (Debian's, through Playwright) against the real app served by uvicorn; a screenshot and the HTML on failure.

Playwright's own browser download does not work on these machines: the system Chromium is launched by path
(`DEPUTY_CHROMIUM`, default /usr/bin/chromium; `.ci/run` installs it with apt-get when it is missing).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.console_server import ConsoleServer
from tests.conftest import REQUIRE_SERVICES

CHROMIUM = os.environ.get("DEPUTY_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Refusals the tests provoke on purpose (a wrong token, a viewer's POST, a bad form value) log these in the console.
EXPECTED = re.compile(r"status of (401|403|422|429) ")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> Iterator[None]:
    """Remember each phase's report on the test item, so the page fixture knows whether the test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the session."""
    if not Path(CHROMIUM).exists():
        message = f"Chromium unavailable: {CHROMIUM} does not exist (apt-get install chromium)"
        if REQUIRE_SERVICES:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture(scope="module")
def deputy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    """Deputy with four people and one answered story, served on a free port."""
    server = ConsoleServer(tmp_path_factory.mktemp("console"))
    try:
        server.seed_people()
        server.concern_id = server.run_story()
        yield server
    finally:
        server.stop()


@pytest.fixture
def page(chromium, deputy: ConsoleServer, request: pytest.FixtureRequest):
    """A fresh browser context (no cookies) in English; on failure its screenshot and HTML go to test-artifacts/."""
    context = chromium.new_context(locale="en-US", viewport={"width": 1360, "height": 900}, base_url=deputy.base)
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" and not EXPECTED.search(m.text) else None)
    page.problems = problems
    yield page
    report = getattr(request.node, "report_call", None)
    if report is not None and report.failed:
        ARTIFACTS.mkdir(exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        (ARTIFACTS / f"{name}.html").write_text(page.content(), encoding="utf-8")
    context.close()
