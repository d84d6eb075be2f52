"""L1 Person.interaction_policy, evaluated on snapshots without a database."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from action.models import ActionType
from action.rules import Limits, Snapshot, evaluate, layer1_person_policy
from person.models import InteractionPolicy

SHANGHAI = ZoneInfo("Asia/Shanghai")
NEW_YORK = ZoneInfo("America/New_York")


def snap(now, *, tz=SHANGHAI, priority="P2", today=0, action=ActionType.notify, reactive=False, **policy):
    return Snapshot(
        action_type=action,
        now=now,
        priority=priority,
        reactive=reactive,
        policy=InteractionPolicy(**policy),
        tz=tz,
        proactive_today=today,
        limits=Limits(),
    )


def local(tz, *args):
    return datetime(*args, tzinfo=tz).astimezone(UTC)


def test_proactive_disabled_blocks_even_p0():
    v = layer1_person_policy(snap(local(SHANGHAI, 2026, 3, 18, 10), priority="P0", allow_proactive_ping=False))
    assert v.blocked_by == "L1:proactive_disabled"
    assert v.not_before is None


def test_paused_blocks_until_the_pause_ends_even_for_p0():
    until = local(SHANGHAI, 2026, 3, 20, 9)
    v = layer1_person_policy(snap(local(SHANGHAI, 2026, 3, 18, 10), priority="P0", paused_until=until))
    assert (v.blocked_by, v.not_before) == ("L1:paused", until)


def test_pause_that_has_ended_allows_contact():
    now = local(SHANGHAI, 2026, 3, 18, 10)
    assert layer1_person_policy(snap(now, paused_until=now - timedelta(seconds=1))).allowed


@pytest.mark.parametrize(
    ("hour", "minute", "quiet"),
    [(22, 59, False), (23, 0, True), (23, 59, True), (0, 0, True), (7, 59, True), (8, 0, False), (12, 0, False)],
)
def test_default_quiet_hours_cross_midnight(hour, minute, quiet):
    day = 19 if hour < 12 else 18
    v = layer1_person_policy(snap(local(SHANGHAI, 2026, 3, day, hour, minute)))
    assert (v.blocked_by == "L1:quiet_hours") is quiet


def test_quiet_hours_block_ends_at_the_end_of_the_window():
    v = layer1_person_policy(snap(local(SHANGHAI, 2026, 3, 18, 23, 30)))
    assert v.not_before == local(SHANGHAI, 2026, 3, 19, 8, 0)


@pytest.mark.parametrize(("hour", "quiet"), [(21, False), (22, True), (3, True), (6, True), (7, False)])
def test_window_22_to_07(hour, quiet):
    v = layer1_person_policy(
        snap(local(SHANGHAI, 2026, 3, 18, hour, 0), quiet_hours=[{"start": "22:00", "end": "07:00"}])
    )
    assert (not v.allowed) is quiet


def test_p0_is_exempt_from_quiet_hours_only():
    now = local(SHANGHAI, 2026, 3, 18, 23, 30)
    assert layer1_person_policy(snap(now, priority="P0")).allowed
    assert layer1_person_policy(snap(now, priority="P0", today=5)).blocked_by == "L1:daily_cap"


def test_quiet_day_blocks_the_whole_local_day_and_ends_at_local_midnight():
    saturday_noon = local(SHANGHAI, 2026, 3, 21, 12)
    v = layer1_person_policy(snap(saturday_noon, quiet_days=[6], quiet_hours=[]))
    assert v.blocked_by == "L1:quiet_hours"
    assert v.not_before == local(SHANGHAI, 2026, 3, 22, 0, 0)


def test_quiet_days_and_nights_chain_to_the_first_free_moment():
    friday_night = local(SHANGHAI, 2026, 3, 20, 23, 30)
    v = layer1_person_policy(snap(friday_night, quiet_days=[6, 7]))
    assert v.not_before == local(SHANGHAI, 2026, 3, 23, 8, 0)  # Monday 08:00


def test_every_day_quiet_has_no_allowed_moment():
    v = layer1_person_policy(snap(local(SHANGHAI, 2026, 3, 18, 12), quiet_days=[1, 2, 3, 4, 5, 6, 7]))
    assert v.blocked_by == "L1:quiet_hours" and v.not_before is None


def test_cap_of_zero_blocks_the_first_proactive_contact():
    v = layer1_person_policy(snap(local(SHANGHAI, 2026, 3, 18, 10), max_proactive_contacts_per_day=0))
    assert v.blocked_by == "L1:daily_cap"


def test_daily_cap_blocks_at_the_cap_and_reopens_at_local_midnight():
    now = local(SHANGHAI, 2026, 3, 18, 10)
    assert layer1_person_policy(snap(now, today=4)).allowed
    v = layer1_person_policy(snap(now, today=5))
    assert (v.blocked_by, v.not_before) == ("L1:daily_cap", local(SHANGHAI, 2026, 3, 19, 0, 0))


def test_new_york_quiet_hours_follow_the_spring_forward_on_2026_03_08():
    # 07:30 EDT on 2026-03-08 is 11:30 UTC; the day before, 07:30 EST was 12:30 UTC.
    before_end = datetime(2026, 3, 8, 11, 30, tzinfo=UTC)
    v = layer1_person_policy(snap(before_end, tz=NEW_YORK))
    assert v.blocked_by == "L1:quiet_hours"
    assert v.not_before == datetime(2026, 3, 8, 12, 0, tzinfo=UTC)  # 08:00 EDT
    assert layer1_person_policy(snap(datetime(2026, 3, 8, 12, 0, tzinfo=UTC), tz=NEW_YORK)).allowed


def test_new_york_quiet_hours_follow_the_fall_back_on_2026_11_01():
    # 08:00 EST on 2026-11-01 is 13:00 UTC; 12:30 UTC is 07:30 EST (still quiet).
    v = layer1_person_policy(snap(datetime(2026, 11, 1, 12, 30, tzinfo=UTC), tz=NEW_YORK))
    assert v.not_before == datetime(2026, 11, 1, 13, 0, tzinfo=UTC)


def test_daily_cap_day_is_25_hours_long_when_new_york_falls_back():
    # Local day 2026-11-01 runs from 04:00 UTC to 05:00 UTC next day.
    v = layer1_person_policy(snap(datetime(2026, 11, 1, 20, 0, tzinfo=UTC), tz=NEW_YORK, today=5))
    assert v.not_before == datetime(2026, 11, 2, 5, 0, tzinfo=UTC)


def test_daily_cap_day_is_23_hours_long_when_new_york_springs_forward():
    v = layer1_person_policy(snap(datetime(2026, 3, 8, 20, 0, tzinfo=UTC), tz=NEW_YORK, today=5))
    assert v.not_before == datetime(2026, 3, 9, 4, 0, tzinfo=UTC)


def test_reactive_notify_skips_l1_entirely():
    now = local(SHANGHAI, 2026, 3, 18, 23, 30)
    s = snap(now, reactive=True, allow_proactive_ping=False, max_proactive_contacts_per_day=0)
    assert evaluate(s).allowed


@pytest.mark.parametrize("action", [ActionType.send_message, ActionType.escalate, ActionType.backflow])
def test_l1_applies_to_every_person_facing_type(action):
    v = evaluate(snap(local(SHANGHAI, 2026, 3, 18, 10), action=action, allow_proactive_ping=False))
    assert v.blocked_by == "L1:proactive_disabled"


@pytest.mark.parametrize("action", [ActionType.query, ActionType.internal_update])
def test_l1_does_not_apply_to_internal_types(action):
    assert evaluate(snap(local(SHANGHAI, 2026, 3, 18, 10), action=action, allow_proactive_ping=False)).allowed


def solicited(now, **kw):
    return Snapshot(**{**snap(now, **kw).__dict__, "solicited": True})


def test_a_cap_of_zero_has_no_moment_to_retry():
    v = layer1_person_policy(snap(local(SHANGHAI, 2026, 3, 18, 10), max_proactive_contacts_per_day=0))
    assert v.blocked_by == "L1:daily_cap" and v.not_before is None


def test_a_solicited_delivery_is_not_held_back_by_the_cap():
    now = local(SHANGHAI, 2026, 3, 18, 10)
    assert layer1_person_policy(solicited(now, today=5)).allowed
    assert layer1_person_policy(solicited(now, max_proactive_contacts_per_day=0)).allowed


def test_a_solicited_delivery_reaches_someone_who_turned_proactive_contact_off():
    assert layer1_person_policy(solicited(local(SHANGHAI, 2026, 3, 18, 10), allow_proactive_ping=False)).allowed


def test_a_solicited_delivery_still_waits_for_quiet_hours_and_pause():
    night = layer1_person_policy(solicited(local(SHANGHAI, 2026, 3, 18, 23, 30)))
    assert (night.blocked_by, night.not_before) == ("L1:quiet_hours", local(SHANGHAI, 2026, 3, 19, 8, 0))
    until = local(SHANGHAI, 2026, 3, 20, 9)
    paused = layer1_person_policy(solicited(local(SHANGHAI, 2026, 3, 18, 10), paused_until=until))
    assert (paused.blocked_by, paused.not_before) == ("L1:paused", until)


def test_a_p0_solicited_delivery_passes_quiet_hours():
    assert layer1_person_policy(solicited(local(SHANGHAI, 2026, 3, 18, 23, 30), priority="P0")).allowed
