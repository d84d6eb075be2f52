"""SPEC §3.5 held_until / held_by: which refusals are holds, and the earliest of a loop's held deliveries."""

from __future__ import annotations

from datetime import UTC, datetime

from concern.holds import held, held_by

MIDNIGHT = datetime(2026, 3, 18, 16, 0, tzinfo=UTC)
MORNING = datetime(2026, 3, 19, 0, 0, tzinfo=UTC)


def _deferred(at: datetime, code: str) -> dict:
    return {"purpose": "backflow", "request": {}, "not_before": at.isoformat(), "blocked_by": code}


def test_quiet_hours_a_pause_and_the_cap_are_holds_and_other_refusals_are_not():
    assert [held_by(c) for c in ("L1:quiet_hours", "L1:paused", "L1:daily_cap")] == ["quiet_hours", "pause", "cap"]
    assert held_by("L2:follow_up_interval") is None and held_by("L4:cooldown") is None and held_by(None) is None


def test_a_loop_holds_nothing_without_a_held_step_or_a_deferred_delivery():
    assert held(MIDNIGHT, None, []) == (None, None)  # an ordinary next step is no hold


def test_the_earliest_hold_wins_whether_the_loops_own_step_or_a_deferred_delivery():
    assert held(MORNING, "cap", [_deferred(MIDNIGHT, "L1:quiet_hours")]) == (MIDNIGHT, "quiet_hours")
    assert held(MIDNIGHT, "cap", [_deferred(MORNING, "L1:quiet_hours")]) == (MIDNIGHT, "cap")
    assert held(None, "cap", [_deferred(MORNING, "L4:cooldown")]) == (MORNING, None)
