"""What a question's (or a follow-up's) result means for its loop: the schedule starts and the originator hears it
went out; held by quiet hours, a pause or the cap, it waits for its moment and the originator is told when it goes
out (never "could not send"); one that cannot go out at all closes the loop and says why.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from action.ledger import contact_times
from action.models import ActionRecord, ActionRequest
from concern import holds, notices, receipts, service, timers
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from concern.outbox.confirm import name, reached, reply
from concern.texts import messages, reasons
from kernel.context import UnitOfWork
from person import service as persons
from person.models import InteractionPolicy
from person.rules import is_quiet


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
    notices.notice(
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


def _went_out(uow: UnitOfWork, concern: Concern, purpose: str, record: ActionRecord, *, first_try: bool) -> None:
    """It reached the person: the next step is scheduled; the first question's originator hears it went out."""
    count = concern.follow_up_count + (1 if purpose == "follow_up" else 0)
    timers.schedule_after_contact(
        uow,
        concern,
        change=f"{purpose}_sent",
        follow_up_count=count,
        causation_id=record.action_id,
        contact=receipts.contacted(record, at=uow.now),
    )
    if not first_try:
        return
    template = "risk_passed_on" if concern.approval else ("sent" if record.result == "success" else "sent_unconfirmed")
    target = name(uow, concern.target_person_id)
    reply(
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


def _undeliverable(uow: UnitOfWork, concern: Concern, record: ActionRecord, *, first_try: bool) -> None:
    """The question never reached anyone: the loop closes and the originator hears why."""
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
    target = name(uow, concern.target_person_id)
    notices.notice(
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


def asked(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """The result of a question or a follow-up, applied to its loop."""
    _applied(uow, entry.concern_id or "", entry.purpose, request, record)


def bundled(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    """The result of a bundle, applied to each of its loops as if its own follow-up had gone (or been held)."""
    for concern_id in request.concerns:
        _applied(uow, concern_id, "follow_up", request, record)


def _applied(uow: UnitOfWork, concern_id: str, purpose: str, request: ActionRequest, record: ActionRecord) -> None:
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None:
        return
    first_try = request.request_key == f"{concern.concern_id}:question:1"
    if reached(record) and record.result == "success":
        service.note_message(uow, concern, ref=f"{record.channel}:{record.result_detail.get('message_id')}")
    if concern.state not in ACTIVE_STATES:  # answered or closed while the send was on its way: nothing left to schedule
        return
    if reached(record):
        _went_out(uow, concern, purpose, record, first_try=first_try)
        return
    not_before = record.result_detail.get("not_before")
    if record.result == "blocked" and not_before:
        service.change(
            uow,
            concern,
            change="rescheduled",
            causation_id=record.action_id,
            step_at=datetime.fromisoformat(not_before),
            held_until=datetime.fromisoformat(not_before),
            held_by=holds.held_by(record.result_detail["blocked_by"]),
            extra={"blocked_by": record.result_detail["blocked_by"]},
        )
        if purpose == "question":
            _held_notice(uow, concern, record, first_try=first_try)
        return
    last = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)[1]
    if purpose == "question" and last is None:
        _undeliverable(uow, concern, record, first_try=first_try)
        return
    # A follow-up that could not go out counts as tried: no retry loop, move along the schedule.
    timers.schedule_after_contact(
        uow,
        concern,
        change=f"{purpose}_failed",
        follow_up_count=concern.follow_up_count + 1,
        causation_id=record.action_id,
    )
