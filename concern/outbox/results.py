"""What an executed action's result means for its loop: applied once, by whoever closed the outbox entry.

Every purpose of `concern.queue.Purpose` is declared here once (`PURPOSES`): the handler applied to its result and
whether it was decided for one version of its loop (the drainer guards those). Questions and follow-ups:
`asked`; relayed messages and policy changes: `confirm`. An escalation that reached the manager starts the expiry
clock; one that cannot reach anyone is a dead end the originator hears about. Held notices and answers wait on the
concern for their moment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from action.models import ActionRecord, ActionRequest
from concern import notices, service
from concern.escalation import handling
from concern.escalation import steps as escalation
from concern.kinds import digest, reminders
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from concern.outbox import asked, confirm
from concern.outbox.confirm import name, reached, reply
from concern.queue import Purpose
from concern.texts import messages, reasons
from kernel.context import UnitOfWork
from person import service as persons

RETRY_SOLICITED = timedelta(days=1)  # a solicited delivery refused with no moment to retry is tried again daily


def nothing(*_: Any) -> None:
    """Results with no consequence for a loop."""
    return None


def _defer(uow: UnitOfWork, concern: Concern, purpose: str, request: ActionRequest, record: ActionRecord) -> bool:
    """Keep a blocked delivery on the concern for the earliest allowed moment; False if there is none."""
    if record.result != "blocked":
        return False
    not_before = record.result_detail.get("not_before")
    if not not_before and request.solicited:
        not_before = (record.timestamp + RETRY_SOLICITED).isoformat()
    if not not_before:
        return False
    held = {
        "purpose": purpose,
        "request": request.model_dump(mode="json"),
        "not_before": not_before,
        "blocked_by": record.result_detail["blocked_by"],
    }
    service.change(
        uow,
        concern,
        change="delivery_deferred",
        pending_deliveries=[*concern.pending_deliveries, held],
        supersedes=False,
        extra={"purpose": purpose, "action_id": record.action_id, "blocked_by": record.result_detail["blocked_by"]},
    )
    return True


def _nudged(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """A nudge that went out is a contact like any (the wait restarts); one held back or failed changes nothing
    but is explained to whoever asked for it (the check before queueing it said yes, the send said no)."""
    concern = service.get(uow, concern_id=entry.concern_id, lock=True)
    if concern is None:
        return
    if not reached(record):
        if entry.ack_person_id:
            reply(
                uow,
                to=entry.ack_person_id,
                template="nudge_refused",
                causation=request.decision_ref,
                origin_channel=entry.ack_channel,
                key=f"{entry.request_key}:ack",
                why=handling.refusal(uow, concern, record.result_detail, to=entry.ack_person_id),
            )
        return
    if concern.state == "escalated":  # "Remind them": the escalation's own clock restarts from the reminder
        if record.result == "success":
            service.note_message(uow, concern, ref=f"{record.channel}:{record.result_detail.get('message_id')}")
        later = min(escalation.timer(uow, concern, since=uow.now), notices.expires_at(uow, concern))
        service.change(uow, concern, change="reminded", causation_id=record.action_id, step_at=later)
        return
    asked.asked(uow, entry, request, record)


def _escalated(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    concern = service.get(uow, concern_id=entry.concern_id, lock=True)
    if concern is None or concern.state not in ACTIVE_STATES or _defer(uow, concern, entry.purpose, request, record):
        return
    expires = uow.now + uow.settings.concern_expire_after
    if reached(record):
        if record.result == "success":
            service.note_message(uow, concern, ref=f"{record.channel}:{record.result_detail.get('message_id')}")
        escalation.reached(uow, concern, request=request, record=record)
        return
    previous = concern.escalated_to  # a repeat or a climb that failed: the escalation stays with whoever had it
    service.change(
        uow,
        concern,
        change="escalation_failed",
        causation_id=record.action_id,
        state="escalated",
        escalated_to=previous,
        escalated_at=uow.now,
        step_at=expires,
        extra={"reason": record.result_detail.get("blocked_by") or record.result_detail.get("error")},
    )
    originator = persons.get_or_404(uow, person_id=concern.originator_id)
    manager = name(uow, request.target_person_id)
    tz = ZoneInfo(originator.timezone)
    notices.notice(
        uow,
        concern,
        to=concern.originator_id,
        key=f"outcome:escalation_failed{'' if previous is None else ':' + (request.target_person_id or '')}",
        template="escalation_failed",
        target=name(uow, concern.target_person_id),
        text=concern.question,
        manager=manager,
        reason=reasons.not_done(record.result_detail, originator.locale, target=manager),
        expires=messages.when(expires, tz, originator.locale, now=uow.now),
    )


def _held_on_concern(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """A backflow or notice: a refusal with a moment to retry waits on the concern."""
    concern = service.get(uow, concern_id=entry.concern_id, lock=True) if entry.concern_id else None
    if concern is not None:
        _defer(uow, concern, entry.purpose, request, record)


@dataclass(frozen=True)
class Declared:
    """What an outbox purpose means once its action has a result."""

    on_result: Callable[[UnitOfWork, OutboxEntry, ActionRequest, ActionRecord], None] = nothing
    # Decided for one version of its loop (a timer, a raise): a newer version (a reply, a cancel) supersedes it.
    versioned: bool = False


PURPOSES: dict[Purpose, Declared] = {
    Purpose.question: Declared(asked.asked, versioned=True),
    Purpose.follow_up: Declared(asked.asked, versioned=True),
    Purpose.bundle: Declared(asked.bundled, versioned=True),
    Purpose.nudge: Declared(_nudged, versioned=True),
    Purpose.escalation: Declared(_escalated, versioned=True),
    Purpose.reminder: Declared(reminders.sent, versioned=True),
    Purpose.backflow: Declared(_held_on_concern),
    Purpose.outcome: Declared(_held_on_concern),
    Purpose.tell: Declared(confirm.told),
    Purpose.policy: Declared(confirm.policy_changed),
    Purpose.digest: Declared(digest.delivered),
    Purpose.reply: Declared(),
    Purpose.brief: Declared(),
    Purpose.notice: Declared(),
    Purpose.notification: Declared(),
}


VERSIONED = frozenset(purpose for purpose, declared in PURPOSES.items() if declared.versioned)


def apply(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """Apply an action's result to its loop, as its purpose declares (exactly once: the entry's closer calls it)."""
    PURPOSES[Purpose(entry.purpose)].on_result(uow, entry, request, record)
