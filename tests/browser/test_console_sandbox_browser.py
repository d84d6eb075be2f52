"""The sandbox in a real browser: ask as the principal, press the target's button, on a desktop and a phone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.browser.console_server import QUESTION, ConsoleServer
from tests.browser.test_console_phone import ALLOWED, PHONE, SCREENS, names, overflow, untranslated
from tests.conftest import ADMIN_TOKEN

pytestmark = pytest.mark.browser


@pytest.fixture
def sandboxed(tmp_path) -> Iterator[ConsoleServer]:
    """Deputy with every channel dry-run (the sandbox on) and the four people of the story, fresh for each test."""
    server = ConsoleServer(tmp_path, dry_run=True)
    try:
        server.seed_people()
        yield server
    finally:
        server.stop()


def _log_in(page, then: str) -> None:
    page.goto(f"/console/login?next={then}")
    page.fill("#token", ADMIN_TOKEN)
    page.click("button[type=submit]")


@pytest.mark.parametrize("size", [PHONE, {"width": 1360, "height": 900}], ids=["phone", "desktop"])
def test_a_question_asked_in_the_sandbox_is_answered_by_pressing_its_button(chromium, sandboxed, size):
    context = chromium.new_context(locale="zh-CN", viewport=size, base_url=sandboxed.base)
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        _log_in(page, "/console/sandbox?person_id=p_boss")
        expect(page.locator("h1")).to_have_text("沙盒")
        page.fill("#sandbox-text", f"问一下张三：{QUESTION}")
        page.click("#sandbox-say button[type=submit]")
        sandboxed.tick()
        page.goto("/console/sandbox?person_id=p_zhangsan")
        expect(page.locator(".bubble.bot").last).to_contain_text(QUESTION)
        button = page.locator(".bubble.bot").last.locator("button.sandbox-button:not([disabled])").first
        label = button.inner_text()
        button.click()
        expect(page.locator("#sandbox-toast")).to_be_visible()
        sandboxed.tick()
        page.goto("/console/sandbox?person_id=p_zhangsan")
        pressed = page.locator(".bubble.mine").last
        expect(pressed).to_contain_text("沙盒")
        expect(page.locator(f"button.sandbox-button:text-is('{label}')").first).to_be_disabled()
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / f"zh-{size['width']}-sandbox.png"), full_page=True)
        assert overflow(page) == 0
        assert untranslated(page, ALLOWED | names(sandboxed)) == []
    finally:
        context.close()
