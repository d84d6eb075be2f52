"""The timer that drives each loop: due concerns fired (a follow-up, an escalation step, a reminder, an expiry),
held deliveries sent again at their moment, and the next step set after each contact.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from action.models import ActionRequest
from concern import asking, bundles, notices, queue, reachability, schedule, service
from concern.escalation import steps as escalation
from concern.kinds import promises, reminders
from concern.models import ACTIVE_STATES, Concern
from fact import decisions
from fact.decisions import DecisionKind
from kernel.context import AppContext, UnitOfWork
from kernel.portion import Portion
from person import service as persons
from person.calendar import with_calendar


def schedule_after_contact(
    uow: UnitOfWork,
    concern: Concern,
    *,
    change: str,
    follow_up_count: int,
    causation_id: str | None,
    contact: dict[str, Any] | None = None,
) -> None:
    """Set the timer for the next step after a contact (or a contact that counts as tried); `contact`: the fields
    naming the message that reached the person (concern.receipts.contacted)."""
    step = schedule.planned(uow, concern, follow_up_count=follow_up_count, after_contact=True)
    service.change(
        uow,
        concern,
        change=change,
        causation_id=causation_id,
        follow_up_count=follow_up_count,
        step_at=step.at,
        held_until=None,  # the contact went (or counts as tried): nothing is held any more
        held_by=None,
        **(contact or {}),
    )


def _expire(uow: UnitOfWork, concern: Concern) -> None:
    promises.slipped(uow, concern, causation_id=None)  # once: a promise that escalated was told already
    service.change(uow, concern, change="expired", state="expired", step_at=None, pending_deliveries=[])
    target = persons.get_or_404(uow, person_id=concern.target_person_id)
    notices.notice(
        uow,
        concern,
        to=concern.originator_id,
        key="outcome:expired",
        template="expired",
        target=target.display_name,
        text=concern.question,
    )
    notices.close_for_others(uow, concern, template="closed_expired")


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


def fire_due(ctx: AppContext, *, portion: Portion | None = None) -> int:
    """Fire due timers, as many as `portion` takes (100 without one), each in its own short transaction (claimed
    with SKIP LOCKED, so replicas share the work).

    One concern per transaction keeps every lock short (the concern's row, the person's, SQLite's write lock), so
    replicas fire side by side and a webhook's write never waits behind a whole tick. Each fires once per pass.
    """
    fired: list[str] = []
    portion = portion or Portion(100)

    def fire_next() -> str | None:
        with ctx.uow(actor="scheduler") as uow:
            due = service.claim_due(uow, now=uow.now, limit=1, skip=fired)
            if due:
                fire(uow, due[0])
            return due[0].concern_id if due else None

    # A step about to contact someone whose calendar is not read yet rolls back; it is read outside, then redone.
    while portion.more(len(fired)) and (concern_id := with_calendar(ctx, fire_next)) is not None:
        fired.append(concern_id)
    return len(fired)


def fire(uow: UnitOfWork, concern: Concern) -> None:
    """A due timer: redeliver held deliveries, then take the loop's own step if it is due (or expire it)."""
    _redeliver(uow, concern)
    if concern.kind == "reminder" and concern.step_at is not None and concern.step_at <= uow.now:
        reminders.fire(uow, concern)
        return
    if concern.step_at is None or concern.step_at > uow.now:
        if concern.state not in ACTIVE_STATES and concern.step_at is not None:
            service.change(uow, concern, change="timer_cleared", step_at=None)
        return
    if concern.state == "escalated":
        if uow.now >= notices.expires_at(uow, concern):
            _expire(uow, concern)
        else:
            escalation.step(uow, concern)  # repeat, climb, or wait
        return
    if concern.state != "waiting_reply":
        service.change(uow, concern, change="timer_cleared", step_at=None)
        return
    step = schedule.planned(uow, concern)
    if step.at > uow.now:
        service.change(uow, concern, change="rescheduled", step_at=step.at, extra={"reason": "not due yet"})
        return
    if (
        step.kind != "escalate"
        and concern.kind == "question"
        and reachability.gate(
            uow, concern, kind=step.kind, step_at=step.at, escalation=schedule.escalates_at(uow, concern)
        )
    ):
        return  # held (away, busy) or moved (a promise, the usual answering hour): the model set the timer
    chosen = reachability.means(uow, concern) if step.kind == "follow_up" and concern.kind == "question" else None
    # A follow-up the read state sends another way (the other channel, made urgent) goes on its own.
    other_means = chosen is not None and (chosen.channel is not None or bool(chosen.urgent))
    if step.kind == "follow_up" and not other_means and bundles.bundle(uow, concern, due=schedule.planned):
        return  # it went into one message with the person's other follow-ups falling due now
    _take_step(uow, concern, step=step.kind, chosen=chosen)


def _take_step(uow: UnitOfWork, concern: Concern, *, step: str, chosen: reachability.Means | None) -> None:
    """The due step, decided and carried out: an escalation, or the question asked again (as the read state says)."""
    kind = DecisionKind.escalate if step == "escalate" else DecisionKind.direct_action
    decision_id = decisions.record(
        uow,
        kind=kind,
        rule=f"follow_up_schedule:{concern.priority}:{step}",
        inputs=[concern.concern_id],
        person_refs=[concern.target_person_id],
        source="concern",
        requested=[{"step": step, "concern_id": concern.concern_id}],
    )
    means = {"means": chosen.reasons} if chosen is not None and chosen.reasons else {}
    service.change(
        uow, concern, change="timer_fired", causation_id=decision_id, step_at=None, extra={"step": step, **means}
    )
    if step == "escalate":
        promises.slipped(uow, concern, causation_id=decision_id)
        escalation.start(uow, concern, decision_id=decision_id)
        return
    read = chosen is not None and "read_unanswered" in chosen.reasons
    request = asking.send_request(
        uow, concern, purpose=step, decision_ref=decision_id, attempt=f"v{concern.version}", read=read
    )
    if chosen is not None and chosen.channel is not None:  # the read state of the last message said how
        request = request.model_copy(update={"channel_first": chosen.channel, "urgent": chosen.urgent})
    queue.enqueue(uow, request=request, purpose=step, concern=concern)
