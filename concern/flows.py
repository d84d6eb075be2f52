"""Concern use cases: raise, resolve, cancel, snooze, acknowledge, expire, and the timer that drives each loop.

Every loop ends with its originator told how it ended (answer, cancellation, expiry, undeliverable), and
every active concern keeps a timer: the next step of its schedule, its expiry, or a held delivery.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from action import service as actions
from action.ledger import contact_times, contacts
from action.models import ActionRequest, ButtonSpec
from action.rules import ConcernState
from concern import buttons as concern_buttons
from concern import media as concern_media
from concern import messages, metrics, outbound, promises, reminders, service
from concern.models import ACTIVE_STATES, Concern
from concern.outbox import queue
from concern.outcomes import Done, Outcome, Refused
from concern.rules import next_step
from fact import decisions
from fact.decisions import DecisionKind
from kernel.context import AppContext, UnitOfWork
from kernel.errors import Conflict, Forbidden
from person import service as persons

OWNED_LEASE = timedelta(seconds=60)  # a question queued already owned by the request that runs it (the outbox's lease)


def _person(uow: UnitOfWork, person_id: str):
    return persons.get_or_404(uow, person_id=person_id)


def notice(
    uow: UnitOfWork,
    concern: Concern,
    *,
    to: str,
    key: str,
    template: str,
    reactive: bool = False,
    origin_channel: str | None = None,
    buttons: list[ButtonSpec] | None = None,
    **values: str,
) -> bool:
    """Queue a loop-outcome notice (solicited: quiet hours and pause apply, the cap does not; L4 per concern).

    `reactive` when it answers the person's own message right now. The key makes it once per concern and kind.
    """
    person = persons.get(uow, person_id=to)
    if person is None:
        return False
    text = messages.render(template, person.locale, **values)
    return outbound.notice(
        uow,
        concern,
        to=to,
        text=text,
        key=f"{concern.concern_id}:{key}",
        reactive=reactive,
        origin_channel=origin_channel,
        buttons=buttons or (),
    )


def _asking(asker: Any, target: Any, question: str, approval: bool) -> str:
    """The question as the target reads it."""
    if approval:
        return messages.risk_question(asker.display_name, question, target.locale)
    return messages.question(asker.display_name, question, target.locale)


def send_request(uow: UnitOfWork, concern: Concern, *, purpose: str, decision_ref: str, attempt: str) -> ActionRequest:
    """The send_message that asks (or re-asks) the target, in the target's language."""
    if concern.kind == "commitment":  # the check-in and its follow-ups, with Done / 2 more hours
        return promises.request(uow, concern, purpose=purpose, decision_ref=decision_ref, attempt=attempt)
    target, asker = _person(uow, concern.target_person_id), _person(uow, concern.originator_id)
    tz = ZoneInfo(target.timezone)
    if purpose == "follow_up":
        first, _ = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
        text = messages.follow_up(
            asker.display_name, concern.question, first or concern.created_at, uow.now, tz, target.locale
        )
    else:
        text = _asking(asker, target, concern.question, concern.approval)
    key = f"{concern.concern_id}:{purpose}:{attempt}"
    kind = "decision" if concern.approval else ("check_in" if concern.kind == "commitment" else "question")
    return ActionRequest(
        action_type="send_message",
        decision_ref=decision_ref,
        target_person_id=concern.target_person_id,
        text=text,
        priority=concern.priority,
        concern_id=concern.concern_id,
        follow_up=purpose == "follow_up",
        origin_channel=concern.origin_channel,
        request_key=key,
        buttons=concern_buttons.for_message(
            uow,
            kind=kind,
            request_key=key,
            addressee_id=concern.target_person_id,
            locale=target.locale,
            concern_id=concern.concern_id,
        ),
    )


def expires_at(uow: UnitOfWork, concern: Concern) -> datetime:
    """When an escalated concern expires: DEPUTY_CONCERN_EXPIRE_AFTER after its last escalation step (or after
    the acknowledgement, once someone took it)."""
    return (concern.acknowledged_at or concern.escalated_at or uow.now) + uow.settings.concern_expire_after


def stall(uow: UnitOfWork, concern: Concern, *, decision_id: str) -> None:
    """No manager to escalate to: the loop stalls (escalated, with an expiry) and the originator is told."""
    target, asker = _person(uow, concern.target_person_id), _person(uow, concern.originator_id)
    first, _ = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
    since = first or concern.created_at
    service.change(
        uow,
        concern,
        change="stalled",
        causation_id=decision_id,
        state="escalated",
        escalated_to=None,
        escalated_at=uow.now,
        step_at=uow.now + uow.settings.concern_expire_after,
        extra={"reason": "no manager to escalate to"},
    )
    tz = ZoneInfo(asker.timezone)
    notice(
        uow,
        concern,
        to=concern.originator_id,
        key="outcome:stalled",
        template="stalled",
        target=target.display_name,
        text=concern.question,
        since=messages.when(since, tz),
        waited=messages.duration(uow.now - since, asker.locale),
        expires=messages.when(expires_at(uow, concern), tz, asker.locale, now=uow.now),
    )


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
    records a refusal as the blocked question.
    """
    total, for_person = service.active_counts(uow, target_person_id=target_person_id)
    asker, target = _person(uow, originator_id), _person(uow, target_person_id)
    question_ = ActionRequest(
        action_type="send_message",
        decision_ref=decision_id,
        target_person_id=target_person_id,
        text=_asking(asker, target, question, approval),
        priority=priority,
        origin_channel=origin_channel,
    )
    refusal = actions.admit(
        uow, request=question_, state=ConcernState(priority=priority, active_global=total, active_for_person=for_person)
    )
    if refusal is not None:
        code = refusal.result_detail["blocked_by"]
        return Refused("refused_limit", {"blocked_by": code, "target": target_person_id})
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
    request = send_request(uow, concern, purpose="question", decision_ref=concern.concern_id, attempt="1")
    queue.enqueue(
        uow,
        request=request,
        purpose="question",
        concern=concern,
        claimed_by=claimed_by,
        lease=OWNED_LEASE if claimed_by else timedelta(0),
    )
    return Done("raised", concern_id=concern.concern_id)


def _close_for_others(uow: UnitOfWork, concern: Concern, *, template: str, answered_by: str | None = None) -> None:
    """Tell everyone the escalation reached (and the person asked, when someone else answered) that it is over."""
    asker, target = _person(uow, concern.originator_id), _person(uow, concern.target_person_id)
    reached = service.escalation_recipients(uow, concern_id=concern.concern_id)
    if concern.escalated_to and concern.escalated_to not in reached:
        reached.append(concern.escalated_to)
    for person_id in reached:
        if person_id == answered_by:
            continue
        notice(
            uow,
            concern,
            to=person_id,
            key=f"closed:{person_id}",
            template=template,
            asker=asker.display_name,
            target=target.display_name if answered_by is None else _person(uow, answered_by).display_name,
            text=concern.question,
        )
    if answered_by and answered_by != concern.target_person_id:
        notice(
            uow,
            concern,
            to=concern.target_person_id,
            key=f"closed:{concern.target_person_id}",
            template="closed_answered_for_you",
            answerer=_person(uow, answered_by).display_name,
            asker=asker.display_name,
            text=concern.question,
        )


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
    queue_backflow(uow, concern, text=text, decision_id=decision_id, media=note)
    _close_for_others(uow, concern, template="closed_answered", answered_by=answered_by)
    return concern


def queue_backflow(
    uow: UnitOfWork, concern: Concern, *, text: str, decision_id: str, media: dict[str, Any] | None = None
) -> None:
    """Queue the answer's way back to the originator: once per loop (its key), solicited, with any media."""
    request = ActionRequest(
        action_type="backflow",
        decision_ref=decision_id,
        target_person_id=concern.originator_id,
        text=text,
        priority=concern.priority,
        origin_channel=concern.origin_channel,
        concern_id=concern.concern_id,
        request_key=f"{concern.concern_id}:backflow:1",
        media=media,
    )
    queue.enqueue(uow, request=request, purpose="backflow", concern=concern)


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
    if is_admin:
        notice(
            uow,
            concern,
            to=concern.originator_id,
            key="outcome:cancelled",
            template="cancelled_by_admin",
            target=target.display_name,
            text=concern.question,
        )
    _close_for_others(uow, concern, template="closed_cancelled")
    reached = contact_times(uow, concern_id=concern_id, person_id=concern.target_person_id)[1] is not None
    if reached and concern.target_person_id != concern.originator_id:  # a reminder's person cancelled it: no notice
        # The person asked saw the question: they hear it is off (once, keyed like every closure notice).
        notice(
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


def _l3(uow: UnitOfWork, concern: Concern) -> dict[str, Any]:
    """What a deadline's tightened schedule reads: the concern's contacts and L3's limit (none without a deadline)."""
    if concern.deadline is None:
        return {}
    return {
        "contacts": contacts(uow, concern_id=concern.concern_id, person_id=concern.target_person_id),
        "contact_limit": uow.settings.concern_contact_limit,
        "contact_window": uow.settings.concern_contact_window,
    }


def schedule_after_contact(
    uow: UnitOfWork, concern: Concern, *, change: str, follow_up_count: int, causation_id: str | None
) -> None:
    """Set the timer for the next step after a contact (or a contact that counts as tried)."""
    _, last = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
    step = next_step(
        priority=concern.priority,
        schedule=uow.settings.follow_up_schedule,
        contacted=True,
        follow_up_count=follow_up_count,
        last_contact_at=last or uow.now,
        deadline=concern.deadline,
        now=uow.now,
        **_l3(uow, concern),
    )
    service.change(
        uow, concern, change=change, causation_id=causation_id, follow_up_count=follow_up_count, step_at=step.at
    )


def _expire(uow: UnitOfWork, concern: Concern) -> None:
    promises.slipped(uow, concern, causation_id=None)  # once: a promise that escalated was told already
    service.change(uow, concern, change="expired", state="expired", step_at=None, pending_deliveries=[])
    target = _person(uow, concern.target_person_id)
    notice(
        uow,
        concern,
        to=concern.originator_id,
        key="outcome:expired",
        template="expired",
        target=target.display_name,
        text=concern.question,
    )
    _close_for_others(uow, concern, template="closed_expired")


def _redeliver(uow: UnitOfWork, concern: Concern) -> None:
    """Queue the held deliveries whose moment came (each try is its own action)."""
    due = [held for held in concern.pending_deliveries if datetime.fromisoformat(held["not_before"]) <= uow.now]
    if not due:
        return
    service.change(
        uow,
        concern,
        change="deliveries_retried",
        pending_deliveries=[held for held in concern.pending_deliveries if held not in due],
        supersedes=False,
    )
    for held in due:
        base, _, tries = held["request"]["request_key"].partition("#")
        request = ActionRequest.model_validate({**held["request"], "request_key": f"{base}#{int(tries or 1) + 1}"})
        queue.enqueue(uow, request=request, purpose=held["purpose"], concern=concern)


def fire_due(ctx: AppContext, *, limit: int = 100) -> int:
    """Fire due timers, each in its own short transaction (claimed with SKIP LOCKED, so replicas share the work).

    One concern per transaction keeps every lock short (the concern's row, the person's, SQLite's write lock), so
    replicas fire side by side and a webhook's write never waits behind a whole tick. Each fires once per pass.
    """
    fired: list[str] = []
    while len(fired) < limit:
        with ctx.uow(actor="scheduler") as uow:
            due = service.claim_due(uow, now=uow.now, limit=1, skip=fired)
            if not due:
                break
            fire(uow, due[0])
            fired.append(due[0].concern_id)
    return len(fired)


def fire(uow: UnitOfWork, concern: Concern) -> None:
    """A due timer: redeliver held deliveries, then take the loop's own step if it is due (or expire it)."""
    # Imported here: the escalation module builds on this one's notices (a cycle at import time otherwise).
    from concern import escalation

    _redeliver(uow, concern)
    if concern.kind == "reminder" and concern.step_at is not None and concern.step_at <= uow.now:
        reminders.fire(uow, concern)
        return
    if concern.step_at is None or concern.step_at > uow.now:
        if concern.state not in ACTIVE_STATES and concern.step_at is not None:
            service.change(uow, concern, change="timer_cleared", step_at=None)
        return
    if concern.state == "escalated":
        if uow.now >= expires_at(uow, concern):
            _expire(uow, concern)
        else:
            escalation.step(uow, concern)  # repeat, climb, or wait
        return
    if concern.state != "waiting_reply":
        service.change(uow, concern, change="timer_cleared", step_at=None)
        return
    first, last = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
    step = next_step(
        priority=concern.priority,
        schedule=uow.settings.follow_up_schedule,
        contacted=last is not None and not promises.check_in_due(concern, last),
        follow_up_count=concern.follow_up_count,
        last_contact_at=last,
        deadline=concern.deadline,
        now=uow.now,
        **_l3(uow, concern),
    )
    if step.at > uow.now:
        service.change(uow, concern, change="rescheduled", step_at=step.at, extra={"reason": "not due yet"})
        return
    kind = DecisionKind.escalate if step.kind == "escalate" else DecisionKind.direct_action
    decision_id = decisions.record(
        uow,
        kind=kind,
        rule=f"follow_up_schedule:{concern.priority}:{step.kind}",
        inputs=[concern.concern_id],
        person_refs=[concern.target_person_id],
        source="concern",
        requested=[{"step": step.kind, "concern_id": concern.concern_id}],
    )
    service.change(
        uow, concern, change="timer_fired", causation_id=decision_id, step_at=None, extra={"step": step.kind}
    )
    if step.kind == "escalate":
        promises.slipped(uow, concern, causation_id=decision_id)
        escalation.start(uow, concern, decision_id=decision_id)
    else:
        request = send_request(uow, concern, purpose=step.kind, decision_ref=decision_id, attempt=f"v{concern.version}")
        queue.enqueue(uow, request=request, purpose=step.kind, concern=concern)
