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
    stretch: float = 1.0,
    first_contact_at: datetime | None = None,
) -> Step:
    """Where a waiting concern stands on its schedule.

    The waits of a priority are the gaps before each follow-up; the last one is the gap before
    escalating. The person's `stretch` (interaction_policy.follow_up_stretch) lengthens the follow-up waits but
    never moves the escalation (`stretched`). A deadline that comes earlier brings the escalation forward; given
    the concern's `contacts`, the follow-ups L3 still allows move closer to it too (concern.deadlines).
    """
    waits = schedule[priority]
    if not contacted or last_contact_at is None:
        step = Step("question", now)
    elif follow_up_count < len(waits) - 1:
        step = stretched(
            waits, follow_up_count, stretch=stretch, first=first_contact_at or last_contact_at, last=last_contact_at
        )
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
        step = Step(kind, at)
    if deadline is not None and contacted and deadline < step.at:
        return Step("escalate", deadline)
    return step


def stretched(
    waits: Sequence[timedelta], follow_up_count: int, *, stretch: float, first: datetime, last: datetime
) -> Step:
    """The next follow-up with the waits multiplied by `stretch`, or the escalation where the plain one would be.

    A longer wait is never shorter than the schedule's (L2's spacing holds). The escalation stays where the plain
    schedule puts it, counted from the first contact (and never sooner than the last wait after the last contact):
    the person asked for fewer reminders, not for their manager to hear later. A stretched follow-up that would not
    leave the last wait before that moment is not sent; the loop escalates then instead.
    """
    plain = Step("follow_up", last + waits[follow_up_count])
    if stretch <= 1.0:
        return plain
    at = last + waits[follow_up_count] * stretch
    escalation = max(first + sum(waits, timedelta(0)), last + waits[-1])
    return Step("follow_up", at) if at + waits[-1] <= escalation else Step("escalate", escalation)


def escalation_at(
    *,
    priority: str,
    schedule: dict[str, list[timedelta]],
    follow_up_count: int,
    last_contact_at: datetime,
    deadline: datetime | None = None,
    **rest,
) -> datetime:
    """When a contacted loop escalates if each of its follow-ups goes when it falls due: `next_step`, taken step by
    step (`rest`: its contacts, L3 limits, stretch and first contact). No soft move goes past it."""
    count, last = follow_up_count, last_contact_at
    contacts = rest.pop("contacts", None)
    contacts = list(contacts) if contacts is not None else None
    for _ in range(len(schedule[priority]) + 2 * rest.get("contact_limit", 2) + 1):  # follow-ups are finite
        step = next_step(
            priority=priority, schedule=schedule, contacted=True, follow_up_count=count, last_contact_at=last,
            deadline=deadline, now=last, contacts=contacts, **rest,
        )  # fmt: skip
        if step.kind != "follow_up":
            return step.at
        count, last = count + 1, step.at
        if contacts is not None:
            contacts.append(step.at)
    return last
