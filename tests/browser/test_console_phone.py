"""Every console page on a phone (390 × 844) and a desktop (1360 × 900), in Chinese and English.

On each page: the page is never wider than the screen; on the phone every list is stacked cards (no cell squeezed
into a column one character wide); in Chinese, no English word is shown (`kernel.catalogue.latin_words`, the
catalogue check's own words) except the short allowlist below. Screenshots of every page at both widths go to
test-artifacts/screens/ (look at them when changing the layout).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from kernel.catalogue import latin_words
from tests.browser.conftest import ARTIFACTS
from tests.conftest import ADMIN_TOKEN

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1360, "height": 900}
SCREENS = ARTIFACTS / "screens"
# Words a Chinese page may show beyond the catalogue's own names: the actors' names (the tokens `ops` and
# `auditor`, and `test`, who seeded the people), the deployment's timezone, and the people's names and aliases
# (read from the API).
ALLOWED = {"ops", "auditor", "test", "Asia", "Shanghai"}
MIN_CELL = 140  # px: a stacked card's cell spans half the card or all; a squeezed column is far narrower


def pages(deputy) -> dict[str, str]:
    """Every page of the console, with the story's loop, one of its facts and one of its actions."""
    fact = deputy.api.get("/v1/facts", params={"fact_type": "action_result", "limit": 1}).json()["items"][0]
    action = deputy.api.get("/v1/actions", params={"limit": 1}).json()["items"][0]
    return {
        "overview": "/console",
        "persons": "/console/persons",
        "person": "/console/persons/p_zhangsan",
        "loops": "/console/concerns?state=",
        "loop": f"/console/concerns/{deputy.concern_id}",
        "facts": "/console/facts",
        "fact": f"/console/facts/{fact['fact_id']}",
        "actions": "/console/actions",
        "action": f"/console/actions/{action['action_id']}",
        "bad-filter": "/console/actions?since=yesterday",
        "no-one": "/console/concerns?person_id=%E8%B5%B5%E5%85%AD",
        "sandbox-off": "/console/sandbox",  # Telegram is live here: the page says why it is off
    }


def names(deputy) -> set[str]:
    """People's names and aliases, word by word (they are names, not English)."""
    found: set[str] = set()
    for person in deputy.api.get("/v1/persons", params={"limit": 100}).json()["items"]:
        for name in [person["display_name"], *person["aliases"]]:
            found.update(re.findall(r"[A-Za-z]+", name))
    return found


def untranslated(page, allowed: set[str]) -> list[str]:
    """The English words a reader sees on the page (closed details and hidden nodes are not seen)."""
    return latin_words(page.evaluate("document.body.innerText"), allowed=allowed)


def squeezed(page) -> list[str]:
    """Visible cells of list tables narrower than MIN_CELL, as `text (width)`."""
    return page.evaluate(
        """(min) => [...document.querySelectorAll('table.list td')]
            .filter(td => td.offsetParent !== null && td.getBoundingClientRect().width < min)
            .map(td => td.innerText.slice(0, 30) + ' (' + Math.round(td.getBoundingClientRect().width) + ')')""",
        MIN_CELL,
    )


def overflow(page) -> int:
    """How many pixels the page is wider than the screen (0: it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_every_page_fits_the_screen_and_speaks_the_readers_language(chromium, deputy, lang, size):
    locale = "zh-CN" if lang == "zh" else "en-US"
    context = chromium.new_context(locale=locale, viewport=size, base_url=deputy.base, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(10_000)
    SCREENS.mkdir(parents=True, exist_ok=True)
    allowed = ALLOWED | names(deputy)
    problems: dict[str, object] = {}
    try:
        page.goto("/console/login")
        page.screenshot(path=str(SCREENS / f"{lang}-{size['width']}-login.png"), full_page=True)
        page.fill("#token", ADMIN_TOKEN)
        page.click("button[type=submit]")
        expect(page.locator("h1")).to_have_text("概览" if lang == "zh" else "Overview")
        for name, path in pages(deputy).items():
            page.goto(path)
            page.wait_for_load_state("networkidle")
            page.screenshot(path=str(SCREENS / f"{lang}-{size['width']}-{name}.png"), full_page=True)
            if (wider := overflow(page)) > 0:
                problems[f"{name}: wider than the screen by"] = wider
            if size is PHONE and (cells := squeezed(page)):
                problems[f"{name}: squeezed cells"] = cells[:5]
            if lang == "zh" and (words := untranslated(page, allowed)):
                problems[f"{name}: English in the Chinese page"] = sorted(set(words))
    finally:
        context.close()
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())


def test_the_untranslated_check_sees_an_english_word_on_a_chinese_page(chromium, deputy):
    context = chromium.new_context(locale="zh-CN", viewport=PHONE, base_url=deputy.base)
    page = context.new_page()
    try:
        page.set_content(
            "<body><p>张三 (Telegram)：提问 p_zhangsan con_20260318_001</p><p>raise_concern · ask</p></body>"
        )
        assert untranslated(page, ALLOWED) == ["raise_concern", "ask"]
        page.set_content('<body><details><summary>内容</summary>{"change": "raised"}</details></body>')
        assert untranslated(page, ALLOWED) == []  # what a closed disclosure hides is not read
    finally:
        context.close()
