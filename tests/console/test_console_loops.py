"""Loops, facts and actions in the console: the timeline and trace of a loop, cancel and nudge, the live fact log."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from app.pipeline import tick
from concern import service as concerns
from tests.console.conftest import facts_of, open_loop
from tests.integration.action_helpers import add_memory_channels


@pytest.fixture
def channels(ctx):
    return add_memory_channels(ctx)


@pytest.fixture
def asked(ctx, zhangsan, channels) -> str:
    """A loop whose question reached Zhang San on Telegram at 10:00."""
    concern_id = open_loop(ctx, target=zhangsan)
    tick(ctx)
    return concern_id


def loop_of(ctx, concern_id):
    with ctx.reader() as uow:
        return concerns.get_or_404(uow, concern_id=concern_id)


def test_the_loop_page_shows_its_timeline_and_its_causal_trace(viewer, ctx, asked):
    html = viewer.get(f"/console/concerns/{asked}").text
    timeline = html[html.index('id="timeline"') : html.index('id="trace"')]
    assert "raise a loop · test" in timeline  # the decision that opened it (an uncatalogued rule reads as itself)
    assert f"{asked}</a> raised" in timeline and "question sent" in timeline
    assert "question → 张三: sent" in timeline
    trace = html[html.index('id="trace"') :]
    assert "<svg" in trace and 'class="edge"' in trace and trace.count('class="node ') >= 4


def test_an_admin_cancels_a_loop_the_originator_is_told_and_the_decision_names_the_admin(admin, ctx, asked, channels):
    response = admin.post(f"/console/concerns/{asked}/cancel")
    assert response.status_code == 303
    assert loop_of(ctx, asked).state == "cancelled"
    decision = next(f for f in facts_of(ctx, "decision") if f.content["rule"] == "console:cancel")
    assert decision.content["actor"] == "ops" and decision.content["inputs"] == [asked]
    change = next(f for f in facts_of(ctx, "concern_changed") if f.content["change"] == "cancelled")
    assert change.content["actor"] == "ops" and change.content["by"] == "ops"
    tick(ctx)
    assert any("取消" in text for text in channels[0].texts_to("ou_p_boss") + channels[1].texts_to("tg_p_boss"))
    page = admin.get(response.headers["location"]).text
    assert "Cancelled; the asker is told." in page and 'id="cancel"' not in page
    again = admin.post(f"/console/concerns/{asked}/cancel")
    assert again.status_code == 409 and "already cancelled" in again.text


def test_nudge_sends_a_follow_up_now_before_the_schedule_would(admin, ctx, asked, channels, clock):
    telegram = channels[1]
    step_before = loop_of(ctx, asked).step_at
    clock.advance(timedelta(minutes=30))  # the first follow-up is 4 h away (P1)
    response = admin.post(f"/console/concerns/{asked}/nudge")
    assert response.status_code == 303
    texts = telegram.texts_to("1001")
    assert len(texts) == 2 and texts[1].startswith("【跟进】")
    loop = loop_of(ctx, asked)
    assert loop.follow_up_count == 0  # the schedule's follow-ups are kept
    assert loop.step_at == clock.now() + timedelta(hours=4) != step_before  # the wait restarts from the nudge
    decision = next(f for f in facts_of(ctx, "decision") if f.content["rule"] == "console:nudge")
    assert decision.content["actor"] == "ops"
    page = admin.get(response.headers["location"]).text
    assert "Nudge: question → 张三: sent" in page


def test_nudge_keeps_the_contact_limit_and_a_held_nudge_changes_nothing(admin, ctx, asked, channels, clock):
    clock.advance(timedelta(minutes=30))
    admin.post(f"/console/concerns/{asked}/nudge")
    loop = loop_of(ctx, asked)
    response = admin.post(f"/console/concerns/{asked}/nudge")  # a third contact in 24 h: L3 holds it
    assert len(channels[1].texts_to("1001")) == 2
    assert (loop_of(ctx, asked).step_at, loop_of(ctx, asked).version) == (loop.step_at, loop.version)
    page = admin.get(response.headers["location"]).text
    assert "Nudge: question → 张三: held back" in page and "contacted twice" in page


def test_nudge_keeps_quiet_hours(admin, ctx, asked, channels, client, clock):
    client.patch(
        "/v1/persons/p_zhangsan/interaction_policy", json={"quiet_hours": [{"start": "09:00", "end": "18:00"}]}
    )
    response = admin.post(f"/console/concerns/{asked}/nudge")
    assert len(channels[1].texts_to("1001")) == 1
    assert "quiet hours" in admin.get(response.headers["location"]).text


def test_only_a_loop_waiting_for_a_reply_can_be_nudged(admin, ctx, asked, channels):
    admin.post(f"/console/concerns/{asked}/cancel")
    response = admin.post(f"/console/concerns/{asked}/nudge")
    assert response.status_code == 409 and "only a loop waiting for a reply" in response.text
    assert channels[1].texts_to("1001")[1:] == ["老板取消了问你的问题“提测什么时候能给？”，不用再回复了。"]  # no nudge


def test_the_loops_list_filters_by_state_priority_and_person(viewer, ctx, asked):
    assert asked in viewer.get("/console/concerns").text
    assert asked in viewer.get("/console/concerns?state=waiting_reply&priority=P1&person_id=p_zhangsan").text
    assert asked not in viewer.get("/console/concerns?state=resolved").text
    assert asked not in viewer.get("/console/concerns?priority=P0&state=").text
    rows = viewer.get("/console/concerns?state=open&kind=question", headers={"HX-Request": "true"}).text
    assert asked in rows and "<html" not in rows


def test_the_overview_says_what_was_sent_and_why_something_was_not(viewer, ctx, asked, client):
    client.patch("/v1/persons/p_wangwu/interaction_policy", json={"max_proactive_contacts_per_day": 0})
    client.post("/v1/notifications", json={"target_person_id": "p_wangwu", "text": "周会改到下午"})
    html = viewer.get("/console").text
    today = html[html.index('id="today"') : html.index('id="not-sent"')]
    assert re.search(r"question</a></th>\s*<td class=\"num\"><a [^>]*>1</a>", today)
    not_sent = html[html.index('id="not-sent"') : html.index('id="actions-chart"')]
    assert "notice → 王五: held back — 王五 accepts no messages from me (a daily limit of 0)" in not_sent
    assert "L1 daily cap" in html[html.index('id="blocked-chart"') :]  # the layer's code in the reader's words
    assert html.count("<svg") == 3
    open_loops = html[html.index('id="open-loops"') : html.index('id="backlog"')]
    assert "waiting for a reply" in open_loops


def test_the_overview_shows_held_deliveries_and_stuck_timers(viewer, ctx, asked, clock):
    clock.advance(timedelta(hours=5))  # the follow-up was due an hour ago and no processor ran
    html = viewer.get("/console").text
    held = html[html.index('id="held"') : html.index('id="channels"')]
    assert asked in held and "Timers overdue by more than" in held


def test_the_fact_log_filters_and_pages(viewer, ctx, asked):
    html = viewer.get("/console/facts?fact_type=decision").text
    assert "raise a loop · test" in html and "question_sent" not in html
    assert "question_sent" in viewer.get(f"/console/facts?q={asked}").text
    bad = viewer.get("/console/facts?since=yesterday")
    assert bad.status_code == 422 and "since must be an ISO 8601 datetime" in bad.text
    local = viewer.get("/console/facts?since=2026-03-18T09:59&until=2026-03-18T10:01")
    assert local.status_code == 200 and "question_sent" in local.text
    assert "question_sent" not in viewer.get("/console/facts?since=2026-03-18T10:01").text


def test_the_live_fact_log_returns_only_what_was_recorded_since(viewer, ctx, asked, client):
    html = viewer.get("/console/facts").text
    top = int(re.search(r"after=(\d+)", html).group(1))
    nothing = viewer.get(f"/console/facts?after={top}", headers={"HX-Request": "true"}).text
    assert "fact-row" not in nothing and f"after={top}" in nothing
    client.patch("/v1/persons/p_zhangsan", json={"display_name": "张三丰"})
    fresh = viewer.get(f"/console/facts?after={top}", headers={"HX-Request": "true"}).text
    assert fresh.count('class="fact-row"') == 1 and "张三丰 updated" in fresh
    assert 'hx-swap-oob="afterbegin:#fact-rows"' in fresh and f"after={top}" not in fresh


def test_a_fact_and_an_action_have_pages_with_their_causes(viewer, ctx, asked):
    action = next(f for f in facts_of(ctx, "action_result") if f.content["action_type"] == "send_message")
    page = viewer.get(f"/console/actions/{action.content['action_id']}").text
    assert "question → 张三: sent" in page and "raise a loop · test" in page and "<svg" in page
    fact = viewer.get(f"/console/facts/{action.fact_id}").text
    assert "Caused by" in fact and asked in fact
    decision = viewer.get(f"/console/facts/{facts_of(ctx, 'decision')[-1].content['decision_id']}")
    assert decision.status_code == 200 and "raised" in decision.text
    assert viewer.get("/console/facts/fact_20990101_001").status_code == 404
    assert viewer.get("/console/actions/act_20990101_001").status_code == 404


def test_the_actions_list_says_why_an_action_was_held_back(viewer, ctx, asked, client):
    client.patch("/v1/persons/p_wangwu/interaction_policy", json={"allow_proactive_ping": False})
    client.post("/v1/notifications", json={"target_person_id": "p_wangwu", "text": "周会改到下午"})
    html = viewer.get("/console/actions?result=blocked").text
    assert "L1 no proactive messages" in html and "王五 does not accept messages from me" in html
    rows = html[html.index('id="action-rows"') :].split("</tbody>")[0]
    assert "“周会改到下午”" in rows  # each action shows the text of its message
    assert rows.count("<tr>") == 1  # the question that went out is not listed
    assert viewer.get("/console/actions?result=maybe").status_code == 422


@pytest.mark.parametrize("accept,expected", [("zh-CN,zh;q=0.9,en;q=0.8", "待办事项"), ("en-US,en;q=0.9", "Open loops")])
def test_the_console_speaks_the_browsers_language_and_the_toggle_wins(viewer, asked, accept, expected):
    assert expected in viewer.get("/console/concerns", headers={"Accept-Language": accept}).text
    other = "en" if expected == "待办事项" else "zh"
    toggled = viewer.get(f"/console/lang/{other}?next=/console/concerns")
    assert toggled.status_code == 303 and toggled.headers["location"] == "/console/concerns"
    page = viewer.get("/console/concerns", headers={"Accept-Language": accept}).text
    assert ("Open loops" if other == "en" else "待办事项") in page
    assert '<html lang="' + ("en" if other == "en" else "zh-CN") + '"' in page


def test_a_bad_filter_is_an_error_page_not_json(viewer):
    response = viewer.get("/console/concerns?priority=P9")
    assert response.status_code == 422 and "<html" in response.text and "priority" in response.text


def test_the_overview_lists_signals_no_route_handles(viewer, ctx, zhangsan):
    from perception import service as perception
    from perception.models import ExternalSignal

    signal = ExternalSignal(source="ci", signal_type="deploy_finished", external_id="d1", person_id=zhangsan)
    fact, _ = perception.record_signal(ctx, signal=signal, actor="test")
    tick(ctx)
    html = viewer.get("/console").text
    card = html[html.index('id="unhandled-signals"') : html.index('id="channels"')]
    assert fact.fact_id in card and "deploy_finished" in card and "张三" in card
