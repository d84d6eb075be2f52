"""How one action runs: check-and-reserve under the person's lock, send with fallback, finalise with its fact.

Each step is its own short transaction; the channel send happens between them, outside any transaction.
A request key makes the whole thing idempotent: a second execution of the same request finds the first
one's record (finished), its reservation in flight (someone else is sending), or its deferred reservation
(the service's own pacing had no slot; the request's owner sends it at the slot time).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from prometheus_client import Histogram

from action import buttons, ledger, routing, rules
from action.models import (
    PERSON_FACING,
    ActionRecord,
    ActionRequest,
    Deferred,
    InFlight,
    Result,
    Skipped,
    counts,
    preview,
)
from channels.base import Button, MediaRef, MessageEdit, OutboundMessage, SendReceipt
from channels.errors import ChannelError, InvalidRequest, Paced, Transient
from fact import service as facts
from kernel.context import AppContext, UnitOfWork
from kernel.ids import allocate
from kernel.metrics import PROCESS_REGISTRY
from person import service as persons
from person.models import InteractionPolicy
from person.rules import local_day_bounds

log = logging.getLogger("deputy.action")
CHANNEL_SEND = Histogram(
    "deputy_channel_send_seconds",
    "One send through a channel: seconds, by channel and result (success, paced, or the error kind)",
    ["channel", "result"],
    registry=PROCESS_REGISTRY,
)
Guard = Callable[[UnitOfWork], str | None]
# The concern layer's word on the loop an action belongs to, asked inside the reserving transaction.
ConcernStateOf = Callable[[UnitOfWork], "rules.ConcernState | None"]
# Called with the finished record inside the transaction that records it (the outbox applies its result there).
Finished = Callable[[UnitOfWork, "ActionRecord"], None]


@dataclass(frozen=True)
class Reservation:
    """A pending action that passed every layer: where to try sending it, in order, and what was tried already."""

    action_id: str
    locale: str
    route: list[tuple[str, str, str | None]]
    attempts: tuple[dict[str, Any], ...] = ()


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
) -> Any:
    """Insert an action row (and its fact, unless it is pending)."""
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
            "proactive": request.action_type in PERSON_FACING and not request.reactive,
            "request_key": request.request_key,
            "counted": counts(result, detail),
            "solicited": request.solicited,
        },
    )
    if result != Result.pending and write_fact:
        write_result_fact(uow, row)
    return row


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
        done = ledger.finalize_action(
            uow, action_id=row.action_id, result=Result.failed.value, channel=row.channel, detail=detail
        )
        write_result_fact(uow, done)
        return to_record(done, tz=uow.tz)
    ledger.touch_pending(uow, action_id=row.action_id, detail={})
    target = ledger.target(uow, person_id=request.target_person_id)
    route = [tuple(r) for r in row.result_detail.get("route", [])]
    return Reservation(
        row.action_id, target.locale if target else "zh", route, tuple(row.result_detail.get("attempts", []))
    )


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
        if request.request_key and (done := ledger.by_request_key(uow, request_key=request.request_key)) is not None:
            return _existing(uow, done, request, guard)
        if guard is not None and (reason := guard(uow)):
            return Skipped(reason)
        if request.target_person_id is None and request.destination is not None:
            return _reserve_for_chat(uow, request)
        person = ledger.target(uow, person_id=request.target_person_id)
        if person is None or not person.active:
            error = "target_not_found" if person is None else "target_inactive"
            detail = {
                "error": error,
                "reason": f"person {request.target_person_id} cannot be contacted ({error})",
                "attempts": [],
            }
            return to_record(new_row(uow, request, channel="internal", result=Result.failed, detail=detail), tz=uow.tz)
        policy, tz = InteractionPolicy.model_validate(person.interaction_policy), ZoneInfo(person.timezone)
        snapshot = _snapshot(ctx, uow, request, policy, tz, concern_state(uow) if concern_state else None)
        route = routing.candidates(
            ledger.bindings(uow, person_id=request.target_person_id),
            preferred=policy.preferred_channel,
            origin=request.origin_channel,
            reply=request.reactive,
            destination=request.destination,
        )
        first_channel = route[0].channel if route else (policy.preferred_channel or "internal")
        verdict = rules.evaluate(snapshot)
        if not verdict.allowed:
            detail = {"blocked_by": verdict.blocked_by, "reason": verdict.reason}
            if verdict.not_before is not None:
                detail["not_before"] = verdict.not_before.astimezone(uow.tz).isoformat()
            return to_record(
                new_row(uow, request, channel=first_channel, result=Result.blocked, detail=detail), tz=uow.tz
            )
        if not route:
            detail = {
                "error": "no_reachable_binding",
                "reason": f"{request.target_person_id} has no reachable channel binding",
                "attempts": [],
            }
            return to_record(
                new_row(uow, request, channel=first_channel, result=Result.failed, detail=detail), tz=uow.tz
            )
        pending = new_row(uow, request, channel=first_channel, result=Result.pending, detail={})
        return Reservation(
            pending.action_id, person.locale, [(b.channel, b.external_user_id, b.chat_id) for b in route]
        )


def _reserve_for_chat(uow: UnitOfWork, request: ActionRequest) -> Reservation:
    """A reactive reply to a chat, not to a person (an unknown sender's /help): no person's layers apply."""
    [route] = routing.candidates([], preferred=None, origin=None, destination=request.destination)
    pending = new_row(uow, request, channel=route.channel, result=Result.pending, detail={})
    return Reservation(pending.action_id, "zh", [(route.channel, route.external_user_id, route.chat_id)])


def _naming_chat(request: ActionRequest, detail: dict[str, Any]) -> dict[str, Any]:
    """A send to an explicit destination says which chat in its result_detail."""
    if request.destination is not None:
        detail["chat"] = {"channel": request.destination.channel, "chat_id": request.destination.chat_id}
    return detail


def _snapshot(
    ctx: AppContext,
    uow: UnitOfWork,
    request: ActionRequest,
    policy: InteractionPolicy,
    tz: ZoneInfo,
    state: rules.ConcernState | None,
) -> rules.Snapshot:
    """Everything the four layers read, in the reserving transaction."""
    person_id, limits = request.target_person_id, limits_from(ctx.settings)
    start, end = local_day_bounds(uow.now, tz)
    concern = None
    if request.concern_id and request.action_type == "send_message":
        concern = ledger.concern_view(
            uow, concern_id=request.concern_id, person_id=person_id, state=state, limits=limits, now=uow.now
        )
    last_notice = None
    if request.action_type == "notify" and not request.reactive:
        ntype = request.notification_type or "default"
        last_notice = ledger.last_notification_at(
            uow,
            person_id=person_id,
            notification_type=ntype,
            since=uow.now - limits.cooldown_for(ntype),
            concern_id=request.concern_id if request.solicited else None,
        )
    return rules.Snapshot(
        action_type=request.action_type,
        now=uow.now,
        priority=request.priority,
        reactive=request.reactive,
        policy=policy,
        tz=tz,
        proactive_today=ledger.count_proactive(uow, person_id=person_id, start=start, end=end),
        limits=limits,
        concern=concern,
        follow_up=request.follow_up,
        notification_type=request.notification_type,
        last_same_notification_at=last_notice,
        solicited=request.solicited,
        explicit=request.explicit,
    )


def limits_from(settings: Any) -> rules.Limits:
    """The layers' limits from settings."""
    s = settings
    return rules.Limits(
        max_active_concerns=s.max_active_concerns,
        max_active_concerns_per_person=s.max_active_concerns_per_person,
        concern_contact_limit=s.concern_contact_limit,
        concern_contact_window=s.concern_contact_window,
        follow_up_schedule=s.follow_up_schedule,
        cooldowns=s.notification_cooldowns,
    )


@dataclass(frozen=True)
class Sent:
    """What the channels said: a final detail, or a slot to wait for (`paced_for` seconds)."""

    detail: dict[str, Any]
    channel: str
    unreachable: list[str]
    paced_for: float | None = None


def send(ctx: AppContext, request: ActionRequest, reserved: Reservation) -> Sent:
    """Try each route in order; stop at the first success, or at the service's own pacing (defer, do not fail)."""
    attempts: list[dict[str, Any]] = list(reserved.attempts)
    unreachable: list[str] = []
    last_channel = reserved.route[0][0] if reserved.route else "internal"
    for index, (channel_name, external_user_id, chat_id) in enumerate(reserved.route):
        last_channel = channel_name
        channel = ctx.channels.get(channel_name)
        if channel is None:
            attempts.append(
                {
                    "channel": channel_name,
                    "error": "not_configured",
                    "message": f"channel {channel_name} is not configured",
                }
            )
            continue
        started = time.perf_counter()
        try:
            receipt = _deliver(channel, request, reserved, external_user_id, chat_id)
        except Paced as exc:  # nothing reached the platform: send this same action at the slot, on this channel
            CHANNEL_SEND.labels(channel_name, "paced").observe(time.perf_counter() - started)
            detail = {"attempts": attempts, "route": [list(r) for r in reserved.route[index:]]}
            return Sent(detail, channel_name, unreachable, paced_for=max(exc.retry_after or 1.0, 0.05))
        except ChannelError as exc:
            CHANNEL_SEND.labels(channel_name, exc.kind).observe(time.perf_counter() - started)
            attempts.append({"channel": channel_name, **exc.to_attempt()})
            if exc.kind == "unreachable" and exc.permanent and request.destination is None:  # a group is not them
                unreachable.append(channel_name)
            if exc.possibly_delivered:  # it may have arrived: another channel could make it arrive twice
                break
            continue
        except Exception as exc:  # an adapter bug must not leave the action pending
            CHANNEL_SEND.labels(channel_name, "error").observe(time.perf_counter() - started)
            log.exception("channel %s raised outside the taxonomy", channel_name)
            attempts.append({"channel": channel_name, **Transient(f"adapter error: {type(exc).__name__}").to_attempt()})
            continue
        CHANNEL_SEND.labels(channel_name, "success").observe(time.perf_counter() - started)
        attempts.append(
            {"channel": channel_name, "result": "success", "message_id": receipt.message_id, **receipt.detail}
        )
        detail = {"message_id": receipt.message_id, "chat_id": chat_id or external_user_id, "attempts": attempts}
        if receipt.detail.get("buttons_message_id"):  # a split text or a media copy: the buttons sit on that one
            detail["buttons_message_id"] = receipt.detail["buttons_message_id"]
        return Sent(_naming_chat(request, detail), channel_name, unreachable)
    return Sent(
        _naming_chat(
            request, {"error": "all_channels_failed", "reason": "every channel attempt failed", "attempts": attempts}
        ),
        last_channel,
        unreachable,
    )


def _deliver(
    channel: Any, request: ActionRequest, reserved: Reservation, external_user_id: str, chat_id: str | None
) -> SendReceipt:
    """One try on one channel: an edit of a message the bot sent, or a new message (with its buttons and media).

    An edit the platform cannot make (a plain-text Feishu message, a message too old to edit) becomes a new
    message with the same text: the person still sees the outcome.
    """
    buttons = tuple(Button(label=b.label, token=b.token, style=b.style) for b in request.buttons)
    target = request.destination
    if target is not None and target.message_id:
        try:
            return channel.edit(
                MessageEdit(
                    idempotency_key=reserved.action_id,
                    chat_id=target.chat_id,
                    message_id=target.message_id,
                    text=request.text,
                    buttons=buttons,
                    locale=reserved.locale,
                )
            )
        except InvalidRequest as exc:
            if not exc.permanent:
                raise
            log.info("edit refused on %s (%s): sending the outcome as a new message", channel.name, exc.code)
    media = None
    if request.media and request.media.get("channel") == channel.name:
        media = MediaRef(**{k: v for k, v in request.media.items() if k != "note"})
    return channel.send(
        OutboundMessage(
            idempotency_key=reserved.action_id,
            external_user_id=external_user_id,
            chat_id=chat_id,
            text=request.text if media or not request.media else _with_media_note(request),
            locale=reserved.locale,
            buttons=buttons,
            media=media,
        )
    )


def _with_media_note(request: ActionRequest) -> str:
    """Media from another platform cannot be passed on as itself (nor as a link that needs a token): say what it was."""
    return f"{request.text}\n{request.media.get('note', '')}".strip() if request.media else request.text


def defer(ctx: AppContext, *, action_id: str, sent: Sent, actor: str) -> Deferred:
    """Keep the reservation pending until the pacing slot; the request's owner sends it then."""
    with ctx.uow(actor=actor) as uow:
        until = uow.now + timedelta(seconds=sent.paced_for or 1.0)
        ledger.touch_pending(uow, action_id=action_id, detail={**sent.detail, "deferred_until": until.isoformat()})
        return Deferred(action_id, until)


def finalize(
    ctx: AppContext,
    *,
    action_id: str,
    sent: Sent,
    actor: str,
    on_finished: Finished | None = None,
    request: ActionRequest | None = None,
) -> ActionRecord:
    """Write the outcome and its action_result fact in one transaction (only if still pending); `on_finished`
    runs in it too, and the request's buttons learn the message they are on."""
    result = Result.success if "message_id" in sent.detail else Result.failed
    with ctx.uow(actor=actor) as uow:
        row = ledger.finalize_action(
            uow, action_id=action_id, result=result.value, channel=sent.channel, detail=sent.detail
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


def verdict_now(
    uow: UnitOfWork, *, request: ActionRequest, concern_state: ConcernStateOf | None = None
) -> rules.Verdict:
    """What the layers would say about `request` right now, reserving and recording nothing (a button's toast).

    The truth stays with `reserve`: a send may still meet a refusal that came up in between.
    """
    person = ledger.target(uow, person_id=request.target_person_id)
    if person is None or not person.active:
        error = "target_not_found" if person is None else "target_inactive"
        return rules.Verdict(allowed=False, blocked_by=error, reason=f"person cannot be contacted ({error})")
    policy, tz = InteractionPolicy.model_validate(person.interaction_policy), ZoneInfo(person.timezone)
    # The unit of work carries the settings `_snapshot` reads from the context.
    snapshot = _snapshot(uow, uow, request, policy, tz, concern_state(uow) if concern_state else None)  # type: ignore[arg-type]
    return rules.evaluate(snapshot)
