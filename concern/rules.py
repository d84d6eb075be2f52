"""Pure concern rules: what is due next and when (the follow-up schedule), and allowed transitions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

TRANSITIONS = {
    "waiting_reply": {"resolved", "escalated", "cancelled", "expired"},
    "escalated": {"resolved", "cancelled", "expired"},
    "resolved": set(),
    "cancelled": set(),
    "expired": set(),
}


def can_transition(current: str, new: str) -> bool:
    """True when the state machine of SPEC §3.5 allows `current` → `new`."""
    return new in TRANSITIONS.get(current, set())


@dataclass(frozen=True)
class Step:
    """The next thing a waiting concern needs: `question`, `follow_up` or `escalate`, at `at`."""

    kind: str
    at: datetime


def next_step(
    *,
    priority: str,
    schedule: dict[str, list[timedelta]],
    contacted: bool,
    follow_up_count: int,
    last_contact_at: datetime | None,
    deadline: datetime | None,
    now: datetime,
) -> Step:
    """Where a waiting concern stands on its schedule.

    The waits of a priority are the gaps before each follow-up; the last one is the gap before
    escalating. A deadline that comes earlier brings the escalation forward.
    """
    waits = schedule[priority]
    if not contacted or last_contact_at is None:
        step = Step("question", now)
    elif follow_up_count < len(waits) - 1:
        step = Step("follow_up", last_contact_at + waits[follow_up_count])
    else:
        step = Step("escalate", last_contact_at + waits[-1])
    if deadline is not None and contacted and deadline < step.at:
        return Step("escalate", deadline)
    return step
