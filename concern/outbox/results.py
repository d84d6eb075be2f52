"""What an executed action's result means for its loop: applied once, by whoever closed the outbox entry.

A question that went out starts the schedule; one held by quiet hours, a pause or the cap waits for its
moment and the originator is told when it will go out; one that cannot go out at all closes the loop and
says why. An escalation that reached the manager starts the expiry clock; one that cannot reach anyone is
a dead end the originator hears about. Held notices and answers wait on the concern for their moment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from action.ledger import contact_times
from action.models import ActionRecord, ActionRequest, possibly_delivered
from concern import buttons as concern_buttons
from concern import digest, escalation, flows, messages, outbound, reasons, reminders, replies, service
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from concern.outbox import queue
from concern.outbox.queue import Purpose
from kernel.context import UnitOfWork
from person import service as persons
from person.models import InteractionPolicy
from person.rules import is_quiet

RETRY_SOLICITED = timedelta(days=1)  # a solicited delivery refused with no moment to retry is tried again daily
MAX_TELL_TRIES = 5


def nothing(*_: Any) -> None:
    """Results with no consequence for a loop."""
    return None


def _name(uow: UnitOfWork, person_id: str | None) -> str:
    person = persons.get(uow, person_id=person_id) if person_id else None
    return person.display_name if person else (person_id or "")


def _reached(record: ActionRecord) -> bool:
    return record.result == "success" or possibly_delivered(record.result, record.result_detail)


def _reply(
    uow: UnitOfWork,
    *,
    to: str,
    template: str,
    causation: str,
    origin_channel: str | None,
    key: str,
    reactive: bool = True,
    buttons: str | None = None,
    concern_id: str | None = None,
    chat_id: str | None = None,
    **values: str,
) -> None:
    """Queue a reply to `to` in their language: reactive (to what they just wrote) or a later solicited notice.

    `buttons` names the set (concern.buttons.SETS) the message carries, about `concern_id`. A reactive reply to a
    request made in a group (`chat_id`) is answered in that group.
    """
    person = persons.get(uow, person_id=to)
    if person is None:
        return
    specs = []
    if buttons is not None:
        specs = concern_buttons.for_message(
            uow, kind=buttons, request_key=key, addressee_id=to, locale=person.locale, concern_id=concern_id
        )
    text = replies.reply(template, person.locale, **values, **({"concern_id": concern_id} if concern_id else {}))
    outbound.reply(
        uow,
        to=to,
        text=text,
        decision_id=causation,
        channel=origin_channel,
        key=key,
        chat_id=chat_id,
        buttons=specs,
        later=not reactive,
    )


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


def _quiet_window(policy: InteractionPolicy, tz: ZoneInfo, now: datetime) -> str | None:
    """The quiet window the person is in now, as `22:00–08:00` (None on a quiet day or outside windows)."""
    local = now.astimezone(tz)
    if local.isoweekday() in policy.quiet_days:
        return None
    for window in policy.quiet_hours:
        single = InteractionPolicy(quiet_hours=[window], quiet_days=[])
        if is_quiet(single, tz, now):
            return f"{window.start}–{window.end}"
    return None


def _held_notice(uow: UnitOfWork, concern: Concern, record: ActionRecord, *, first_try: bool) -> None:
    """Tell the originator the question is held and when it goes out (never "could not send")."""
    originator, target = (
        persons.get_or_404(uow, person_id=concern.originator_id),
        persons.get_or_404(uow, person_id=concern.target_person_id),
    )
    not_before = datetime.fromisoformat(record.result_detail["not_before"])
    tz = ZoneInfo(originator.timezone)
    window = None
    if record.result_detail["blocked_by"] == "L1:quiet_hours" and target.timezone == originator.timezone:
        window = _quiet_window(persons.policy_of(target), ZoneInfo(target.timezone), uow.now)
    flows.notice(
        uow,
        concern,
        to=concern.originator_id,
        key=f"held:{not_before.astimezone(ZoneInfo('UTC')):%Y%m%dT%H%M}",
        reactive=first_try,
        template="held",
        target=target.display_name,
        why=reasons.held(record.result_detail["blocked_by"], originator.locale, window=window),
        when=messages.when(not_before, tz, originator.locale, now=uow.now),
        text=concern.question,
        concern_id=concern.concern_id,
    )


def _asked(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    concern = service.get(uow, concern_id=entry.concern_id, lock=True)
    if concern is None:
        return
    first_try = request.request_key == f"{concern.concern_id}:question:1"
    if _reached(record) and record.result == "success":
        service.note_message(uow, concern, ref=f"{record.channel}:{record.result_detail.get('message_id')}")
    if concern.state not in ACTIVE_STATES:  # answered or closed while the send was on its way: nothing left to schedule
        return
    if _reached(record):
        count = concern.follow_up_count + (1 if entry.purpose == "follow_up" else 0)
        flows.schedule_after_contact(
            uow, concern, change=f"{entry.purpose}_sent", follow_up_count=count, causation_id=record.action_id
        )
        if first_try:
            template = (
                "risk_passed_on" if concern.approval else ("sent" if record.result == "success" else "sent_unconfirmed")
            )
            target = _name(uow, concern.target_person_id)
            _reply(
                uow,
                to=concern.originator_id,
                template=template,
                causation=concern.concern_id,
                origin_channel=concern.origin_channel,
                key=f"{concern.concern_id}:ack",
                chat_id=concern.origin_chat_id,
                buttons=None if concern.approval else "confirmation",
                target=target,
                maker=target,
                text=concern.question,
                concern_id=concern.concern_id,
            )
        return
    not_before = record.result_detail.get("not_before")
    if record.result == "blocked" and not_before:
        service.change(
            uow,
            concern,
            change="rescheduled",
            causation_id=record.action_id,
            step_at=datetime.fromisoformat(not_before),
            extra={"blocked_by": record.result_detail["blocked_by"]},
        )
        if entry.purpose == "question":
            _held_notice(uow, concern, record, first_try=first_try)
        return
    if (
        entry.purpose == "question"
        and contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)[1] is None
    ):
        service.change(
            uow,
            concern,
            change="undeliverable",
            causation_id=record.action_id,
            state="cancelled",
            step_at=None,
            pending_deliveries=[],
            extra={"reason": record.result_detail.get("blocked_by") or record.result_detail.get("error")},
        )
        originator = persons.get_or_404(uow, person_id=concern.originator_id)
        target = _name(uow, concern.target_person_id)
        flows.notice(
            uow,
            concern,
            to=concern.originator_id,
            key="outcome:undeliverable",
            reactive=first_try,
            template="undeliverable",
            target=target,
            reason=reasons.not_done(record.result_detail, originator.locale, target=target),
            text=concern.question,
        )
        return
    # A follow-up that could not go out counts as tried: no retry loop, move along the schedule.
    flows.schedule_after_contact(
        uow,
        concern,
        change=f"{entry.purpose}_failed",
        follow_up_count=concern.follow_up_count + 1,
        causation_id=record.action_id,
    )


def _nudged(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """A nudge that went out is a contact like any (the wait restarts); one held back or failed changes nothing
    but is explained to whoever asked for it (the check before queueing it said yes, the send said no)."""
    concern = service.get(uow, concern_id=entry.concern_id, lock=True)
    if concern is None:
        return
    if not _reached(record):
        if entry.ack_person_id:
            _reply(
                uow,
                to=entry.ack_person_id,
                template="nudge_refused",
                causation=request.decision_ref,
                origin_channel=entry.ack_channel,
                key=f"{entry.request_key}:ack",
                why=escalation.refusal(uow, concern, record.result_detail, to=entry.ack_person_id),
            )
        return
    if concern.state == "escalated":  # "Remind them": the escalation's own clock restarts from the reminder
        if record.result == "success":
            service.note_message(uow, concern, ref=f"{record.channel}:{record.result_detail.get('message_id')}")
        later = min(escalation.timer(uow, concern, since=uow.now), flows.expires_at(uow, concern))
        service.change(uow, concern, change="reminded", causation_id=record.action_id, step_at=later)
        return
    _asked(uow, entry, request, record)


def _escalated(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    concern = service.get(uow, concern_id=entry.concern_id, lock=True)
    if concern is None or concern.state not in ACTIVE_STATES or _defer(uow, concern, entry.purpose, request, record):
        return
    expires = uow.now + uow.settings.concern_expire_after
    if _reached(record):
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
    manager = _name(uow, request.target_person_id)
    tz = ZoneInfo(originator.timezone)
    flows.notice(
        uow,
        concern,
        to=concern.originator_id,
        key=f"outcome:escalation_failed{'' if previous is None else ':' + (request.target_person_id or '')}",
        template="escalation_failed",
        target=_name(uow, concern.target_person_id),
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


def _told(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """A relayed message: confirm it, hold it for its moment, or say why it could not be passed on."""
    if not entry.ack_person_id:
        return
    base, _, tries = entry.request_key.partition("#")
    attempt = int(tries or 1)
    teller = persons.get_or_404(uow, person_id=entry.ack_person_id)
    target = _name(uow, request.target_person_id)
    common = {
        "to": entry.ack_person_id,
        "causation": request.decision_ref,
        "origin_channel": entry.ack_channel,
        "chat_id": entry.ack_chat_id,
    }
    not_before = record.result_detail.get("not_before")
    if record.result == "success":
        if attempt == 1:
            _reply(uow, template="told", key=f"{base}:ack", target=target, **common)
    elif record.result == "blocked" and not_before and attempt < MAX_TELL_TRIES:
        again = request.model_copy(update={"request_key": f"{base}#{attempt + 1}"})
        queue.enqueue(
            uow,
            request=again,
            purpose="tell",
            ack_person_id=entry.ack_person_id,
            ack_channel=entry.ack_channel,
            ack_chat_id=entry.ack_chat_id,
            available_at=datetime.fromisoformat(not_before),
        )
        if attempt == 1:
            when = messages.when(
                datetime.fromisoformat(not_before), ZoneInfo(teller.timezone), teller.locale, now=uow.now
            )
            _reply(
                uow,
                template="told_later",
                key=f"{base}:ack",
                target=target,
                why=reasons.held(record.result_detail["blocked_by"], teller.locale),
                when=when,
                **common,
            )
    else:
        _reply(
            uow,
            template="not_told",
            key=f"{base}:ack" if attempt == 1 else f"{base}:ack#{attempt}",
            target=target,
            reactive=attempt == 1,
            reason=reasons.not_done(record.result_detail, teller.locale, target=target),
            **common,
        )


def _policy_changed(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    if not entry.ack_person_id:
        return
    person = persons.get_or_404(uow, person_id=entry.ack_person_id)
    template = "policy_updated" if record.result == "success" else "policy_failed"
    _reply(
        uow,
        to=entry.ack_person_id,
        template=template,
        causation=request.decision_ref,
        origin_channel=entry.ack_channel,
        chat_id=entry.ack_chat_id,
        key=f"{entry.request_key}:ack",
        reason=reasons.not_done(record.result_detail, person.locale, target=person.display_name),
        what=request.text,
    )


@dataclass(frozen=True)
class Declared:
    """What an outbox purpose means once its action has a result."""

    on_result: Callable[[UnitOfWork, OutboxEntry, ActionRequest, ActionRecord], None] = nothing
    # Decided for one version of its loop (a timer, a raise): a newer version (a reply, a cancel) supersedes it.
    versioned: bool = False


# Every purpose, declared once: the drainer applies `on_result` and guards the versioned ones.
PURPOSES: dict[Purpose, Declared] = {
    Purpose.question: Declared(_asked, versioned=True),
    Purpose.follow_up: Declared(_asked, versioned=True),
    Purpose.nudge: Declared(_nudged, versioned=True),
    Purpose.escalation: Declared(_escalated, versioned=True),
    Purpose.reminder: Declared(reminders.sent, versioned=True),
    Purpose.backflow: Declared(_held_on_concern),
    Purpose.outcome: Declared(_held_on_concern),
    Purpose.tell: Declared(_told),
    Purpose.policy: Declared(_policy_changed),
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
