"""The console in a real browser: log in as each role, the people, a policy edit, a story's loop, refusals, logout."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.console_server import ANSWER, QUESTION
from tests.conftest import ADMIN_TOKEN, VIEWER_TOKEN

pytestmark = pytest.mark.browser


def log_in(page, token: str, *, then: str = "/console") -> None:
    page.goto(then)
    expect(page).to_have_url(re.compile(r"/console/login"))
    page.fill("#token", token)
    page.click("button[type=submit]")
    expect(page).to_have_url(re.compile(re.escape(then) + "$"))


def test_a_wrong_token_is_refused_and_a_viewer_logs_in_to_the_overview(page):
    page.goto("/console")
    page.fill("#token", "not-a-token")
    page.click("button[type=submit]")
    expect(page.locator("#login-error")).to_have_text("That token is not configured.")
    page.fill("#token", VIEWER_TOKEN)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Overview")
    expect(page.locator(".who .name")).to_have_text("auditor")
    expect(page.locator("#today")).to_contain_text("question")
    expect(page.locator("#not-sent")).to_contain_text("李四 is in quiet hours")
    expect(page.locator("svg.chart")).to_have_count(3)
    assert page.problems == []


def test_the_persons_list_shows_everyone_and_filters_as_you_type(page):
    log_in(page, VIEWER_TOKEN, then="/console/persons")
    rows = page.locator("#person-rows tr")
    expect(rows).to_have_count(4)
    expect(page.locator("#person-rows")).to_contain_text("00:00–23:59")
    page.fill("#q", "王")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("王五")
    assert page.problems == []


def test_a_viewer_sees_the_policy_but_cannot_change_it_and_a_forged_post_is_refused(page, deputy):
    log_in(page, VIEWER_TOKEN, then="/console/persons/p_lisi")
    expect(page.locator("#max_proactive_contacts_per_day")).to_be_disabled()
    expect(page.locator("#save-policy")).to_have_count(0)
    csrf = page.locator("input[name=csrf_token]").first.get_attribute("value")
    response = page.request.post(
        "/console/persons/p_lisi/policy", form={"csrf_token": csrf, "max_proactive_contacts_per_day": "9"}
    )
    assert response.status == 403 and "This token may only look" in response.text()
    policy = deputy.api.get("/v1/persons/p_lisi/interaction_policy").json()
    assert policy["max_proactive_contacts_per_day"] == 5


def test_an_admin_edits_a_policy_with_a_bad_then_a_good_value(page, deputy):
    log_in(page, ADMIN_TOKEN, then="/console/persons")
    page.click("text=李四")
    expect(page.locator("h1")).to_have_text("李四")
    cap = page.locator("#max_proactive_contacts_per_day")
    cap.fill("500")
    cap.press("Tab")  # inline validation (htmx) while editing
    expect(page.locator("#error-max_proactive_contacts_per_day")).to_contain_text("less than or equal to 100")
    page.click("#save-policy")
    expect(page.locator("#policy-error")).to_contain_text("Nothing was saved")
    expect(page.locator("#error-max_proactive_contacts_per_day")).to_contain_text("less than or equal to 100")
    expect(cap).to_have_value("500")
    assert deputy.api.get("/v1/persons/p_lisi/interaction_policy").json()["max_proactive_contacts_per_day"] == 5
    cap.fill("3")
    page.fill("#quiet_hours", "22:00-08:00, 12:00-13:30")
    page.click("#save-policy")
    expect(page.locator(".flash.ok")).to_have_text("Saved.")
    expect(cap).to_have_value("3")
    policy = deputy.api.get("/v1/persons/p_lisi/interaction_policy").json()
    assert policy["max_proactive_contacts_per_day"] == 3 and len(policy["quiet_hours"]) == 2
    changes = deputy.api.get("/v1/facts", params={"fact_type": "person_changed", "person_id": "p_lisi"}).json()
    assert changes["items"][0]["content"]["actor"] == "ops"
    assert page.problems == []


def test_the_story_loop_shows_its_timeline_and_causal_trace(page, deputy):
    # The answer promises a time, so a commitment with the same words follows the question: show questions only.
    log_in(page, ADMIN_TOKEN, then="/console/concerns?kind=question")
    page.click("nav.tabs >> text=All")
    page.click(f"text={QUESTION}")
    expect(page).to_have_url(re.compile(f"/console/concerns/{deputy.concern_id}$"))
    timeline = page.locator("#timeline")
    expect(timeline).to_contain_text(f"问一下张三：{QUESTION}")
    expect(timeline).to_contain_text("【跟进】")
    expect(timeline).to_contain_text(f"张三 (Telegram): “{ANSWER}”")
    expect(timeline).to_contain_text("answer passed back → 老板: sent")
    expect(page.locator("#loop-facts")).to_contain_text(ANSWER)
    nodes = page.locator("#trace svg .node")
    assert nodes.count() >= 10 and page.locator("#trace svg .edge").count() >= 10
    page.locator("#timeline details summary").first.click()
    expect(page.locator("#timeline pre.json").first).to_be_visible()
    page.locator("#trace svg a").first.click()
    expect(page).to_have_url(re.compile(r"/console/facts/fact_\d{8}_\d+$"))
    expect(page.locator("h1")).to_contain_text("message")
    assert page.problems == []


def test_the_fact_log_updates_live(page, deputy):
    log_in(page, VIEWER_TOKEN, then="/console/facts")
    expect(page.locator("#fact-poller")).to_contain_text("Live")
    deputy.api.patch("/v1/persons/p_wangwu", json={"display_name": "王五五"}).raise_for_status()
    expect(page.locator("#fact-rows tr").first).to_contain_text("王五五 updated", timeout=15_000)
    assert page.problems == []


def test_the_console_speaks_chinese_to_a_chinese_browser_and_switches(chromium, deputy):
    context = chromium.new_context(locale="zh-CN", base_url=deputy.base)
    page = context.new_page()
    try:
        page.goto("/console/login")
        expect(page.locator("button[type=submit]")).to_have_text("登录")
        page.fill("#token", VIEWER_TOKEN)
        page.click("button[type=submit]")
        expect(page.locator("h1")).to_have_text("概览")
        page.click("a.lang")
        expect(page.locator("h1")).to_have_text("Overview")
    finally:
        context.close()


def test_logout_ends_the_session(page):
    log_in(page, ADMIN_TOKEN)
    page.click("#logout")
    expect(page).to_have_url(re.compile(r"/console/login$"))
    page.goto("/console/persons")
    expect(page).to_have_url(re.compile(r"/console/login\?next="))


def test_an_admin_removes_a_learned_phrasing_from_the_principals_page(page, deputy):
    from cognitive_core import phrasings

    lesson = {"missed": "fact_browser_1", "shape": "{person}那事怎么说", "intent": "ask", "example": "张三那事怎么说"}
    with deputy.ctx.uow(actor="test") as uow:
        phrasing_id = phrasings.learn(
            uow, principal_id="p_boss", lesson=lesson, how="press", taught_by="fact_browser_2", causation_id="dec_x"
        )
    log_in(page, ADMIN_TOKEN, then="/console/persons/p_boss")
    row = page.locator(f'#phrasing-list tr[data-phrasing="{phrasing_id}"]')
    expect(row).to_contain_text("张三那事怎么说")
    expect(row).to_contain_text("‹someone›那事怎么说")
    row.locator("button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/console/persons/p_boss\?saved=removed#phrasings$"))
    expect(page.locator("#phrasings-none")).to_be_visible()
    with deputy.ctx.reader() as uow:
        assert phrasings.of(uow, principal_id="p_boss") == ()
    assert page.problems == []
