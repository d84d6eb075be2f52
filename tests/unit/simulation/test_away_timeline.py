"""The simulation's away check: a proactive contact below P0 while someone is away is a violation; P0 is not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from tests.simulation.away import AwayTimeline

T0 = datetime(2026, 3, 18, 4, 0, tzinfo=UTC)


def _fact(at, state):
    return SimpleNamespace(
        fact_type="person_changed", timestamp=at, content={"person_id": "p_zs", "after": {"work_state": state}}
    )


def _row(at, priority="P2", **kw):
    values = {"action_id": "act_1", "action_type": "send_message", "priority": priority, "proactive": True,
              "solicited": False, "request_key": "k", "concern_id": "con_1", "target_person_id": "p_zs",
              "created_at": at} | kw  # fmt: skip
    return (None, SimpleNamespace(**values))


def test_a_contact_below_p0_while_away_is_a_violation_and_a_p0_or_one_after_the_return_is_not():
    timeline = AwayTimeline()
    timeline.remember(_fact(T0, {"status": "on_leave", "until": (T0 + timedelta(hours=5)).isoformat()}))
    rows = [_row(T0 + timedelta(hours=1)), _row(T0 + timedelta(hours=1), "P0"), _row(T0 + timedelta(hours=6))]
    assert len(timeline.violations(rows, {})) == 1
    assert timeline.violations([_row(T0 + timedelta(hours=1), solicited=True)], {}) == []
    assert timeline.violations([_row(T0 + timedelta(hours=1))], {"con_1": "reminder"}) == []
    timeline.remember(_fact(T0 + timedelta(minutes=30), {"status": "available"}))
    assert timeline.violations([_row(T0 + timedelta(hours=1))], {}) == []
