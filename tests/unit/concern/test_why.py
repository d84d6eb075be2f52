"""The words of "why this?" and "too many", pure: who asked, when (the reader's clock), which follow-up, what next."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from concern.texts.why import Why, explain, fewer

NOW = datetime(2026, 3, 18, 8, 0, tzinfo=UTC)  # 16:00 in Shanghai
ASKED = NOW - timedelta(hours=4)
SHANGHAI, NEW_YORK = ZoneInfo("Asia/Shanghai"), ZoneInfo("America/New_York")


def _why(**values):
    return Why(**{"kind": "follow_up", "asker": "老板", "asked_at": ASKED, "text": "提测什么时候能给？", **values})


def test_a_follow_up_names_who_asked_when_its_number_and_the_next_reminder():
    why = _why(number=2, next_kind="follow_up", next_at=NOW + timedelta(hours=24))
    assert explain(why, "zh", tz=SHANGHAI, now=NOW) == (
        "老板在 今天 12:00 请我问你：“提测什么时候能给？”，这是第2次跟进。还没回复的话，下一次提醒在 明天 16:00。"
    )


def test_the_times_are_the_readers_own():
    why = _why(number=1, next_kind="follow_up", next_at=NOW + timedelta(hours=24))
    assert explain(why, "en", tz=NEW_YORK, now=NOW) == (
        "老板 asked me today 00:00 to ask you: “提测什么时候能给？”. This is follow-up 1. If there's no answer, "
        "the next reminder comes tomorrow 04:00."  # New York is 12 hours behind Shanghai in March
    )


def test_the_last_follow_up_says_no_more_reminders_and_who_would_be_asked_and_when():
    why = _why(number=2, next_kind="escalation", next_at=NOW + timedelta(hours=24), manager="王五")
    assert explain(why, "zh", tz=SHANGHAI, now=NOW).endswith(
        "之后不会再提醒你；到 明天 16:00 还没有回复的话，会请王五跟进。"
    )


def test_without_a_next_step_or_once_closed_it_says_nothing_more_comes():
    assert explain(_why(number=1), "zh", tz=SHANGHAI, now=NOW).endswith("之后不会再为这件事提醒你。")
    assert explain(_why(number=1, closed=True), "en", tz=SHANGHAI, now=NOW).endswith(
        "This is closed now; no more reminders will come."
    )


def test_a_long_question_is_quoted_short():
    text = explain(_why(kind="question", text="很长的问题" * 30), "zh", tz=SHANGHAI, now=NOW)
    assert "…”" in text and len(text) < 120


def test_too_many_says_what_changed_and_whose_brief_mentions_it():
    assert fewer("max_proactive_contacts_per_day", 2, "zh", told="老板") == (
        "好的，以后每天最多给你发 2 条主动消息。我会在老板的简报里说一声。"
    )
    assert fewer("follow_up_stretch", 2.25, "en", told=None) == (
        "OK, I'll wait longer between reminders from now on (2.25× the usual gap)."
    )
    assert "/pause 3d" in fewer(None, None, "zh")
