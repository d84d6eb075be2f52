"""A waiting loop's next step as its timer takes it: the priority's schedule, the deadline, L3's room, and the
follow-up stretch of the person it waits on (`interaction_policy.follow_up_stretch`).

The timers set the loop's timer from it; the brief and the recipient's "why this?" read it, so all three say the
same thing about what comes next.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from action.ledger import contact_times, contacts
from concern.kinds import promises
from concern.models import Concern
from concern.rules import Step, escalation_at, next_step
from kernel.context import UnitOfWork
from person import service as persons


def stretch_of(uow: UnitOfWork, person_id: str) -> float:
    """How much longer than the schedule this person's follow-ups wait (1.0 for someone unknown)."""
    person = persons.get(uow, person_id=person_id)
    return persons.policy_of(person).follow_up_stretch if person is not None else 1.0


def _l3(uow: UnitOfWork, concern: Concern) -> dict[str, Any]:
    """What a deadline's tightened schedule reads: the concern's contacts and L3's limit (none without a deadline)."""
    if concern.deadline is None:
        return {}
    return {
        "contacts": contacts(uow, concern_id=concern.concern_id, person_id=concern.target_person_id),
        "contact_limit": uow.settings.concern_contact_limit,
        "contact_window": uow.settings.concern_contact_window,
    }


def _first(uow: UnitOfWork, concern: Concern, first: datetime | None) -> datetime | None:
    """Where the plain escalation is counted from: the first contact, or for a promise its first check-in."""
    if concern.kind != "commitment" or concern.due_at is None:
        return first
    times = contacts(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
    return min((t for t in times if t >= concern.due_at), default=first)


def _inputs(uow: UnitOfWork, concern: Concern, *, follow_up_count: int | None, after_contact: bool) -> dict[str, Any]:
    """What `next_step` reads of the loop now; `after_contact`: a contact just went (or counts as tried)."""
    first, last = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
    contacted = after_contact or (last is not None and not promises.check_in_due(concern, last))
    return {
        "priority": concern.priority,
        "schedule": uow.settings.follow_up_schedule,
        "contacted": contacted,
        "follow_up_count": concern.follow_up_count if follow_up_count is None else follow_up_count,
        "last_contact_at": (last or uow.now) if after_contact else last,
        "deadline": concern.deadline,
        "stretch": stretch_of(uow, concern.target_person_id),
        "first_contact_at": _first(uow, concern, first or (uow.now if after_contact else None)),
        **_l3(uow, concern),
    }


def planned(
    uow: UnitOfWork, concern: Concern, *, follow_up_count: int | None = None, after_contact: bool = False
) -> Step:
    """The loop's next step now; `after_contact`: a contact just went (or counts as tried) and counts as made."""
    return next_step(now=uow.now, **_inputs(uow, concern, follow_up_count=follow_up_count, after_contact=after_contact))


def escalates_at(uow: UnitOfWork, concern: Concern) -> datetime | None:
    """When the loop escalates if each follow-up goes when due (`concern.rules.escalation_at`); None before the
    first contact."""
    inputs = _inputs(uow, concern, follow_up_count=None, after_contact=False)
    if not inputs.pop("contacted") or inputs["last_contact_at"] is None:
        return None
    return escalation_at(**inputs)
