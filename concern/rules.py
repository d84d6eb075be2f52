"""Pure concern rules: what is due next and when (the follow-up schedule), and allowed transitions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from concern.deadlines import tightened

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
    contacts: Sequence[datetime] | None = None,
    contact_limit: int = 2,
    contact_window: timedelta = timedelta(hours=24),
) -> Step:
    """Where a waiting concern stands on its schedule.

    The waits of a priority are the gaps before each follow-up; the last one is the gap before
    escalating. A deadline that comes earlier brings the escalation forward; given the concern's `contacts`,
    the follow-ups L3 still allows move closer to it too (concern.deadlines).
    """
    waits = schedule[priority]
    if not contacted or last_contact_at is None:
        step = Step("question", now)
    elif follow_up_count < len(waits) - 1:
        step = Step("follow_up", last_contact_at + waits[follow_up_count])
    else:
        step = Step("escalate", last_contact_at + waits[-1])
    if deadline is not None and contacted and contacts is not None and last_contact_at is not None:
        kind, at = tightened(
            kind=step.kind,
            at=step.at,
            waits=waits,
            follow_up_count=follow_up_count,
            last_contact_at=last_contact_at,
            deadline=deadline,
            contacts=contacts,
            limit=contact_limit,
            window=contact_window,
            now=now,
        )
        return Step(kind, at)
    if deadline is not None and contacted and deadline < step.at:
        return Step("escalate", deadline)
    return step
