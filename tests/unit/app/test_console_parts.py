"""The console's pure parts: charts, the trace graph, language choice, form spellings, links."""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest

from app.console import charts, describe, forms, graph, i18n
from app.console.pages.overview import histogram
from app.console.web import safe_next
from kernel import catalogue


@pytest.mark.parametrize("value,top", [(0, 1), (1, 1), (3, 5), (5, 5), (7, 10), (11, 20), (180, 200), (501, 1000)])
def test_the_axis_ends_at_the_next_one_two_or_five(value, top):
    assert charts.nice_max(value) == top


def test_stacked_bars_draw_one_segment_per_nonzero_value_with_a_tooltip_and_no_inline_style():
    svg = charts.stacked_bars(
        ["03-17", "03-18"],
        [charts.Series("success", "sent", [2, 0]), charts.Series("blocked", "held <back>", [1, 3])],
        label="actions",
    )
    assert svg.count("<rect") == 3 and svg.count('class="fill-blocked"') == 2
    assert "<title>03-18 · held &lt;back&gt;: 3</title>" in svg
    assert "style" not in svg and 'aria-label="actions"' in svg


def test_horizontal_bars_scale_to_the_largest_value():
    svg = charts.hbars([("L1:quiet_hours", 4, "l1"), ("L3:concern_contact_limit", 2, "l3")], label="x")
    widths = [float(part.split('"')[0]) for part in svg.split('width="')[2:]]
    assert widths[0] == pytest.approx(2 * widths[1])


def test_time_to_answer_falls_into_its_bucket():
    waits = [timedelta(minutes=1), timedelta(minutes=5), timedelta(hours=3), timedelta(days=9)]
    assert histogram(waits) == [1, 1, 0, 1, 0, 0, 1]


def test_graph_text_is_clipped_by_display_width():
    assert graph.clip("abcdef", 5) == "abcd…"
    assert graph.clip("提测什么时候能给", 9) == "提测什么…"
    assert graph.clip("short", 10) == "short"


def test_the_trace_graph_draws_an_arrow_from_each_cause_it_knows():
    nodes = [
        graph.Node("a", 0, "message", "hi", "/a", "message_received"),
        graph.Node("b", 1, "decision", "d", "/b", "decision"),
    ]
    svg = graph.trace_graph(nodes, [("a", "b"), ("zzz", "b")], columns=["S", "D"], label="trace")
    assert svg.count('class="edge"') == 1 and svg.count("<a href=") == 2


@pytest.mark.parametrize(
    "header,cookie,lang",
    [
        ("zh-CN,zh;q=0.9,en;q=0.8", None, "zh"),
        ("en-US,en;q=0.9,zh;q=0.8", None, "en"),
        ("fr-FR,zh-TW;q=0.5,en;q=0.4", None, "zh"),
        ("fr", None, "en"),
        (None, None, "en"),
        ("zh-CN", "en", "en"),
        ("en", "zh", "zh"),
        ("en", "xx", "en"),
    ],
)
def test_the_language_is_the_toggles_else_the_best_of_accept_language(header, cookie, lang):
    assert i18n.pick(header, cookie) == lang


def test_every_word_has_both_languages():
    assert catalogue.check([i18n.WORDS]) == []


def test_the_policy_form_spelling_becomes_the_api_shape():
    patch = forms.policy_patch(
        {
            "allow_proactive_ping": "true",
            "max_proactive_contacts_per_day": "3",
            "preferred_channel": "",
            "quiet_hours": " 22:00-08:00,12:00 – 13:30 ,",
            "quiet_days": "7, 6",
            "paused_until": "2026-03-20T10:00",
        },
        tz=ZoneInfo("Asia/Shanghai"),
    )
    assert patch.model_dump(mode="json", exclude_unset=True) == {
        "allow_proactive_ping": True,
        "max_proactive_contacts_per_day": 3,
        "preferred_channel": None,
        "quiet_hours": [{"start": "22:00", "end": "08:00"}, {"start": "12:00", "end": "13:30"}],
        "quiet_days": [6, 7],
        "paused_until": "2026-03-20T10:00:00+08:00",
    }


@pytest.mark.parametrize(
    "field,value",
    [
        ("quiet_hours", "22:00"),
        ("quiet_hours", "24:00-08:00"),
        ("quiet_days", "sat"),
        ("paused_until", "soon"),
        ("max_proactive_contacts_per_day", "1e3"),
    ],
)
def test_a_form_value_that_does_not_parse_is_refused_beside_its_field(field, value):
    base = {"allow_proactive_ping": "true", "max_proactive_contacts_per_day": "3", "quiet_hours": "", "quiet_days": ""}
    with pytest.raises(forms.FormErrors) as raised:
        forms.policy_patch({**base, field: value}, tz=ZoneInfo("UTC"))
    assert field in raised.value.errors


def test_text_no_database_can_store_is_refused_before_any_model():
    with pytest.raises(forms.FormErrors) as raised:
        forms.person_create({"person_id": "p_x", "display_name": "a\x00b"})
    assert "NUL" in raised.value.errors["display_name"]


@pytest.mark.parametrize(
    "target,safe",
    [
        ("/console/persons?q=x", "/console/persons?q=x"),
        ("//evil", "/console"),
        ("https://x", "/console"),
        ("/v1/facts", "/console"),
        (None, "/console"),
        ("/console\\@evil", "/console"),
    ],
)
def test_only_a_console_path_may_follow_the_login(target, safe):
    assert safe_next(target) == safe


def test_ids_become_links_and_the_rest_is_escaped():
    html = describe.linkify("<b>con_20260318_001</b> by p_zhangsan, fact_20260318_012")
    assert '<a href="/console/concerns/con_20260318_001">con_20260318_001</a>' in html
    assert '<a href="/console/persons/p_zhangsan">' in html and "&lt;b&gt;" in html
    assert '<a href="/console/facts/fact_20260318_012">' in html
