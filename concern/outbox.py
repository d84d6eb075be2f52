"""Drain the action outbox: execute queued actions after their decision committed, then apply the results."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from action import service as actions
from action.models import ActionRecord, ActionRequest
from app.context import AppContext, UnitOfWork
from concern import flows, messages, service
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from fact import service as facts
from person import service as persons

log = logging.getLogger("deputy.concern.outbox")
# Purposes decided by a timer or a raise for a concern version: a newer version (a reply, a cancel) supersedes them.
VERSIONED = {"question", "follow_up", "escalation", "stall_notice"}
MAX_ROUNDS = 10


def _guard(entry: OutboxEntry):
    def check(uow: UnitOfWork) -> str | None:
        c = service.get(uow, concern_id=entry.concern_id, lock=True)
        if c is None or c.version != entry.concern_version or c.state not in ACTIVE_STATES:
            return f"superseded: concern {entry.concern_id} changed since the action was decided"
        return None

    return check


def drain(ctx: AppContext, *, limit: int = 100) -> int:
    """Execute open outbox entries (and the entries their results queue); returns how many ran."""
    ran = 0
    for _ in range(MAX_ROUNDS):
        with ctx.reader() as uow:
            entries = service.open_entries(uow, limit=limit)
        if not entries:
            break
        for entry in entries:
            try:
                run(ctx, entry)
            except Exception as exc:  # one broken entry must not block the queue
                log.exception("outbox entry %s failed", entry.request_key)
                _set_aside(ctx, entry, exc)
            ran += 1
    return ran


def _set_aside(ctx: AppContext, entry: OutboxEntry, exc: Exception) -> None:
    """Close a failing entry as `failed` with a system fact saying why."""
    with ctx.uow(actor="concern") as uow:
        if service.close_entry(uow, entry_id=entry.id, state="failed", action_id=None):
            facts.append(uow, fact_type="system", source="concern", causation_id=entry.request["decision_ref"],
                         content={"event": "outbox_entry_failed", "request_key": entry.request_key, "purpose": entry.purpose,
                                  "error": type(exc).__name__, "message": str(exc)[:500]})


def run(ctx: AppContext, entry: OutboxEntry) -> ActionRecord | None:
    """Execute one entry (idempotent by request_key) and apply its result exactly once."""
    request = ActionRequest.model_validate(entry.request)
    guard = _guard(entry) if entry.purpose in VERSIONED and entry.concern_id else None
    outcome = actions.execute_guarded(ctx, request=request, guard=guard, actor="concern")
    record = outcome if isinstance(outcome, ActionRecord) else None
    with ctx.uow(actor="concern") as uow:
        if not service.close_entry(uow, entry_id=entry.id, state="done" if record else "superseded", action_id=record.action_id if record else None):
            return record
        if record is not None:
            HANDLERS.get(entry.purpose, _nothing)(uow, entry, request, record)
    return record


def _nothing(*_: Any) -> None:
    return None


def _reply(uow: UnitOfWork, *, to: str, template: str, causation: str, origin_channel: str | None, key: str, **values: str) -> None:
    """Queue a reactive reply to `to` in their language."""
    person = persons.get(uow, person_id=to)
    if person is None:
        return
    text = messages.reply(template, person.locale, **values)
    request = ActionRequest(action_type="notify", decision_ref=causation, target_person_id=to, text=text, reactive=True,
                            origin_channel=origin_channel, notification_type="reply", request_key=key)
    service.enqueue(uow, request=request, purpose="reply")


def _name(uow: UnitOfWork, person_id: str) -> str:
    person = persons.get(uow, person_id=person_id)
    return person.display_name if person else person_id


def _reason(record: ActionRecord) -> str:
    d = record.result_detail
    return d.get("reason") or d.get("error") or record.result


def _defer(uow: UnitOfWork, c: Concern, purpose: str, request: ActionRequest, record: ActionRecord) -> bool:
    """Keep a blocked delivery on the concern for the earliest allowed moment; False if there is none."""
    not_before = record.result_detail.get("not_before")
    if record.result != "blocked" or not not_before:
        return False
    pending = [*c.pending_deliveries, {"purpose": purpose, "request": request.model_dump(mode="json"), "not_before": not_before, "blocked_by": record.result_detail["blocked_by"]}]
    nxt = min(datetime.fromisoformat(p["not_before"]) for p in pending)
    current = c.next_follow_up_at
    service.change(uow, c, change="delivery_deferred", pending_deliveries=pending, next_follow_up_at=min(nxt, current) if current else nxt,
                   extra={"purpose": purpose, "action_id": record.action_id, "blocked_by": record.result_detail["blocked_by"]})
    return True


def _asked(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    c = service.get(uow, concern_id=entry.concern_id, lock=True)
    if c is None:
        return
    first_ask = entry.purpose == "question" and not c.message_refs
    if record.result == "success":
        service.note_message(uow, c, ref=f"{record.channel}:{record.result_detail.get('message_id')}")
        count = c.follow_up_count + (1 if entry.purpose == "follow_up" else 0)
        flows.schedule_after_contact(uow, c, change=f"{entry.purpose}_sent", follow_up_count=count, causation_id=record.action_id)
        if first_ask:
            template = "risk_passed_on" if c.kind == "risk" else "sent"
            _reply(uow, to=c.originator_id, template=template, causation=c.concern_id, origin_channel=c.origin_channel, key=f"{c.concern_id}:ack",
                   target=_name(uow, c.target_person_id), maker=_name(uow, c.target_person_id), text=c.question, concern_id=c.concern_id)
        return
    not_before = record.result_detail.get("not_before")
    if record.result == "blocked" and not_before:
        service.change(uow, c, change="rescheduled", causation_id=record.action_id, next_follow_up_at=datetime.fromisoformat(not_before),
                       extra={"blocked_by": record.result_detail["blocked_by"]})
    elif entry.purpose == "question" and not c.message_refs:
        service.change(uow, c, change="undeliverable", causation_id=record.action_id, state="cancelled", next_follow_up_at=None, extra={"reason": _reason(record)})
    else:  # a follow-up that could not go out counts as tried: no retry loop, move along the schedule
        flows.schedule_after_contact(uow, c, change=f"{entry.purpose}_failed", follow_up_count=c.follow_up_count + 1, causation_id=record.action_id)
    if first_ask:
        _reply(uow, to=c.originator_id, template="not_sent", causation=c.concern_id, origin_channel=c.origin_channel, key=f"{c.concern_id}:ack",
               target=_name(uow, c.target_person_id), reason=_reason(record))


def _escalated(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    c = service.get(uow, concern_id=entry.concern_id, lock=True)
    if c is None or _defer(uow, c, entry.purpose, request, record):
        return
    if record.result == "success" and c.state == "waiting_reply":
        service.change(uow, c, change="escalated", causation_id=record.action_id, state="escalated", escalated_to=request.target_person_id, next_follow_up_at=None)
    elif record.result != "success" and entry.purpose == "escalation":
        service.change(uow, c, change="escalation_failed", causation_id=record.action_id, extra={"reason": _reason(record)})


def _backflow(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    c = service.get(uow, concern_id=entry.concern_id, lock=True)
    if c is not None:
        _defer(uow, c, "backflow", request, record)


def _told(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    if not entry.ack_person_id:
        return
    target = _name(uow, request.target_person_id or "")
    if record.result == "success":
        _reply(uow, to=entry.ack_person_id, template="told", causation=request.decision_ref, origin_channel=entry.ack_channel, key=f"{entry.request_key}:ack", target=target)
    else:
        _reply(uow, to=entry.ack_person_id, template="not_sent", causation=request.decision_ref, origin_channel=entry.ack_channel, key=f"{entry.request_key}:ack",
               target=target, reason=_reason(record))


def _policy_changed(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, record: ActionRecord) -> None:
    if entry.ack_person_id:
        template = "policy_updated" if record.result == "success" else "not_sent"
        _reply(uow, to=entry.ack_person_id, template=template, causation=request.decision_ref, origin_channel=entry.ack_channel,
               key=f"{entry.request_key}:ack", target=_name(uow, entry.ack_person_id), reason=_reason(record))


HANDLERS = {"tell": _told, "policy": _policy_changed, "question": _asked, "follow_up": _asked, "escalation": _escalated, "stall_notice": _escalated, "backflow": _backflow}
