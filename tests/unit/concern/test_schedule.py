"""The follow-up schedule and the concern state machine, pure."""

from datetime import UTC, datetime, timedelta

import pytest

from app.settings import Settings
from concern.rules import can_transition, next_step
from concern.texts import messages

T0 = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
H = timedelta(hours=1)
SCHEDULE = Settings(_env_file=None).follow_up_schedule


def step(priority, count, *, contacted=True, deadline=None):
    return next_step(
        priority=priority,
        schedule=SCHEDULE,
        contacted=contacted,
        follow_up_count=count,
        last_contact_at=T0 if contacted else None,
        deadline=deadline,
        now=T0,
    )


@pytest.mark.parametrize(
    ("priority", "expected"),
    [
        ("P0", [("follow_up", 1), ("escalate", 1)]),
        ("P1", [("follow_up", 4), ("follow_up", 24), ("escalate", 24)]),
        ("P2", [("follow_up", 24), ("follow_up", 48), ("escalate", 48)]),
        ("P3", [("follow_up", 48), ("escalate", 72)]),
    ],
)
def test_default_schedule_per_priority(priority, expected):
    got = [(s.kind, (s.at - T0) / H) for s in (step(priority, n) for n in range(len(expected)))]
    assert got == expected


def test_an_unasked_question_is_due_now():
    assert step("P1", 0, contacted=False) == next_step(
        priority="P1",
        schedule=SCHEDULE,
        contacted=False,
        follow_up_count=0,
        last_contact_at=None,
        deadline=None,
        now=T0,
    )
    assert step("P1", 0, contacted=False).kind == "question"


def test_an_earlier_deadline_brings_escalation_forward():
    s = step("P2", 0, deadline=T0 + 2 * H)
    assert (s.kind, s.at) == ("escalate", T0 + 2 * H)


@pytest.mark.parametrize(
    ("a", "b", "ok"),
    [
        ("waiting_reply", "resolved", True),
        ("waiting_reply", "escalated", True),
        ("escalated", "resolved", True),
        ("escalated", "waiting_reply", False),
        ("resolved", "waiting_reply", False),
        ("cancelled", "resolved", False),
    ],
)
def test_state_machine(a, b, ok):
    assert can_transition(a, b) is ok


def test_follow_up_text_says_what_since_when_and_what_to_do():
    text = messages.follow_up(
        "老板", "提测什么时候能给？", T0, T0 + 26 * H, __import__("zoneinfo").ZoneInfo("Asia/Shanghai"), "zh"
    )
    assert "提测什么时候能给？" in text and "03-18 10:00" in text and "1天2小时" in text and "稍后 2小时" in text


def test_durations_read_naturally():
    assert messages.duration(timedelta(minutes=135), "zh") == "2小时15分钟"
    assert messages.duration(timedelta(minutes=135), "en") == "2h 15m"
    assert messages.duration(timedelta(seconds=5), "en") == "under a minute"
