"""Find a person's day in one step: filters take names and aliases, and the person page tells their day in order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from action import service as actions
from app.pipeline import tick
from tests.conftest import VIEWER_TOKEN
from tests.integration.action_helpers import notify
from tests.integration.story_helpers import say


@pytest.fixture
def day(ctx, clock, client, team):
    """张三's day: the cap (1) used by a notice at 12:00, so 老板's question at 12:00 is held until midnight, then
    asked at 00:00, followed up, answered with a promise."""
    client.patch("/v1/persons/p_zhangsan/interaction_policy", json={"max_proactive_contacts_per_day": 1})
    assert actions.execute(ctx, request=notify("p_zhangsan")).result == "success"
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 周报写了吗？")
    return team


def _section(html: str, start: str, end: str) -> str:
    return html[html.index(start) : html.index(end)]


def test_loops_facts_and_actions_filter_by_name_and_alias_as_well_as_id(viewer, day):
    for typed in ("张三", "Zhang San", "zhang san", "p_zhangsan"):
        loops = viewer.get("/console/concerns", params={"person_id": typed}).text
        assert "周报写了吗？" in loops and 'id="person-problem"' not in loops, typed
        assert 'id="person-named"' in loops and "Showing 张三" in loops
    facts = viewer.get("/console/facts", params={"person_id": "Zhang San", "fact_type": "message_received"}).text
    assert "“/ask @p_zhangsan 周报写了吗？”" not in facts  # 老板 said it; the filter names 张三 only
    assert viewer.get("/console/facts", params={"person_id": "老板"}).text.count('class="fact-row"') >= 1
    acts = viewer.get("/console/actions", params={"person_id": "张三"}).text
    assert "张三" in _section(acts, 'id="action-rows"', "</tbody>") and 'id="person-problem"' not in acts


def test_a_name_nobody_has_says_so_instead_of_an_empty_list(viewer, day):
    html = viewer.get("/console/concerns", params={"person_id": "赵六"}).text
    assert "No one is called “赵六”: type a name, an alias or a p_… id." in html
    zh = viewer.get("/console/actions", params={"person_id": "赵六"}, headers={"Accept-Language": "zh-CN"}).text
    assert "没有名为“赵六”的人员" in zh


def test_a_name_two_people_share_asks_which_one(viewer, client, day):
    client.post("/v1/persons", json={"person_id": "p_zhangsan2", "display_name": "张三丰"})
    html = viewer.get("/console/facts", params={"person_id": "张"}).text
    assert "“张” matches" in html and "张三 (p_zhangsan)" in html and "张三丰 (p_zhangsan2)" in html
    assert 'class="fact-row"' not in html
    exact = viewer.get("/console/concerns", params={"person_id": "张三"}).text  # an exact name wins over a part
    assert "Showing 张三" in exact


def test_the_filters_suggest_every_name_and_alias(viewer, day):
    html = viewer.get("/console/concerns").text
    suggest = _section(html, '<datalist id="people-suggest">', "</datalist>")
    assert '<option value="张三" label="张三 · p_zhangsan">' in suggest
    assert '<option value="Zhang San" label="张三 · p_zhangsan">' in suggest
    people = viewer.get("/console/persons", params={"q": "Zhang"}, headers={"HX-Request": "true"}).text
    assert people.count("<tr") == 1 and "p_zhangsan</span>" in people  # the search box finds aliases too


def test_the_person_page_tells_their_day_in_time_order_with_holds_and_why(viewer, ctx, clock, day):
    feishu, telegram = day
    clock.set(datetime(2026, 3, 18, 16, 0, 30, tzinfo=UTC))  # 00:00:30 local: the held question goes out
    tick(ctx)
    say(ctx, channel="telegram", user="tg_zs", text="明天上午给你")
    html = viewer.login(VIEWER_TOKEN).get("/console/persons/p_zhangsan").text  # a new day, a new session
    today = _section(html, 'id="day"', 'id="loops"')
    # The page's day is 张三's local day: it began at midnight, so only what happened since is listed.
    assert "周报写了吗？" in today and "00:00" in today
    labels = [chunk.split("</span>")[0] for chunk in today.split('class="pill day-pill')[1:]]
    assert [label.split(">")[-1] for label in labels][:3] == ["asked", "said", "answered"]


def test_the_day_names_a_hold_with_its_reason_and_the_time_it_goes_out(viewer, day):
    html = viewer.get("/console/persons/p_zhangsan").text
    today = _section(html, 'id="day"', 'id="loops"')
    assert ">held<" in today and "张三 has reached today&#39;s message limit until tomorrow 00:00" in today
    assert ">told<" in today  # the notice that used the cap, with its text
    zh = viewer.get("/console/persons/p_zhangsan", headers={"Accept-Language": "zh-CN"}).text
    zh_today = _section(zh, 'id="day"', 'id="loops"')
    assert ">暂缓<" in zh_today and "张三今天收到的消息已达上限，到 明天 00:00" in zh_today


def test_the_person_page_leaves_a_slot_for_further_sections(viewer, day, monkeypatch):
    from app.console.pages import person

    monkeypatch.setattr(person, "SECTIONS", ["partials/person_problem.html"])
    assert viewer.get("/console/persons/p_zhangsan").status_code == 200
