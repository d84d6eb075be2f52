"""'Tomorrow': the next local 09:00, or the end of quiet hours then; across midnight and DST."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from person.models import InteractionPolicy
from person.rules import next_local, next_morning

SH, NY = ZoneInfo("Asia/Shanghai"), ZoneInfo("America/New_York")
NO_QUIET = InteractionPolicy(quiet_hours=[], quiet_days=[])


def test_the_next_nine_is_today_before_nine_and_tomorrow_after():
    assert next_local("09:00", SH, datetime(2026, 3, 18, 0, 30, tzinfo=UTC)) == datetime(2026, 3, 18, 1, tzinfo=UTC)
    assert next_local("09:00", SH, datetime(2026, 3, 18, 1, 0, tzinfo=UTC)) == datetime(2026, 3, 19, 1, tzinfo=UTC)
    assert next_local("09:00", SH, datetime(2026, 3, 18, 15, 59, tzinfo=UTC)) == datetime(2026, 3, 19, 1, tzinfo=UTC)


def test_the_morning_moves_to_the_end_of_quiet_hours_when_they_end_later():
    late_riser = InteractionPolicy(quiet_hours=[{"start": "22:00", "end": "10:30"}], quiet_days=[])
    now = datetime(2026, 3, 18, 4, tzinfo=UTC)  # Wednesday 12:00 in Shanghai
    assert next_morning(NO_QUIET, SH, now) == datetime(2026, 3, 19, 1, tzinfo=UTC)
    assert next_morning(late_riser, SH, now) == datetime(2026, 3, 19, 2, 30, tzinfo=UTC)
    weekend = InteractionPolicy(quiet_hours=[], quiet_days=[4, 5])  # Thursday and Friday are quiet
    assert next_morning(weekend, SH, now) == datetime(2026, 3, 20, 16, tzinfo=UTC)  # Saturday 00:00


def test_the_morning_after_the_autumn_dst_change_is_nine_local():
    sunday_evening = datetime(2026, 11, 1, 23, tzinfo=UTC)  # 18:00 EST, the day clocks went back
    assert next_morning(NO_QUIET, NY, sunday_evening) == datetime(2026, 11, 2, 14, tzinfo=UTC)
    saturday_evening = datetime(2026, 10, 31, 22, tzinfo=UTC)  # 18:00 EDT
    assert next_morning(NO_QUIET, NY, saturday_evening) == datetime(2026, 11, 1, 14, tzinfo=UTC)  # 09:00 EST
