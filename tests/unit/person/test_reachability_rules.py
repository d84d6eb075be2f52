"""The reachability model as a table: one situation per row, the answer's moment, means, hold and reasons."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from person.models import InteractionPolicy
from person.reachability.models import Busy, LastContact, Situation
from person.reachability.rules import hour_ranges, reach
from person.work_state import WorkState

SH = ZoneInfo("Asia/Shanghai")
NY = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # Wednesday 10:00 in Shanghai


def sh(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=SH).astimezone(UTC)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def situation(**overrides) -> Situation:
    fields = {"now": NOW, "priority": "P2", "kind": "follow_up", "policy": InteractionPolicy(), "tz": SH,
              "channels": ("feishu",)}  # fmt: skip
    policy = overrides.pop("policy", None)
    if policy is not None:
        fields["policy"] = InteractionPolicy.model_validate(policy)
    state = overrides.pop("work_state", None)
    if state is not None:
        fields["work_state"] = WorkState.model_validate(state)
    return Situation(**{**fields, **overrides})


AWAY_FRIDAY = {"status": "on_leave", "until": "2026-03-20T09:00:00+08:00"}
UNREAD = LastContact(channel="feishu")
# id: (situation overrides, expected next_at, channel, urgent, held_by, reason codes)
TABLE = {
    "free_now": ({}, NOW, "feishu", False, None, ["available"]),
    "quiet_hours_wait_for_morning": (
        {"now": sh(18, 23, 30)},
        sh(19, 8),
        "feishu",
        False,
        "quiet_hours",
        ["quiet_hours"],
    ),
    "p0_goes_through_quiet_hours": (
        {"now": sh(18, 23, 30), "priority": "P0"},
        sh(18, 23, 30),
        "feishu",
        False,
        None,
        ["available"],
    ),
    "pause_holds": (
        {"policy": {"paused_until": "2026-03-18T15:00:00+08:00"}},
        sh(18, 15),
        "feishu",
        False,
        "pause",
        ["paused"],
    ),
    "pause_ending_in_quiet_time": (
        {"policy": {"paused_until": "2026-03-18T23:30:00+08:00"}},
        sh(19, 8),
        "feishu",
        False,
        "pause",
        ["paused", "quiet_hours"],
    ),
    "p0_still_waits_for_a_pause": (
        {"priority": "P0", "policy": {"paused_until": "2026-03-18T15:00:00+08:00"}},
        sh(18, 15),
        "feishu",
        False,
        "pause",
        ["paused"],
    ),
    "cap_reached_waits_for_tomorrow_morning": (
        {"contacts_today": 5},
        sh(19, 8),
        "feishu",
        False,
        "cap",
        ["cap", "quiet_hours"],
    ),
    "cap_zero_never": ({"policy": {"max_proactive_contacts_per_day": 0}}, None, None, False, "cap", ["cap_zero"]),
    "proactive_off_never": ({"policy": {"allow_proactive_ping": False}}, None, None, False, "pause", ["proactive_off"]),
    "every_day_quiet_never": (
        {"policy": {"quiet_days": [1, 2, 3, 4, 5, 6, 7]}},
        None,
        None,
        False,
        "quiet_hours",
        ["quiet_always"],
    ),
    "on_leave_until_friday": ({"work_state": AWAY_FRIDAY}, sh(20, 9), "feishu", False, "away", ["leave_until"]),
    "away_open_ended": ({"work_state": {"status": "away"}}, None, None, False, "away", ["away_open"]),
    "leave_over_is_available": (
        {"work_state": {"status": "on_leave", "until": "2026-03-18T09:00:00+08:00"}},
        NOW,
        "feishu",
        False,
        None,
        ["available"],
    ),
    "p0_to_away_without_stand_in_goes_through": (
        {"priority": "P0", "kind": "question", "work_state": AWAY_FRIDAY},
        NOW,
        "feishu",
        False,
        None,
        ["away_p0"],
    ),
    "p0_to_away_with_stand_in_is_held": (
        {
            "priority": "P0",
            "kind": "question",
            "stand_in_name": "李四",
            "work_state": {**AWAY_FRIDAY, "stand_in_id": "p_lisi"},
        },
        sh(20, 9),
        "feishu",
        False,
        "away",
        ["stand_in", "leave_until"],
    ),
    "leave_ending_on_a_quiet_day": (
        {"work_state": AWAY_FRIDAY, "policy": {"quiet_days": [5]}},
        sh(21, 8),
        "feishu",
        False,
        "away",
        ["leave_until", "quiet_hours"],
    ),
    "p2_waits_for_a_meeting": (
        {"busy": (Busy(sh(18, 9), sh(18, 10, 30)),)},
        sh(18, 10, 30),
        "feishu",
        False,
        "busy",
        ["busy"],
    ),
    "back_to_back_meetings_run_together": (
        {"busy": (Busy(sh(18, 11), sh(18, 11, 30)), Busy(sh(18, 9), sh(18, 11)))},
        sh(18, 11, 30),
        "feishu",
        False,
        "busy",
        ["busy"],
    ),
    "p1_goes_through_a_meeting": (
        {"priority": "P1", "busy": (Busy(sh(18, 9), sh(18, 11)),)},
        NOW,
        "feishu",
        False,
        None,
        ["available"],
    ),
    "long_meeting_waits_at_most_two_hours": (
        {"busy": (Busy(sh(18, 9), sh(18, 17)),)},
        sh(18, 12),
        "feishu",
        False,
        "busy",
        ["busy_bounded"],
    ),
    "meeting_wait_stops_at_the_deadline": (
        {"busy": (Busy(sh(18, 9), sh(18, 11)),), "latest": sh(18, 10, 15)},
        sh(18, 10, 15),
        "feishu",
        False,
        "busy",
        ["busy_bounded"],
    ),
    "meeting_after_now_does_not_hold": (
        {"busy": (Busy(sh(18, 11), sh(18, 12)),)},
        NOW,
        "feishu",
        False,
        None,
        ["available"],
    ),
    "follow_up_moves_to_answering_hours": (
        {"answering_hours": frozenset({14, 15})},
        sh(18, 14),
        "feishu",
        False,
        None,
        ["answering_hours", "usually"],
    ),
    "answering_hour_past_escalation_is_not_used": (
        {"answering_hours": frozenset({14}), "latest": sh(18, 12)},
        NOW,
        "feishu",
        False,
        None,
        ["available", "usually"],
    ),
    "question_is_not_moved_to_answering_hours": (
        {"kind": "question", "answering_hours": frozenset({14})},
        NOW,
        "feishu",
        False,
        None,
        ["available", "usually"],
    ),
    "inside_answering_hours_now": (
        {"answering_hours": frozenset({10, 11})},
        NOW,
        "feishu",
        False,
        None,
        ["available", "usually"],
    ),
    "promise_is_waited_for": ({"promised_at": sh(18, 15)}, sh(18, 15), "feishu", False, None, ["promised"]),
    "l2_interval_comes_first": ({"earliest": sh(18, 11)}, sh(18, 11), "feishu", False, None, ["follow_up_due"]),
    "read_but_unanswered_is_gentle_and_plain": (
        {
            "priority": "P1",
            "channels": ("feishu", "telegram"),
            "urgent_modes": ("app",),
            "last_contact": LastContact("feishu", read_at=sh(18, 9, 2)),
        },
        NOW,
        "feishu",
        False,
        None,
        ["available", "read_unanswered"],
    ),
    "unread_p1_tries_the_other_channel": (
        {"priority": "P1", "channels": ("feishu", "telegram"), "last_contact": UNREAD},
        NOW,
        "telegram",
        False,
        None,
        ["available", "unread_other_channel"],
    ),
    "unread_p0_on_the_only_channel_is_urgent": (
        {"priority": "P0", "urgent_modes": ("app", "sms"), "last_contact": UNREAD},
        NOW,
        "feishu",
        True,
        None,
        ["available", "unread_urgent"],
    ),
    "unread_p1_urgent_off_stays_plain": (
        {"priority": "P1", "last_contact": UNREAD},
        NOW,
        "feishu",
        False,
        None,
        ["available", "unread"],
    ),
    "unread_p2_never_switches": (
        {"channels": ("feishu", "telegram"), "urgent_modes": ("app",), "last_contact": UNREAD},
        NOW,
        "feishu",
        False,
        None,
        ["available", "unread"],
    ),
    "telegram_tells_nothing_about_reads": (
        {
            "priority": "P1",
            "channels": ("telegram", "feishu"),
            "last_contact": LastContact("telegram", read_known=False),
        },
        NOW,
        "telegram",
        False,
        None,
        ["available"],
    ),
    "calendar_failure_never_blocks": (
        {"calendar": "failed"},
        NOW,
        "feishu",
        False,
        None,
        ["available", "calendar_unavailable"],
    ),
    "no_channel": ({"channels": ()}, None, None, False, None, ["no_channel"]),
    "deactivated_though_still_bound": ({"active": False}, None, None, False, None, ["deactivated"]),
    # DST: New York springs forward 2026-03-08 02:00 -> 03:00 and falls back 2026-11-01 02:00 -> 01:00.
    "quiet_end_in_the_spring_gap": (
        {"tz": NY, "now": utc(2026, 3, 8, 6), "policy": {"quiet_hours": [{"start": "22:00", "end": "02:30"}]}},
        utc(2026, 3, 8, 7, 30),
        "feishu",
        False,
        "quiet_hours",
        ["quiet_hours"],
    ),
    "morning_after_spring_forward": (
        {"tz": NY, "now": utc(2026, 3, 8, 4)},
        utc(2026, 3, 8, 12),
        "feishu",
        False,
        "quiet_hours",
        ["quiet_hours"],
    ),
    "morning_after_fall_back_in_the_repeated_hour": (
        {"tz": NY, "now": utc(2026, 11, 1, 5, 30)},
        utc(2026, 11, 1, 13),
        "feishu",
        False,
        "quiet_hours",
        ["quiet_hours"],
    ),
    "answering_hour_after_spring_forward": (
        {"tz": NY, "now": utc(2026, 3, 8, 1), "answering_hours": frozenset({9})},
        utc(2026, 3, 8, 13),
        "feishu",
        False,
        None,
        ["answering_hours", "usually"],
    ),
    "quiet_night_then_answering_hour_across_spring_forward": (
        {"tz": NY, "now": utc(2026, 3, 8, 4), "answering_hours": frozenset({9})},
        utc(2026, 3, 8, 13),
        "feishu",
        False,
        "quiet_hours",
        ["quiet_hours", "answering_hours", "usually"],
    ),
    "cap_on_the_25_hour_day": (
        {"tz": BERLIN, "now": utc(2026, 10, 25, 10), "contacts_today": 5},
        utc(2026, 10, 26, 7),
        "feishu",
        False,
        "cap",
        ["cap", "quiet_hours"],
    ),
}


@pytest.mark.parametrize("overrides,next_at,channel,urgent,held_by,codes", TABLE.values(), ids=TABLE.keys())
def test_reachability_table(overrides, next_at, channel, urgent, held_by, codes):
    s = situation(**overrides)
    answer = reach(s)
    assert (answer.next_at, answer.channel, answer.urgent, answer.held_by, answer.codes()) == (
        next_at, channel, urgent, held_by, codes)  # fmt: skip
    assert answer.now is (next_at == s.now)


def test_no_soft_move_ever_goes_past_latest():
    latest = NOW + timedelta(minutes=20)
    for overrides in ({"busy": (Busy(NOW, NOW + timedelta(hours=5)),)}, {"promised_at": NOW + timedelta(hours=3)},
                      {"answering_hours": frozenset({16})}):  # fmt: skip
        assert reach(situation(latest=latest, **overrides)).next_at <= latest


def test_answering_hours_read_as_ranges():
    assert hour_ranges(frozenset({10, 11, 15, 23})) == ((10, 12), (15, 16), (23, 24))
    assert reach(situation(answering_hours=frozenset({10, 11}))).answering_hours == ((10, 12),)
