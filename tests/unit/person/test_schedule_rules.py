"""When the daily brief and the weekly review are due, in the person's timezone (DST included)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from person.models import InteractionPolicy, QuietWindow
from person.schedule_rules import brief_moment, due_brief_day, due_review_week, next_brief_at

NY = ZoneInfo("America/New_York")
SH = ZoneInfo("Asia/Shanghai")


def test_brief_is_at_local_nine_on_both_sides_of_the_november_dst_change():
    policy = InteractionPolicy()
    assert brief_moment(policy, NY, date(2026, 10, 31)) == datetime(2026, 10, 31, 13, 0, tzinfo=UTC)  # EDT
    assert brief_moment(policy, NY, date(2026, 11, 1)) == datetime(2026, 11, 1, 14, 0, tzinfo=UTC)  # EST
    assert brief_moment(policy, NY, date(2026, 11, 2)) == datetime(2026, 11, 2, 14, 0, tzinfo=UTC)


def test_next_brief_at_is_the_next_local_brief_time():
    policy = InteractionPolicy(daily_brief_at="08:30", quiet_hours=[])
    now = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # 10:00 Shanghai: today's is past
    assert next_brief_at(policy, SH, now) == datetime(2026, 3, 19, 0, 30, tzinfo=UTC)
    assert next_brief_at(policy, SH, datetime(2026, 3, 18, 0, 30, tzinfo=UTC)) == datetime(
        2026, 3, 18, 0, 30, tzinfo=UTC
    )


def test_null_brief_time_turns_the_brief_off():
    policy = InteractionPolicy(daily_brief_at=None)
    now = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
    assert next_brief_at(policy, SH, now) is None
    assert due_brief_day(policy, SH, now) is None


def test_brief_time_inside_quiet_hours_moves_to_their_end():
    policy = InteractionPolicy(daily_brief_at="07:00", quiet_hours=[QuietWindow(start="23:00", end="08:00")])
    assert brief_moment(policy, SH, date(2026, 3, 18)) == datetime(2026, 3, 18, 0, 0, tzinfo=UTC)  # 08:00 local
    assert due_brief_day(policy, SH, datetime(2026, 3, 17, 23, 30, tzinfo=UTC)) is None  # 07:30 local: still quiet


def test_a_late_evening_brief_pushed_past_midnight_is_yesterdays():
    policy = InteractionPolicy(daily_brief_at="23:30", quiet_hours=[QuietWindow(start="23:00", end="08:00")])
    morning = datetime(2026, 3, 19, 0, 5, tzinfo=UTC)  # 08:05 local on the 19th
    assert due_brief_day(policy, SH, morning) == (date(2026, 3, 18), datetime(2026, 3, 19, 0, 0, tzinfo=UTC))


def test_a_brief_is_due_for_the_rest_of_its_day():
    policy = InteractionPolicy(quiet_hours=[])
    assert due_brief_day(policy, SH, datetime(2026, 3, 17, 15, 59, tzinfo=UTC)) == (  # 23:59 local
        date(2026, 3, 17),
        datetime(2026, 3, 17, 1, 0, tzinfo=UTC),
    )
    assert due_brief_day(policy, SH, datetime(2026, 3, 18, 1, 0, tzinfo=UTC))[0] == date(2026, 3, 18)


def test_a_brief_missed_on_its_day_is_not_sent_the_next_day_beside_that_days_own():
    policy = InteractionPolicy(daily_brief_at="23:30", quiet_hours=[])
    assert due_brief_day(policy, NY, datetime(2026, 6, 4, 6, 30, tzinfo=UTC)) is None  # 02:30 local, 3 June's missed
    assert due_brief_day(policy, NY, datetime(2026, 6, 5, 3, 30, tzinfo=UTC)) == (  # 23:30 local: 4 June's own
        date(2026, 6, 4),
        datetime(2026, 6, 5, 3, 30, tzinfo=UTC),
    )
    morning = InteractionPolicy(quiet_hours=[])  # 09:00: missed yesterday, it is not sent at 08:59 before today's
    assert due_brief_day(morning, SH, datetime(2026, 3, 18, 0, 59, tzinfo=UTC)) is None


def test_a_pause_moves_the_brief_to_its_end():
    policy = InteractionPolicy(paused_until=datetime(2026, 3, 18, 4, 0, tzinfo=UTC), quiet_hours=[])
    assert brief_moment(policy, SH, date(2026, 3, 18)) == datetime(2026, 3, 18, 4, 0, tzinfo=UTC)


def test_weekly_review_due_on_its_weekday_in_local_time():
    policy = InteractionPolicy(weekly_review_at="MON 09:00", quiet_hours=[])
    monday_nine_ny = datetime(2026, 11, 2, 14, 0, tzinfo=UTC)  # the Monday after the DST change, EST
    assert due_review_week(policy, NY, monday_nine_ny) == (date(2026, 11, 2), monday_nine_ny)
    assert due_review_week(policy, NY, datetime(2026, 11, 2, 13, 59, tzinfo=UTC))[0] == date(2026, 10, 26)
    assert due_review_week(InteractionPolicy(), NY, monday_nine_ny) is None
