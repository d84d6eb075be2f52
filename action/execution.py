"""How one action runs: check-and-reserve under the person's lock, send with fallback, finalise with its fact.

Each step is its own short transaction; the channel send happens between them, outside any transaction.
A request key makes the whole thing idempotent: a second execution of the same request finds the first
one's record (finished), its reservation in flight (someone else is sending), or its deferred reservation
(the service's own pacing had no slot; the request's owner sends it at the slot time).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from action import buttons, ledger, routing, rules, sandbox, snapshots
from action.delivery import Reservation, Sent
from action.models import (
    ActionRecord,
    ActionRequest,
    Deferred,
    InFlight,
    Result,
    Skipped,
    counts,
    preview,
)
from action.models import held as is_held
from action.snapshots import ConcernStateOf, limits_from, verdict_now  # noqa: F401  (the service's names)
from fact import service as facts
from kernel.context import AppContext, UnitOfWork
from kernel.ids import allocate
from person import service as persons
from person.models import InteractionPolicy

log = logging.getLogger("deputy.action")
Guard = Callable[[UnitOfWork], str | None]
# Called with the finished record inside the transaction that records it (the outbox applies its result there).
Finished = Callable[[UnitOfWork, "ActionRecord"], None]


def to_record(row: Any, *, tz: Any) -> ActionRecord:
    """The SPEC §3.6 shape of a ledger row, its timestamp in the deployment timezone."""
    return ActionRecord(
        action_id=row.action_id,
        action_type=row.action_type,
        decision_ref=row.decision_ref,
        target_person_id=row.target_person_id,
        channel=row.channel,
        content_preview=row.content_preview,
        result=row.result,
        result_detail=row.result_detail,
        timestamp=row.timestamp.astimezone(tz),
    )


def write_result_fact(uow: UnitOfWork, row: Any) -> None:
    """The action_result fact: exactly the Action record."""
    content = to_record(row, tz=uow.tz).model_dump(mode="json")
    facts.append(
        uow,
        fact_type="action_result",
        source="action_layer",
        content=content,
        person_refs=[row.target_person_id] if row.target_person_id else [],
        causation_id=row.decision_ref,
    )


def new_row(
    uow: UnitOfWork,
    request: ActionRequest,
    *,
    channel: str,
    result: Result,
    detail: dict[str, Any],
    write_fact: bool = True,
    person: Any = None,
) -> Any:
    """Insert an action row (and its fact, unless it is pending); its detail says how the layers judged it."""
    judged = _judged(uow, request, person)
    detail = {**detail, **judged}
    row = ledger.insert_action(
        uow,
        {
            "action_id": allocate(uow.session, "act", now=uow.now, tz=uow.tz),
            "action_type": request.action_type.value,
            "decision_ref": request.decision_ref,
            "target_person_id": request.target_person_id,
            "channel": channel,
            "content_preview": preview(request.text or str(request.operation or "")),
            "result": result.value,
            "result_detail": detail,
            "timestamp": uow.now,
            "created_at": uow.now,
            "concern_id": request.concern_id,
            "notification_type": request.notification_type,
            "priority": request.priority,
            "proactive": judged["proactive"],
            "request_key": request.request_key,
            "counted": counts(result, detail),
            "solicited": request.solicited,
        },
        bundled=request.concerns,
    )
    if result != Result.pending and write_fact:
        write_result_fact(uow, row)
    return row


def _judged(uow: UnitOfWork, request: ActionRequest, person: Any = None) -> dict[str, Any]:
    """The politeness keys of a judgement made now (and a bundle's loops)."""
    target = person
    if target is None and request.target_person_id:  # not read yet in this transaction (reserve reads it first)
        target = ledger.target(uow, person_id=request.target_person_id)
    judged = rules.politeness(
        action_type=request.action_type,
        priority=request.priority,
        reactive=request.reactive,
        solicited=request.solicited,
        at=uow.now,
        tz=ZoneInfo(target.timezone) if target else uow.tz,
    )
    return judged | ({"concerns": request.concerns} if request.concerns else {})


def _row(
    uow: UnitOfWork, request: ActionRequest, held: Any, *, channel: str, result: Result, detail: dict, person=None
) -> Any:
    """A new action row, or the held one judged at last (its action_id is what the operator was answered)."""
    if held is None:
        return new_row(uow, request, channel=channel, result=result, detail=detail, person=person)
    detail = {**detail, **_judged(uow, request, person)}
    row = ledger.settle_held(uow, action_id=held.action_id, result=result.value, channel=channel, detail=detail)
    if result != Result.pending:
        write_result_fact(uow, row)
    return row


def _done(uow: UnitOfWork, request: ActionRequest, held: Any, **row: Any) -> ActionRecord:
    """The record of an action that ends here, unsent (blocked, failed): `row` as `_row` takes it."""
    return to_record(_row(uow, request, held, **row), tz=uow.tz)


def _existing(
    uow: UnitOfWork, row: Any, request: ActionRequest, guard: Guard | None
) -> ActionRecord | Reservation | Skipped | InFlight | Deferred:
    """What a request key already has: a result, someone else's send, or a deferred send that is ours to finish."""
    if row.result != Result.pending.value:
        return to_record(row, tz=uow.tz)  # executed before (a crash or a second drainer): never send twice
    deferred = row.result_detail.get("deferred_until")
    if deferred is None:
        return InFlight(row.action_id)
    until = datetime.fromisoformat(deferred)
    if until > uow.now:
        return Deferred(row.action_id, until)
    if guard is not None and (reason := guard(uow)):
        detail = {"error": "superseded", "reason": reason, "attempts": row.result_detail.get("attempts", [])}
        detail |= rules.kept_detail(row.result_detail)
        done = ledger.finalize_action(
            uow, action_id=row.action_id, result=Result.failed.value, channel=row.channel, detail=detail
        )
        write_result_fact(uow, done)
        return to_record(done, tz=uow.tz)
    ledger.touch_pending(uow, action_id=row.action_id, detail={})
    target = ledger.target(uow, person_id=request.target_person_id)
    route = [tuple(r) for r in row.result_detail.get("route", [])]
    attempts = tuple(row.result_detail.get("attempts", []))
    locale = target.locale if target else "zh"
    return Reservation(row.action_id, locale, route, attempts, kept=rules.kept_detail(row.result_detail))


def reserve(
    ctx: AppContext,
    request: ActionRequest,
    actor: str,
    guard: Guard | None = None,
    concern_state: ConcernStateOf | None = None,
) -> Any:
    """Check the layers and, if allowed, reserve a pending row: one transaction under the person's lock."""
    with ctx.uow(actor=actor) as uow:
        ledger.lock_person(uow, person_id=request.target_person_id)
        held = None
        if request.request_key and (done := ledger.by_request_key(uow, request_key=request.request_key)) is not None:
            if not is_held(done.result, done.result_detail):
                return _existing(uow, done, request, guard)
            held = done  # held for its person's return: judged now, as if new, on its own row
        if guard is not None and (reason := guard(uow)):
            return Skipped(reason)
        if request.target_person_id is None and request.destination is not None:
            return _reserve_for_chat(uow, request)
        seen = snapshots.read(ctx, uow, request)
        person = seen.person
        if person is None or not person.active:
            error = "target_not_found" if person is None else "target_inactive"
            detail = {
                "error": error,
                "reason": f"person {request.target_person_id} cannot be contacted ({error})",
                "attempts": [],
            }
            return _done(uow, request, held, channel="internal", result=Result.failed, detail=detail)
        policy = InteractionPolicy.model_validate(person.interaction_policy)
        snapshot = snapshots.snapshot(ctx, uow, request, seen, concern_state(uow) if concern_state else None)
        route = routing.candidates(
            seen.bindings,
            preferred=policy.preferred_channel,
            origin=request.origin_channel,
            reply=request.reactive,
            destination=request.destination,
            first=request.channel_first,
        )
        first_channel = route[0].channel if route else (policy.preferred_channel or "internal")
        verdict = rules.evaluate(snapshot)
        if not verdict.allowed:
            detail = {"blocked_by": verdict.blocked_by, "reason": verdict.reason}
            if verdict.not_before is not None:
                detail["not_before"] = verdict.not_before.astimezone(uow.tz).isoformat()
            return _done(uow, request, held, channel=first_channel, result=Result.blocked, detail=detail, person=person)
        if not route:
            detail = {
                "error": "no_reachable_binding",
                "reason": f"{request.target_person_id} has no reachable channel binding",
                "attempts": [],
            }
            return _done(uow, request, held, channel=first_channel, result=Result.failed, detail=detail, person=person)
        # The person row read above, under the person's lock, is the one judged: no second read of it.
        pending = _row(uow, request, held, channel=first_channel, result=Result.pending, detail={}, person=person)
        route_of = [(b.channel, b.external_user_id, b.chat_id) for b in route]
        kept = rules.kept_detail(pending.result_detail)
        decision = seen.decision if snapshots.decision_key(request) else sandbox.UNREAD
        born = sandbox.born_on_route(ctx, uow, request, [c for c, _, _ in route_of], decision=decision)
        return Reservation(pending.action_id, person.locale, route_of, kept=kept, born_in_sandbox=born)


def _reserve_for_chat(uow: UnitOfWork, request: ActionRequest) -> Reservation:
    """A reactive reply to a chat, not to a person (an unknown sender's /help): no person's layers apply."""
    [route] = routing.candidates([], preferred=None, origin=None, destination=request.destination)
    pending = new_row(uow, request, channel=route.channel, result=Result.pending, detail={})
    route_of = [(route.channel, route.external_user_id, route.chat_id)]
    return Reservation(pending.action_id, "zh", route_of, kept=rules.kept_detail(pending.result_detail))


def finalize(
    ctx: AppContext,
    *,
    action_id: str,
    sent: Sent,
    actor: str,
    on_finished: Finished | None = None,
    request: ActionRequest | None = None,
    kept: dict[str, Any] | None = None,
) -> ActionRecord:
    """Write the outcome and its action_result fact in one transaction (only if still pending); `on_finished`
    runs in it too, and the request's buttons learn the message they are on. `kept`: the reservation's
    `kept_detail` (read again from the row when not given)."""
    result = Result.success if "message_id" in sent.detail else Result.failed
    detail = {**sent.detail, "items": request.carries} if request is not None and request.carries else sent.detail
    with ctx.uow(actor=actor) as uow:
        row = ledger.finalize_action(
            uow, action_id=action_id, result=result.value, channel=sent.channel, detail=detail, kept=kept
        )
        if row is None:
            # Recovery already finalised it as interrupted: keep that record, note the late truth.
            row = ledger.by_action_id(uow, action_id=action_id)
            facts.append(
                uow,
                fact_type="system",
                source="action_layer",
                person_refs=[row.target_person_id] if row.target_person_id else [],
                causation_id=action_id,
                content={
                    "event": "late_action_outcome",
                    "action_id": action_id,
                    "result": result.value,
                    "result_detail": sent.detail,
                },
            )
        else:
            write_result_fact(uow, row)
        for name in sent.unreachable:
            persons.mark_unreachable(
                uow,
                person_id=row.target_person_id,
                channel=name,
                reason=f"{name} reported the person permanently unreachable",
            )
        if request is not None and request.buttons and result == Result.success:
            buttons.attach(
                uow,
                tokens=[b.token for b in request.buttons],
                channel=sent.channel,
                chat_id=sent.detail.get("chat_id"),
                message_id=sent.detail.get("buttons_message_id") or sent.detail.get("message_id"),
                text=request.text,
            )
        record = to_record(row, tz=uow.tz)
        if on_finished is not None:
            on_finished(uow, record)
        return record
