"""Reading a reminder request: the moment in the person's timezone (DST included) and the words to remind of."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cognitive_core import rules
from cognitive_core.language.parsing import parse
from cognitive_core.language.reminding import read
from fact.decisions import DecisionKind

NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # 10:00 Asia/Shanghai


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("/remind 10m call the vendor", "10m call the vendor"),
        ("/remind tomorrow 9:30 standup notes", "tomorrow 9:30 standup notes"),
        ("提醒我1分钟后提交周报", "1分钟后提交周报"),
        ("提醒我明天上午10点交周报", "明天上午10点交周报"),
        ("remind me to call mom in 2 hours", "call mom in 2 hours"),
    ],
)
def test_the_reminder_phrasings_are_the_remind_command(text, rest):
    assert parse(text).name == "remind" and parse(text).args == {"rest": rest}


def test_reminders_lists_them():
    assert parse("/reminders").name == "reminders" and parse("我的提醒").name == "reminders"


@pytest.mark.parametrize(
    ("rest", "at", "what"),
    [
        ("10m call the vendor", "2026-03-18T02:10:00+00:00", "call the vendor"),
        ("2h 开会", "2026-03-18T04:00:00+00:00", "开会"),
        ("tomorrow 9:30 standup notes", "2026-03-19T01:30:00+00:00", "standup notes"),
        ("1分钟后提交周报", "2026-03-18T02:01:00+00:00", "提交周报"),
        ("明天上午10点交周报", "2026-03-19T02:00:00+00:00", "交周报"),
    ],
)
def test_the_time_and_the_words_are_read_apart(rest, at, what):
    found = read(rest, now=NOW, tz="Asia/Shanghai")
    assert found is not None and found[0] == datetime.fromisoformat(at) and found[1] == what


def test_tomorrow_across_the_november_dst_change_in_new_york():
    now = datetime(2026, 10, 31, 16, 0, tzinfo=UTC)  # Saturday 12:00 EDT; clocks go back on Sunday 02:00
    at, what, _ = read("tomorrow 9:30 standup notes", now=now, tz="America/New_York")
    assert at == datetime(2026, 11, 1, 14, 30, tzinfo=UTC) and what == "standup notes"  # 09:30 EST


def test_no_time_or_no_words_is_no_reminder():
    assert read("call the vendor", now=NOW, tz="Asia/Shanghai") is None
    assert read("明天", now=NOW, tz="Asia/Shanghai") is None


def _decide(text):
    sender = rules.PersonView("p_a", "A", timezone="Asia/Shanghai")
    signal = rules.SignalView(fact_id="fact_1", channel="telegram", text=text)
    return rules.decide(rules.Situation(signal=signal, sender=sender, people=(sender,), now=NOW))


def test_a_member_sets_a_reminder_for_themselves():
    [decision] = _decide("提醒我明天上午10点交周报")
    assert decision.kind == DecisionKind.raise_concern and decision.rule == "remind"
    assert decision.params["kind"] == "reminder" and decision.params["text"] == "交周报"


def test_a_time_in_the_past_or_none_sets_nothing():
    assert _decide("提醒我今天上午9点交周报")[0].rule == "remind:past"
    assert _decide("/remind call the vendor")[0].rule == "usage:remind"
    assert _decide("提醒我")[0].rule == "usage:remind"
