"""Execute actions: check-and-reserve under a per-person lock, send with fallback, write back record + fact."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select, update

from action import ledger, routing, rules
from action.models import INTERNAL, PERSON_FACING, ActionRecord, ActionRequest, ActionRow, ActionType, Result, preview
from app.context import AppContext, UnitOfWork
from app.ids import allocate
from app.metrics import ACTIONS
from app.pagination import page_by_key
from channels.base import OutboundMessage
from channels.errors import ChannelError, Transient
from fact import service as facts
from person import service as persons
from person.models import InteractionPolicy
from person.rules import local_day_bounds

log = logging.getLogger("deputy.action")


def limits_from(ctx: AppContext) -> rules.Limits:
    """The layers' limits from settings."""
    s = ctx.settings
    return rules.Limits(
        max_active_concerns=s.max_active_concerns,
        max_active_concerns_per_person=s.max_active_concerns_per_person,
        concern_contact_limit=s.concern_contact_limit,
        concern_contact_window=s.concern_contact_window,
        follow_up_schedule=s.follow_up_schedule,
        cooldowns=s.notification_cooldowns,
    )


def to_record(row: Any, *, tz: Any) -> ActionRecord:
    """The SPEC §3.6 shape of a ledger row, its timestamp in the deployment timezone."""
    return ActionRecord(
        action_id=row.action_id, action_type=row.action_type, decision_ref=row.decision_ref, target_person_id=row.target_person_id,
        channel=row.channel, content_preview=row.content_preview, result=row.result, result_detail=row.result_detail,
        timestamp=row.timestamp.astimezone(tz),
    )


def _write_result_fact(uow: UnitOfWork, row: Any) -> None:
    content = to_record(row, tz=uow.tz).model_dump(mode="json")
    facts.append(
        uow, fact_type="action_result", source="action_layer", content=content,
        person_refs=[row.target_person_id] if row.target_person_id else [], causation_id=row.decision_ref,
    )


def _new_row(uow: UnitOfWork, request: ActionRequest, *, channel: str, result: Result, detail: dict[str, Any], write_fact: bool = True) -> Any:
    row = ledger.insert_action(uow, {
        "action_id": allocate(uow.session, "act", now=uow.now, tz=uow.tz), "action_type": request.action_type.value,
        "decision_ref": request.decision_ref, "target_person_id": request.target_person_id, "channel": channel,
        "content_preview": preview(request.text or str(request.operation or "")), "result": result.value, "result_detail": detail,
        "timestamp": uow.now, "created_at": uow.now, "concern_id": request.concern_id, "notification_type": request.notification_type,
        "priority": request.priority, "proactive": request.action_type in PERSON_FACING and not request.reactive,
        "request_key": request.request_key,
    })
    if result != Result.pending and write_fact:
        _write_result_fact(uow, row)
    return row


@dataclass(frozen=True)
class Reservation:
    """A pending action that passed every layer: where to try sending it, in order."""

    action_id: str
    locale: str
    route: list[tuple[str, str, str | None]]


@dataclass(frozen=True)
class Skipped:
    """The guard said the action is no longer wanted (e.g. a timer lost the race with a reply); nothing was recorded."""

    reason: str


Guard = Callable[[UnitOfWork], str | None]


def _reserve(ctx: AppContext, request: ActionRequest, actor: str, guard: Guard | None = None) -> ActionRecord | Reservation | Skipped:
    """Check the layers and, if allowed, reserve a pending row — one transaction under the person's lock."""
    with ctx.uow(actor=actor) as uow:
        ledger.lock_person(uow, person_id=request.target_person_id)
        if request.request_key:
            done = ledger.by_request_key(uow, request_key=request.request_key)
            if done is not None:  # executed before (a crash or a second drainer): never send twice
                return to_record(done, tz=uow.tz)
        if guard is not None and (reason := guard(uow)):
            return Skipped(reason)
        person = ledger.target(uow, person_id=request.target_person_id)
        if person is None or not person.active:
            error = "target_not_found" if person is None else "target_inactive"
            row = _new_row(uow, request, channel="internal", result=Result.failed, detail={"error": error, "reason": f"person {request.target_person_id} cannot be contacted ({error})", "attempts": []})
            return to_record(row, tz=uow.tz)
        policy, tz = InteractionPolicy.model_validate(person.interaction_policy), ZoneInfo(person.timezone)
        person_id = request.target_person_id
        limits = limits_from(ctx)
        start, end = local_day_bounds(uow.now, tz)
        concern = None
        if request.concern_id and request.action_type == ActionType.send_message:
            concern = ledger.concern_view(uow, concern_id=request.concern_id, person_id=person_id, limits=limits, now=uow.now)
        last_notice = None
        if request.action_type == ActionType.notify and not request.reactive:
            ntype = request.notification_type or "default"
            last_notice = ledger.last_notification_at(uow, person_id=person_id, notification_type=ntype, since=uow.now - limits.cooldown_for(ntype))
        snapshot = rules.Snapshot(
            action_type=request.action_type, now=uow.now, priority=request.priority, reactive=request.reactive, policy=policy, tz=tz,
            proactive_today=ledger.count_proactive(uow, person_id=person_id, start=start, end=end), limits=limits,
            concern=concern, follow_up=request.follow_up, notification_type=request.notification_type, last_same_notification_at=last_notice,
        )
        route = routing.candidates(ledger.bindings(uow, person_id=person_id), preferred=policy.preferred_channel, origin=request.origin_channel,
                                   reply=request.reactive)
        first_channel = route[0].channel if route else (policy.preferred_channel or "internal")
        verdict = rules.evaluate(snapshot)
        if not verdict.allowed:
            detail = {"blocked_by": verdict.blocked_by, "reason": verdict.reason}
            if verdict.not_before is not None:
                detail["not_before"] = verdict.not_before.astimezone(uow.tz).isoformat()
            return to_record(_new_row(uow, request, channel=first_channel, result=Result.blocked, detail=detail), tz=uow.tz)
        if not route:
            row = _new_row(uow, request, channel=first_channel, result=Result.failed, detail={"error": "no_reachable_binding", "reason": f"{person_id} has no reachable channel binding", "attempts": []})
            return to_record(row, tz=uow.tz)
        pending = _new_row(uow, request, channel=first_channel, result=Result.pending, detail={})
        return Reservation(pending.action_id, person.locale, [(b.channel, b.external_user_id, b.chat_id) for b in route])


def _send(ctx: AppContext, request: ActionRequest, reserved: Reservation) -> tuple[dict[str, Any], str, list[str]]:
    """Try each route in order; returns (result_detail, channel used or last tried, channels to mark unreachable)."""
    attempts: list[dict[str, Any]] = []
    unreachable: list[str] = []
    last_channel = reserved.route[0][0]
    for channel_name, external_user_id, chat_id in reserved.route:
        last_channel = channel_name
        channel = ctx.channels.get(channel_name)
        if channel is None:
            attempts.append({"channel": channel_name, "error": "not_configured", "message": f"channel {channel_name} is not configured"})
            continue
        message = OutboundMessage(idempotency_key=reserved.action_id, external_user_id=external_user_id, chat_id=chat_id, text=request.text, locale=reserved.locale)
        try:
            receipt = channel.send(message)
        except ChannelError as exc:
            attempts.append({"channel": channel_name, **exc.to_attempt()})
            if exc.kind == "unreachable" and exc.permanent:
                unreachable.append(channel_name)
            continue
        except Exception as exc:  # an adapter bug must not leave the action pending
            log.exception("channel %s raised outside the taxonomy", channel_name)
            attempts.append({"channel": channel_name, **Transient(f"adapter error: {type(exc).__name__}").to_attempt()})
            continue
        attempts.append({"channel": channel_name, "result": "success", "message_id": receipt.message_id, **receipt.detail})
        return {"message_id": receipt.message_id, "attempts": attempts}, channel_name, unreachable
    return {"error": "all_channels_failed", "reason": "every channel attempt failed", "attempts": attempts}, last_channel, unreachable


def _finalize(ctx: AppContext, *, action_id: str, result: Result, channel: str, detail: dict[str, Any], unreachable: list[str], actor: str) -> ActionRecord:
    """Write the outcome and its action_result fact in one transaction (only if still pending)."""
    with ctx.uow(actor=actor) as uow:
        row = ledger.finalize_action(uow, action_id=action_id, result=result.value, channel=channel, detail=detail)
        if row is None:
            # Recovery already finalised it as interrupted: keep that record, note the late truth.
            row = uow.session.scalars(select(ActionRow).where(ActionRow.action_id == action_id)).one()
            facts.append(uow, fact_type="system", source="action_layer", person_refs=[row.target_person_id] if row.target_person_id else [],
                          causation_id=action_id, content={"event": "late_action_outcome", "action_id": action_id, "result": result.value, "result_detail": detail})
        else:
            _write_result_fact(uow, row)
        for name in unreachable:
            persons.mark_unreachable(uow, person_id=row.target_person_id, channel=name, reason=f"{name} reported the person permanently unreachable")
        return to_record(row, tz=uow.tz)


def _execute_internal(ctx: AppContext, request: ActionRequest, actor: str) -> ActionRecord:
    """query / internal_update: no layers, one transaction, run on the internal channel."""
    with ctx.uow(actor=actor) as uow:
        internal = ctx.channels.get("internal")
        try:
            with uow.session.begin_nested():
                output = internal.run(uow, request.operation or {})
            result, detail = Result.success, {"output": output}
        except ChannelError as exc:
            result, detail = Result.failed, {"error": exc.kind, **exc.to_attempt()}
        # SPEC §4.4 exceptions: a query only for the current reply, or an update its truth source already recorded.
        recorded_elsewhere = result == Result.success and bool(detail["output"].get("recorded_fact_id"))
        row = _new_row(uow, request, channel="internal", result=result, detail=detail, write_fact=request.record_fact and not recorded_elsewhere)
        return to_record(row, tz=uow.tz)


def execute(ctx: AppContext, *, request: ActionRequest, actor: str = "system") -> ActionRecord:
    """Run one action through the layers and channels; always returns the final Action record."""
    outcome = execute_guarded(ctx, request=request, actor=actor)
    assert isinstance(outcome, ActionRecord)
    return outcome


def execute_guarded(ctx: AppContext, *, request: ActionRequest, guard: Guard | None = None, actor: str = "system") -> ActionRecord | Skipped:
    """Like `execute`, but `guard(uow)` runs inside the reserving transaction and may cancel the action."""
    outcome = _execute(ctx, request, actor, guard)
    if isinstance(outcome, ActionRecord):
        ACTIONS.labels(outcome.action_type, outcome.result, outcome.result_detail.get("blocked_by", "")).inc()
    return outcome


def _execute(ctx: AppContext, request: ActionRequest, actor: str, guard: Guard | None) -> ActionRecord | Skipped:
    if request.action_type in INTERNAL:
        return _execute_internal(ctx, request, actor)
    reserved = _reserve(ctx, request, actor, guard)
    if isinstance(reserved, (ActionRecord, Skipped)):
        return reserved
    detail, channel, unreachable = _send(ctx, request, reserved)
    result = Result.success if "message_id" in detail else Result.failed
    return _finalize(ctx, action_id=reserved.action_id, result=result, channel=channel, detail=detail, unreachable=unreachable, actor=actor)


def recover_interrupted(ctx: AppContext, *, older_than: timedelta) -> list[str]:
    """Finalise pending actions older than `older_than` as failed ("interrupted"); they are never re-sent."""
    recovered = []
    with ctx.uow(actor="system") as uow:
        cutoff = uow.now - older_than
        rows = list(uow.session.scalars(select(ActionRow).where(ActionRow.result == Result.pending.value, ActionRow.created_at <= cutoff)))
        for row in rows:
            changed = uow.session.execute(
                update(ActionRow).where(ActionRow.pk == row.pk, ActionRow.result == Result.pending.value).values(
                    result=Result.failed.value, timestamp=uow.now,
                    result_detail={"error": "interrupted", "reason": "the process ended between decision and send confirmation; not re-sent"},
                )
            ).rowcount
            if changed:
                uow.session.refresh(row)
                _write_result_fact(uow, row)
                recovered.append(row.action_id)
    return recovered


def get(uow: UnitOfWork, *, action_id: str) -> ActionRow | None:
    """The action with this id, or None."""
    return uow.session.scalars(select(ActionRow).where(ActionRow.action_id == action_id)).first()


def list_(uow: UnitOfWork, *, person_id: str | None = None, action_type: str | None = None, result: str | None = None,
          since: datetime | None = None, limit: int = 50, cursor: str | None = None) -> tuple[list[ActionRow], str | None]:
    """Actions newest first with the next page's cursor."""
    stmt = select(ActionRow)
    if person_id:
        stmt = stmt.where(ActionRow.target_person_id == person_id)
    if action_type:
        stmt = stmt.where(ActionRow.action_type == action_type)
    if result:
        stmt = stmt.where(ActionRow.result == result)
    if since:
        stmt = stmt.where(ActionRow.created_at >= since)
    return page_by_key(uow.session, stmt, ActionRow.pk, limit=limit, cursor=cursor)
