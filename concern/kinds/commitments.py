"""Commitments: a promise in an answer becomes a loop of its own, checked in on when due, kept or slipped.

A commitment is a concern of kind `commitment` (L2 does not count it): same originator and target as the
question it came from (`parent_id`), due at the promised moment, which is also its first timer. At that moment
the timer sends the check-in (concern.promises); silence follows the normal follow-up and escalation schedule.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from concern import notices, outbound, queue, service
from concern.kinds import promises
from concern.models import ACTIVE_STATES, Concern
from concern.texts import messages
from kernel.context import UnitOfWork
from person import service as persons


def open_(uow: UnitOfWork, *, parent_id: str, due_at: datetime, words: str, decision_id: str) -> Concern | None:
    """Open the commitment an answer to `parent_id` made, and add the promise to the answer's backflow."""
    parent = service.get(uow, concern_id=parent_id)
    if parent is None or parent.kind != "question":
        return None
    concern = service.create(
        uow,
        originator_id=parent.originator_id,
        target_person_id=parent.target_person_id,
        question=parent.question,
        priority=parent.priority,
        causation_id=decision_id,
        origin_channel=parent.origin_channel,
        kind="commitment",
        due_at=due_at,
        parent_id=parent.concern_id,
    )
    service.change(
        uow,
        concern,
        change="check_in_scheduled",
        causation_id=decision_id,
        step_at=due_at,
        supersedes=False,
        extra={"words": words},
    )
    _note_promise(uow, parent, concern)
    return concern


def _note_promise(uow: UnitOfWork, parent: Concern, concern: Concern) -> None:
    """ "张三承诺 明天 15:00 前给你": appended to the answer's backflow, still queued in this transaction."""
    originator = persons.get_or_404(uow, person_id=concern.originator_id)
    target = persons.get_or_404(uow, person_id=concern.target_person_id)
    when = messages.when(concern.due_at, ZoneInfo(originator.timezone), originator.locale, now=uow.now)
    line = promises.render("promise_noted", originator.locale, target=target.display_name, when=when)
    entry = queue.open_entry(uow, request_key=f"{parent.concern_id}:backflow:1")
    if entry is not None:
        entry.request = {**entry.request, "text": f"{entry.request['text']}\n{line}"}
        uow.session.flush()
        return
    outbound.notice(uow, concern, to=concern.originator_id, text=line, key=f"{concern.concern_id}:promise_noted")


def _active_commitment(uow: UnitOfWork, concern_id: str) -> Concern | None:
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None or concern.kind != "commitment" or concern.state not in ACTIVE_STATES:
        return None
    return concern


def complete_commitment(
    uow: UnitOfWork, *, concern_id: str, by: str, decision_id: str, answer: str | None = None
) -> Concern | None:
    """Done (the button, or a typed reply as `answer`): resolved, the originator told, the promise counted kept.

    None when it is not an open commitment (closed already: the press changes nothing).
    """
    concern = _active_commitment(uow, concern_id)
    if concern is None:
        return None
    due = concern.due_at or uow.now
    on_time = uow.now <= due
    service.change(
        uow,
        concern,
        change="resolved",
        causation_id=decision_id,
        state="resolved",
        answer=answer or "done",
        answered_by=by,
        resolved_at=uow.now,
        step_at=None,
        pending_deliveries=[],
    )
    service.change(
        uow,
        concern,
        change="commitment_kept",
        causation_id=decision_id,
        supersedes=False,
        extra={
            "on_time": on_time,
            "due_at": due.isoformat(),
            "late_by_s": max(0, int((uow.now - due).total_seconds())),
        },
    )
    originator = persons.get_or_404(uow, person_id=concern.originator_id)
    who = persons.get_or_404(uow, person_id=by).display_name
    timing = promises.timing(due, uow.now, originator.locale)
    if answer:
        text = promises.render(
            "answered", originator.locale, target=who, text=concern.question, answer=answer, timing=timing
        )
    else:
        text = promises.render("done", originator.locale, target=who, text=concern.question, timing=timing)
    notices.queue_backflow(uow, concern, text=text, decision_id=decision_id)
    if concern.escalated_to and concern.escalated_to != by:
        target = persons.get_or_404(uow, person_id=concern.target_person_id)
        notices.notice(
            uow,
            concern,
            to=concern.escalated_to,
            key=f"closed:{concern.escalated_to}",
            template="closed_answered",
            asker=originator.display_name,
            target=target.display_name,
            text=concern.question,
        )
    return concern


def extend_commitment(uow: UnitOfWork, *, concern_id: str, by: str, hours: int, decision_id: str) -> Concern | None:
    """Two more hours: due later (from now when it has passed), the timer moved (the door tells the new time)."""
    concern = _active_commitment(uow, concern_id)
    if concern is None or concern.state != "waiting_reply":
        return None
    due = promises.later(concern.due_at, uow.now, hours)
    service.change(
        uow,
        concern,
        change="commitment_extended",
        causation_id=decision_id,
        due_at=due,
        step_at=due,
        follow_up_count=0,
        extra={"by": by, "hours": hours},
    )
    return concern
