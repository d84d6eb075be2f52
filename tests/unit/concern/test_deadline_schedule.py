"""Follow-ups tighten as a deadline nears, within L3 (two contacts per concern per rolling 24 h). Pure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.settings import Settings
from concern.deadlines import LAST_CALL
from concern.rules import next_step

T0 = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
H = timedelta(hours=1)
M = timedelta(minutes=1)
SCHEDULE = Settings(_env_file=None).follow_up_schedule
WINDOW = timedelta(hours=24)
LIMIT = 2


def plan(priority: str, deadline: datetime, *, limit: int = LIMIT, window: timedelta = WINDOW):
    """Run the loop with nobody answering: every step taken when due; [(kind, at)] up to the escalation."""
    contacts, steps, now = [T0], [], T0
    for count in range(20):
        step = next_step(
            priority=priority,
            schedule=SCHEDULE,
            contacted=True,
            follow_up_count=count,
            last_contact_at=contacts[-1],
            deadline=deadline,
            now=now,
            contacts=contacts,
            contact_limit=limit,
            contact_window=window,
        )
        steps.append((step.kind, step.at))
        now = max(now, step.at)
        if step.kind == "escalate":
            return steps, contacts
        contacts.append(now)
    raise AssertionError("never escalates")


def plain(priority: str):
    steps, _ = plan(priority, T0 + timedelta(days=365))
    return steps


@pytest.mark.parametrize("priority", ["P0", "P1", "P2", "P3"])
def test_a_deadline_far_away_leaves_the_schedule_alone(priority):
    steps, _ = plan(priority, T0 + timedelta(days=30))
    assert steps == plain(priority)


def test_a_deadline_in_three_hours_at_p2_saves_the_one_allowed_follow_up_for_half_an_hour_before_it():
    steps, _ = plan("P2", T0 + 3 * H)
    assert steps == [("follow_up", T0 + 3 * H - LAST_CALL), ("escalate", T0 + 3 * H)]


def test_a_deadline_in_ten_hours_at_p1_follows_up_once_then_escalates_at_the_deadline():
    steps, _ = plan("P1", T0 + 10 * H)
    assert steps == [("follow_up", T0 + 10 * H - LAST_CALL), ("escalate", T0 + 10 * H)]


def test_a_deadline_in_three_days_at_p2_keeps_the_first_follow_up_and_moves_the_second_closer():
    deadline = T0 + 72 * H
    steps, _ = plan("P2", deadline)
    assert steps == [("follow_up", T0 + 24 * H), ("follow_up", deadline - LAST_CALL), ("escalate", deadline)]


def test_a_deadline_within_half_an_hour_escalates_at_the_deadline_without_a_follow_up():
    steps, _ = plan("P1", T0 + 20 * M)
    assert steps == [("escalate", T0 + 20 * M)]


def test_a_deadline_already_past_escalates_at_once():
    steps, _ = plan("P2", T0 - H)
    assert steps[0][0] == "escalate" and steps[0][1] <= T0


def test_p0_with_a_deadline_in_ninety_minutes_follows_up_at_the_hour_and_escalates_at_the_deadline():
    steps, _ = plan("P0", T0 + 90 * M)
    assert steps == [("follow_up", T0 + H), ("escalate", T0 + 90 * M)]


def test_a_limit_of_one_contact_a_day_leaves_no_follow_up_before_a_near_deadline():
    steps, _ = plan("P1", T0 + 6 * H, limit=1)
    assert steps == [("escalate", T0 + 6 * H)]


@pytest.mark.parametrize("priority", ["P0", "P1", "P2", "P3"])
@pytest.mark.parametrize("hours", [0.25, 0.5, 1, 1.5, 2, 3, 5, 8, 12, 23, 24, 25, 30, 47, 49, 60, 72, 100, 130, 200])
def test_tightening_never_breaks_l3_escalates_by_the_deadline_and_the_last_follow_up_is_near_it(priority, hours):
    deadline = T0 + timedelta(hours=hours)
    steps, contacts = plan(priority, deadline)
    kind, escalation = steps[-1]
    assert kind == "escalate" and escalation <= deadline
    for t in contacts:  # never more than the limit in any rolling window
        assert sum(1 for u in contacts if t - WINDOW < u <= t) <= LIMIT
    follow_ups = [at for k, at in steps if k == "follow_up"]
    assert all(at <= deadline - LAST_CALL for at in follow_ups)
    fits = T0 + sum(SCHEDULE[priority], timedelta(0)) <= deadline
    if follow_ups and not fits:
        assert follow_ups[-1] == deadline - LAST_CALL or follow_ups[-1] <= plain(priority)[len(follow_ups) - 1][1]
