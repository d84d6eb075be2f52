"""Concern use cases: raise, resolve, cancel, snooze and acknowledge a loop.

Every loop ends with its originator told how it ended (answer, cancellation, expiry, undeliverable), and every
active concern keeps a timer: the next step of its schedule, its expiry, or a held delivery (`concern.timers`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from action import service as actions
from action.ledger import contact_times
from action.models import ActionRequest
from action.rules import ConcernState
from concern import media as concern_media
from concern import metrics, notices, queue, reachability, service
from concern.models import ACTIVE_STATES, Concern
from concern.notices import _person
from concern.outcomes import Done, Outcome, Refused
from concern.queue import LEASE, Purpose
from concern.texts import messages
from kernel.context import UnitOfWork
from kernel.errors import Conflict, Forbidden


def _admitted(
    uow: UnitOfWork,
    *,
    originator_id: str,
    target_person_id: str,
    question: str,
    priority: str,
    decision_id: str,
    origin_channel: str | None,
    approval: bool,
) -> Refused | None:
    """None when L2 lets the question open a loop; else Refused with its code (the blocked question is recorded)."""
    total, for_person = service.active_counts(uow, target_person_id=target_person_id)
    asker, target = _person(uow, originator_id), _person(uow, target_person_id)
    question_ = ActionRequest(
        action_type="send_message",
        decision_ref=decision_id,
        target_person_id=target_person_id,
        text=notices.question_text(asker, target, question, approval),
        priority=priority,
        origin_channel=origin_channel,
    )
    state = ConcernState(priority=priority, active_global=total, active_for_person=for_person)
    refusal = actions.admit(uow, request=question_, state=state)
    if refusal is None:
        return None
    return Refused("refused_limit", {"blocked_by": refusal.result_detail["blocked_by"], "target": target_person_id})


def raise_(
    uow: UnitOfWork,
    *,
    originator_id: str,
    target_person_id: str,
    question: str,
    priority: str,
    decision_id: str,
    deadline: datetime | None = None,
    origin_channel: str | None = None,
    origin_chat_id: str | None = None,
    kind: str = "question",
    approval: bool = False,
    source_fact_id: str | None = None,
    claimed_by: str | None = None,
) -> Outcome:
    """Create a concern and queue its question (Done, with its id); Refused with the L2 code when the limits are full.

    L2 is the action layer's to evaluate: it is asked once, here, whether the question may open a loop, and
    records a refusal as the blocked question."""
    refused = _admitted(
        uow,
        originator_id=originator_id,
        target_person_id=target_person_id,
        question=question,
        priority=priority,
        decision_id=decision_id,
        origin_channel=origin_channel,
        approval=approval,
    )
    if refused is not None:
        return refused
    concern = service.create(
        uow,
        originator_id=originator_id,
        target_person_id=target_person_id,
        question=question,
        priority=priority,
        causation_id=decision_id,
        deadline=deadline,
        origin_channel=origin_channel,
        origin_chat_id=origin_chat_id,
        kind=kind,
        approval=approval,
        source_fact_id=source_fact_id,
    )
    if kind == "question" and reachability.gate(uow, concern, kind="question", step_at=uow.now):
        return Done("raised", concern_id=concern.concern_id)  # held (away): the loop's timer asks on the return
    request = notices.question_request(
        uow, concern, purpose=Purpose.question, decision_ref=concern.concern_id, attempt="1"
    )
    lease = LEASE if claimed_by else timedelta(0)
    queue.enqueue(uow, request=request, purpose=Purpose.question, concern=concern, claimed_by=claimed_by, lease=lease)
    return Done("raised", concern_id=concern.concern_id)


def resolve(
    uow: UnitOfWork,
    *,
    concern_id: str,
    answer: str,
    answered_by: str,
    decision_id: str,
    media: dict[str, Any] | None = None,
) -> Concern | None:
    """Resolve with the answer (from the target or the escalation's recipient), stop timers, queue the backflow.

    A media answer (a photo, a file …) is passed on as itself with the backflow as its caption; its caption is
    the answer's text.
    """
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None or concern.state not in ACTIVE_STATES:
        return None
    originator = _person(uow, concern.originator_id)
    if media is not None and not answer:
        answer = concern_media.placeholder(media["kind"], originator.locale)
    service.change(
        uow,
        concern,
        change="resolved",
        causation_id=decision_id,
        state="resolved",
        answer=answer,
        answered_by=answered_by,
        resolved_at=uow.now,
        step_at=None,
        pending_deliveries=[],
    )
    metrics.observe_answer(uow, concern)
    originator, answerer, target = (
        _person(uow, concern.originator_id),
        _person(uow, answered_by),
        _person(uow, concern.target_person_id),
    )
    if concern.approval:
        text = messages.decision_back(answerer.display_name, answer, originator.locale)
    else:
        text = messages.backflow(
            answerer.display_name,
            concern.question,
            answer,
            uow.now - concern.created_at,
            originator.locale,
            target=target.display_name,
        )
    note = media | {"note": concern_media.note(media, originator.locale)} if media else None
    notices.queue_backflow(uow, concern, text=text, decision_id=decision_id, media=note)
    notices.close_for_others(uow, concern, template="closed_answered", answered_by=answered_by)
    return concern


def cancel(uow: UnitOfWork, *, concern_id: str, by: str, is_admin: bool, decision_id: str | None = None) -> Concern:
    """Cancel (originator or admin only); no further contact. An admin's cancellation is told to the originator."""
    concern = service.get_or_404(uow, concern_id=concern_id)
    if not is_admin and by != concern.originator_id:
        raise Forbidden(f"only the originator of {concern_id} may cancel it", field="concern_id")
    if concern.state not in ACTIVE_STATES:
        raise Conflict(
            f"concern {concern_id} is already {concern.state}", field="state", details={"state": concern.state}
        )
    service.change(
        uow,
        concern,
        change="cancelled",
        causation_id=decision_id,
        state="cancelled",
        step_at=None,
        pending_deliveries=[],
        extra={"by": by},
    )
    target = _person(uow, concern.target_person_id)
    if is_admin and by != concern.originator_id:  # an admin cancelling their own question needs no notice
        # A reminder is the person's own, not a question they put to someone: told as such.
        own = concern.kind == "reminder" or concern.target_person_id == concern.originator_id
        notices.notice(
            uow,
            concern,
            to=concern.originator_id,
            key="outcome:cancelled",
            template="reminder_cancelled_by_admin" if own else "cancelled_by_admin",
            target=target.display_name,
            text=concern.question,
        )
    notices.close_for_others(uow, concern, template="closed_cancelled")
    reached = contact_times(uow, concern_id=concern_id, person_id=concern.target_person_id)[1] is not None
    if reached and concern.target_person_id != concern.originator_id:  # a reminder's person cancelled it: no notice
        # The person asked saw the question: they hear it is off (once, keyed like every closure notice).
        notices.notice(
            uow,
            concern,
            to=concern.target_person_id,
            key=f"closed:{concern.target_person_id}",
            template="closed_cancelled_for_you",
            asker=_person(uow, concern.originator_id).display_name,
            text=concern.question,
        )
    return concern


def snooze(uow: UnitOfWork, *, concern_id: str, duration: timedelta, decision_id: str) -> Concern | None:
    """Move the next follow-up to now + duration."""
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None or concern.state != "waiting_reply":
        return None
    return service.change(uow, concern, change="snoozed", causation_id=decision_id, step_at=uow.now + duration)


def acknowledge(uow: UnitOfWork, *, concern_id: str, decision_id: str) -> Concern | None:
    """A bare "收到"/"ok": the loop stays open; the next follow-up waits at least the priority's first interval."""
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None or concern.state != "waiting_reply":
        return None
    later = uow.now + uow.settings.follow_up_schedule[concern.priority][0]
    step_at = max(concern.step_at, later) if concern.step_at else later
    return service.change(uow, concern, change="acknowledged", causation_id=decision_id, step_at=step_at)
