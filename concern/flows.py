"""Concern use cases: raise, resolve, cancel, snooze, risk escalation, and the timer tick."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from action.ledger import contact_times
from action.models import ActionRequest
from app.context import UnitOfWork
from app.errors import Conflict, Forbidden
from cognitive_core import service as decisions
from cognitive_core.models import DecisionKind
from concern import messages, service
from concern.models import ACTIVE_STATES, Concern
from concern.rules import next_step
from person import service as persons


def _person(uow: UnitOfWork, person_id: str):
    return persons.get_or_404(uow, person_id=person_id)


def send_request(uow: UnitOfWork, c: Concern, *, purpose: str, decision_ref: str, attempt: str) -> ActionRequest:
    """The send_message that asks (or re-asks) the target, in the target's language."""
    target, asker = _person(uow, c.target_person_id), _person(uow, c.originator_id)
    tz = ZoneInfo(target.timezone)
    if purpose == "follow_up":
        first, _ = contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
        text = messages.follow_up(asker.display_name, c.question, first or c.created_at, uow.now, tz, target.locale)
    elif c.kind == "risk":
        text = messages.risk_question(asker.display_name, c.question, target.locale)
    else:
        text = messages.question(asker.display_name, c.question, target.locale)
    return ActionRequest(
        action_type="send_message", decision_ref=decision_ref, target_person_id=c.target_person_id, text=text, priority=c.priority,
        concern_id=c.concern_id, follow_up=purpose == "follow_up", origin_channel=c.origin_channel, request_key=f"{c.concern_id}:{purpose}:{attempt}",
    )


def escalation_request(uow: UnitOfWork, c: Concern, *, decision_ref: str) -> tuple[str, ActionRequest]:
    """Escalate to the target's manager, or tell the originator the loop stalled when there is none."""
    target, asker = _person(uow, c.target_person_id), _person(uow, c.originator_id)
    first, _ = contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
    since = first or c.created_at
    if target.manager_id and target.manager_id != c.originator_id:
        manager = _person(uow, target.manager_id)
        text = messages.escalation(target.display_name, asker.display_name, c.question, since, uow.now, ZoneInfo(manager.timezone), manager.locale)
        return "escalation", ActionRequest(action_type="escalate", decision_ref=decision_ref, target_person_id=manager.person_id, text=text,
                                           priority=c.priority, concern_id=c.concern_id, request_key=f"{c.concern_id}:escalation:v{c.version}")
    text = messages.stalled(target.display_name, c.question, since, uow.now, ZoneInfo(asker.timezone), asker.locale)
    return "stall_notice", ActionRequest(action_type="escalate", decision_ref=decision_ref, target_person_id=asker.person_id, text=text,
                                         priority=c.priority, concern_id=c.concern_id, request_key=f"{c.concern_id}:stall:v{c.version}")


def raise_(uow: UnitOfWork, *, originator_id: str, target_person_id: str, question: str, priority: str, decision_id: str,
           deadline: datetime | None = None, origin_channel: str | None = None, kind: str = "ask", source_fact_id: str | None = None) -> Concern | str:
    """Create a concern and queue its question; returns the refusal reason instead when L2 limits are full."""
    total, for_person = service.active_counts(uow, target_person_id=target_person_id)
    limits = uow.settings
    if total >= limits.max_active_concerns:
        return f"L2:global_concern_limit ({total} active concerns)"
    if for_person >= limits.max_active_concerns_per_person:
        return f"L2:person_concern_limit ({for_person} active concerns wait on this person)"
    c = service.create(uow, originator_id=originator_id, target_person_id=target_person_id, question=question, priority=priority,
                       causation_id=decision_id, deadline=deadline, origin_channel=origin_channel, kind=kind, source_fact_id=source_fact_id)
    service.enqueue(uow, request=send_request(uow, c, purpose="question", decision_ref=c.concern_id, attempt="1"), purpose="question", concern=c)
    return c


def resolve(uow: UnitOfWork, *, concern_id: str, answer: str, answered_by: str, decision_id: str) -> Concern | None:
    """Resolve with the answer, cancel timers, and queue the backflow to the originator."""
    c = service.get(uow, concern_id=concern_id, lock=True)
    if c is None or c.state not in ACTIVE_STATES:
        return None
    service.change(uow, c, change="resolved", causation_id=decision_id, state="resolved", answer=answer, answered_by=answered_by,
                   resolved_at=uow.now, next_follow_up_at=None, pending_deliveries=[])
    originator, answerer = _person(uow, c.originator_id), _person(uow, answered_by)
    if c.kind == "risk":
        text = messages.decision_back(answerer.display_name, answer, originator.locale)
    else:
        text = messages.backflow(answerer.display_name, c.question, answer, uow.now - c.created_at, originator.locale)
    request = ActionRequest(action_type="backflow", decision_ref=decision_id, target_person_id=c.originator_id, text=text, priority=c.priority,
                            origin_channel=c.origin_channel, request_key=f"{c.concern_id}:backflow:1")
    service.enqueue(uow, request=request, purpose="backflow", concern=c)
    return c


def cancel(uow: UnitOfWork, *, concern_id: str, by: str, is_admin: bool, decision_id: str | None = None) -> Concern:
    """Cancel (originator or admin only); no further contact."""
    c = service.get_or_404(uow, concern_id=concern_id)
    if not is_admin and by != c.originator_id:
        raise Forbidden(f"only the originator of {concern_id} may cancel it", field="concern_id")
    if c.state not in ACTIVE_STATES:
        raise Conflict(f"concern {concern_id} is already {c.state}", field="state")
    return service.change(uow, c, change="cancelled", causation_id=decision_id, state="cancelled", next_follow_up_at=None, pending_deliveries=[], extra={"by": by})


def snooze(uow: UnitOfWork, *, concern_id: str, duration: timedelta, decision_id: str) -> Concern | None:
    """Move the next follow-up to now + duration."""
    c = service.get(uow, concern_id=concern_id, lock=True)
    if c is None or c.state != "waiting_reply":
        return None
    return service.change(uow, c, change="snoozed", causation_id=decision_id, next_follow_up_at=uow.now + duration)


def schedule_after_contact(uow: UnitOfWork, c: Concern, *, change: str, follow_up_count: int, causation_id: str | None) -> None:
    """Set the timer for the next step after a successful contact."""
    _, last = contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
    step = next_step(priority=c.priority, schedule=uow.settings.follow_up_schedule, contacted=True, follow_up_count=follow_up_count,
                     last_contact_at=last or uow.now, deadline=c.deadline, now=uow.now)
    service.change(uow, c, change=change, causation_id=causation_id, follow_up_count=follow_up_count, next_follow_up_at=step.at)


def fire(uow: UnitOfWork, c: Concern) -> None:
    """A due timer: redeliver deferred deliveries, or take the next step of the schedule."""
    due = [p for p in c.pending_deliveries if datetime.fromisoformat(p["not_before"]) <= uow.now]
    if c.pending_deliveries:
        later = [p for p in c.pending_deliveries if p not in due]
        nxt = min((datetime.fromisoformat(p["not_before"]) for p in later), default=None)
        service.change(uow, c, change="deliveries_retried", pending_deliveries=later, next_follow_up_at=nxt)
        for p in due:
            request = ActionRequest.model_validate({**p["request"], "request_key": f"{p['request']['request_key'].split('#')[0]}#{c.version}"})
            service.enqueue(uow, request=request, purpose=p["purpose"], concern=c)
        return
    if c.state != "waiting_reply":
        service.change(uow, c, change="timer_cleared", next_follow_up_at=None)
        return
    first, last = contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
    step = next_step(priority=c.priority, schedule=uow.settings.follow_up_schedule, contacted=last is not None, follow_up_count=c.follow_up_count,
                     last_contact_at=last, deadline=c.deadline, now=uow.now)
    if step.at > uow.now:
        service.change(uow, c, change="rescheduled", next_follow_up_at=step.at, extra={"reason": "not due yet"})
        return
    kind = DecisionKind.escalate if step.kind == "escalate" else DecisionKind.direct_action
    decision_id = decisions.record(uow, kind=kind, rule=f"follow_up_schedule:{c.priority}:{step.kind}", inputs=[c.concern_id],
                                   person_refs=[c.target_person_id], source="concern", requested=[{"step": step.kind, "concern_id": c.concern_id}])
    service.change(uow, c, change="timer_fired", causation_id=decision_id, next_follow_up_at=None, extra={"step": step.kind})
    if step.kind == "escalate":
        purpose, request = escalation_request(uow, c, decision_ref=decision_id)
    else:
        purpose = step.kind
        request = send_request(uow, c, purpose=purpose, decision_ref=decision_id, attempt=f"v{c.version}")
    service.enqueue(uow, request=request, purpose=purpose, concern=c)
