"""When a loop escalates if each follow-up goes when due (`concern.rules.escalation_at`), pure: what no soft move of
a follow-up may pass."""

from datetime import UTC, datetime, timedelta

import pytest

from app.settings import Settings
from concern.rules import escalation_at

T0 = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
H, D = timedelta(hours=1), timedelta(days=1)
SCHEDULE = Settings(_env_file=None).follow_up_schedule  # P1 4h, 24h, 24h · P2 1d, 2d, 2d · P3 2d, 3d


@pytest.mark.parametrize(
    ("priority", "count", "expected"),
    [
        ("P2", 0, T0 + 1 * D + 2 * D + 2 * D),  # two follow-ups still to come, then the last wait
        ("P2", 1, T0 + 2 * D + 2 * D),
        ("P2", 2, T0 + 2 * D),  # no follow-up left: the last wait after the last contact
        ("P1", 0, T0 + 4 * H + 24 * H + 24 * H),
        ("P3", 0, T0 + 2 * D + 3 * D),
        ("P0", 1, T0 + H),
    ],
)
def test_the_escalation_comes_after_the_follow_ups_left_and_the_last_wait(priority, count, expected):
    assert escalation_at(priority=priority, schedule=SCHEDULE, follow_up_count=count, last_contact_at=T0) == expected


def test_a_deadline_brings_the_escalation_forward_to_it():
    at = escalation_at(
        priority="P2", schedule=SCHEDULE, follow_up_count=0, last_contact_at=T0, deadline=T0 + 30 * H,
        contacts=[T0], contact_limit=2, contact_window=24 * H,
    )  # fmt: skip
    assert at == T0 + 30 * H


def test_a_stretch_never_moves_the_escalation_later_than_the_plain_schedule():
    plain = escalation_at(priority="P1", schedule=SCHEDULE, follow_up_count=0, last_contact_at=T0, first_contact_at=T0)
    stretched = escalation_at(
        priority="P1", schedule=SCHEDULE, follow_up_count=0, last_contact_at=T0, first_contact_at=T0, stretch=3.0
    )
    assert stretched == plain == T0 + 52 * H
