"""The person page shows busy time from the Feishu calendar when DEPUTY_FEISHU_CALENDAR is on (fake Feishu)."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Iterator

import pytest

from tests.fakes import feishu_server as fs
from tests.integration.action_helpers import add_person
from tests.integration.calendar_helpers import NOON, H, calendar_context


@pytest.fixture
def fake() -> Iterator[fs.FakeFeishu]:
    server = fs.FakeFeishu().start()
    server.add_user("ou_zs", "张三")
    yield server
    server.stop()


@pytest.fixture
def ctx(database_url, clock, fake):
    clock.set(NOON)
    context = calendar_context(database_url, clock, fake)
    add_person(
        context, "p_zhangsan", display_name="张三", bindings=[{"channel": "feishu", "external_user_id": "ou_zs"}]
    )
    yield context
    context.close()


def _section(browser, lang: str) -> str:
    page = browser.get("/console/persons/p_zhangsan", headers={"Accept-Language": lang}).text
    found = re.search(r'<section class="card" id="reachability">(.*?)</section>', page, re.S)
    assert found, "the person page has a reachability section"
    return html_lib.unescape(found.group(1))


def test_the_person_page_shows_the_meetings_ahead_and_the_wait_they_cause(viewer, fake):
    fake.add_busy("ou_zs", NOON - H, NOON + H)
    fake.add_busy("ou_zs", NOON + 3 * H, NOON + 4 * H)
    zh = _section(viewer, "zh")
    assert "忙碌 11:00–13:00、15:00–16:00" in zh and "可联系：13:00 起 — 会议到 13:00" in zh
    en = _section(viewer, "en")
    assert "busy 11:00–13:00, 15:00–16:00" in en and "in a meeting until 13:00" in en
    assert len(fake.freebusy_requests()) == 1


def test_a_calendar_that_cannot_be_read_says_so_and_the_person_reads_as_free(viewer, fake):
    fake.script("freebusy", fs.NO_CALENDAR_SCOPE)
    zh = _section(viewer, "zh")
    assert "暂时读不到，按空闲处理" in zh and "可联系：现在" in zh and "日历暂时读不到，按空闲处理" in zh
