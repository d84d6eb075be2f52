"""The time-expression table (zh / en), inside sentences, across DST and midnight."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from cognitive_core.language.when import parse_when
from tests.unit.cognitive_core.time_table import NOW, SHANGHAI, TABLE

NEW_YORK = ZoneInfo("America/New_York")


@pytest.mark.parametrize(("text", "locale", "expected", "vague"), TABLE, ids=[row[0] for row in TABLE])
def test_each_expression_of_the_table_means_its_moment(text, locale, expected, vague):
    found = parse_when(text, now=NOW, tz=SHANGHAI, locale=locale)
    if expected is None:
        assert found is None
        return
    assert found is not None, text
    assert found.at.tzinfo is not None and found.at.utcoffset() == timedelta(0)
    assert found.at.astimezone(SHANGHAI).strftime("%m-%d %H:%M") == expected
    assert found.vague is vague


def test_the_table_has_forty_expressions_or_more_in_both_languages():
    assert len(TABLE) >= 40
    assert {row[1] for row in TABLE} == {"zh", "en"}


@pytest.mark.parametrize(
    ("text", "words", "before"),
    [
        ("好的，明天下午3点给你发过去", "明天下午3点", False),
        ("测试报告周五前能交", "周五前", True),
        ("I'll send it by Friday 5pm, promise", "by Friday 5pm", True),
        ("ok, tomorrow at 3pm works", "tomorrow at 3pm", False),
        ("问题不大，两小时后给你", "两小时后", False),
        ("明早10点前一定给", "明早10点前", True),
    ],
)
def test_an_expression_inside_a_sentence_is_found_with_its_words_and_span(text, words, before):
    found = parse_when(text, now=NOW, tz=SHANGHAI)
    assert found is not None and found.words == words
    assert text[found.span[0] : found.span[1]] == words
    assert found.before is before


@pytest.mark.parametrize("text", ["快一点好吗", "I sat down with them", "要3个小时", "前面那个已经好了", "see page 5"])
def test_words_that_only_look_like_time_are_not_time(text):
    assert parse_when(text, now=NOW, tz=SHANGHAI) is None


def test_a_clock_time_is_read_in_the_timezone_given():
    found = parse_when("明天下午3点", now=NOW, tz="America/New_York")
    # Now is Tue 22:00 in New York: tomorrow is Wednesday there.
    assert found.at == datetime(2026, 3, 18, 15, 0, tzinfo=NEW_YORK).astimezone(UTC)


def test_tomorrow_across_the_end_of_daylight_saving_time_keeps_the_wall_clock():
    now = datetime(2026, 10, 31, 12, 0, tzinfo=NEW_YORK)  # EDT, the day before clocks go back
    found = parse_when("tomorrow 9:30", now=now, tz=NEW_YORK)
    assert found.at == datetime(2026, 11, 1, 14, 30, tzinfo=UTC)  # 09:30 EST (UTC-5)


def test_a_duration_across_the_repeated_hour_counts_real_time():
    now = datetime(2026, 11, 1, 0, 30, tzinfo=NEW_YORK)  # 04:30 UTC, EDT
    found = parse_when("in 2 hours", now=now, tz=NEW_YORK)
    assert found.at == datetime(2026, 11, 1, 6, 30, tzinfo=UTC)  # 01:30 EST, the second one


def test_tonight_on_the_day_clocks_go_back_is_eight_in_the_evening_standard_time():
    now = datetime(2026, 11, 1, 10, 0, tzinfo=NEW_YORK)
    assert parse_when("tonight", now=now, tz=NEW_YORK).at == datetime(2026, 11, 2, 1, 0, tzinfo=UTC)


def test_just_before_midnight_tomorrow_is_the_next_calendar_day():
    now = datetime(2026, 3, 18, 23, 50, tzinfo=SHANGHAI)
    assert parse_when("明天上午10点", now=now, tz=SHANGHAI).at.astimezone(SHANGHAI).strftime("%m-%d %H:%M") == (
        "03-19 10:00"
    )
    assert parse_when("1小时后", now=now, tz=SHANGHAI).at.astimezone(SHANGHAI).strftime("%m-%d %H:%M") == (
        "03-19 00:50"
    )


def test_just_after_midnight_tomorrow_is_still_the_next_calendar_day():
    now = datetime(2026, 3, 19, 0, 10, tzinfo=SHANGHAI)
    assert parse_when("明天", now=now, tz=SHANGHAI).at.astimezone(SHANGHAI).strftime("%m-%d %H:%M") == "03-20 18:00"


def test_tonight_said_after_the_evening_is_returned_as_past():
    now = datetime(2026, 3, 18, 23, 50, tzinfo=SHANGHAI)
    found = parse_when("今晚给你", now=now, tz=SHANGHAI)
    assert found.at < now


def test_a_time_of_day_already_past_today_means_the_next_one():
    now = datetime(2026, 3, 18, 19, 0, tzinfo=SHANGHAI)
    assert parse_when("下班前给你", now=now, tz=SHANGHAI).at.astimezone(SHANGHAI).strftime("%m-%d %H:%M") == (
        "03-19 18:00"
    )
