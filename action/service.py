"""Execute actions (the only code that acts), recover interrupted ones, and read the action ledger."""

from __future__ import annotations

from datetime import datetime, timedelta

from prometheus_client import Counter
from sqlalchemy import select, update

from action import delivery, execution, ledger, operations, routing, rules
from action.execution import ConcernStateOf, Finished, Guard, Reservation, limits_from, to_record, verdict_now
from action.models import INTERNAL, ActionRecord, ActionRequest, ActionRow, Outcome, Result, held
from action.rules import ConcernState
from channels.errors import ChannelError
from kernel.context import AppContext, UnitOfWork
from kernel.metrics import PROCESS_REGISTRY
from kernel.pagination import page_by_key
from person.models import InteractionPolicy

ACTIONS = Counter(
    "deputy_actions_total",
    "Executed actions by type and result",
    ["action_type", "result", "blocked_by"],
    registry=PROCESS_REGISTRY,
)
__all__ = [
    "execute",
    "execute_guarded",
    "hold",
    "admit",
    "verdict_now",
    "recover_interrupted",
    "get",
    "get_by_request_key",
    "list_",
    "to_record",
    "limits_from",
]


def execute(
    ctx: AppContext, *, request: ActionRequest, actor: str = "system", concern_state: ConcernStateOf | None = None
) -> ActionRecord:
    """Run one action through the layers and channels; the Action record (pending while a paced send waits)."""
    outcome = execute_guarded(ctx, request=request, actor=actor, concern_state=concern_state)
    if isinstance(outcome, ActionRecord):
        return outcome
    with ctx.reader() as uow:
        return to_record(ledger.by_action_id(uow, action_id=outcome.action_id), tz=uow.tz)


def execute_guarded(
    ctx: AppContext,
    *,
    request: ActionRequest,
    guard: Guard | None = None,
    actor: str = "system",
    concern_state: ConcernStateOf | None = None,
    on_finished: Finished | None = None,
    keep_urgent: delivery.KeepUrgent | None = None,
) -> Outcome:
    """Like `execute`, but `guard(uow)` runs inside the reserving transaction and may cancel the action, and
    `concern_state(uow)` gives L2 the loop's state (the concern engine supplies both; action knows no concerns).
    `on_finished(uow, record)` runs in the transaction that records a send's outcome (saving the caller one);
    `keep_urgent(uow)`, asked after a send and before its urgent calls, may drop them (the loop was read meanwhile).

    A request whose action is already pending comes back as `InFlight` (someone else is sending it) or
    `Deferred` (waiting for a pacing slot): never as a result.
    """
    if request.action_type in INTERNAL:
        outcome: Outcome = _execute_internal(ctx, request, actor)
    else:
        reserved = execution.reserve(ctx, request, actor, guard, concern_state)
        if isinstance(reserved, Reservation):
            outcome = _send(ctx, request, reserved, actor, on_finished, keep_urgent)
        else:
            outcome = reserved
    if isinstance(outcome, ActionRecord) and outcome.result != Result.pending:
        ACTIONS.labels(outcome.action_type, outcome.result, outcome.result_detail.get("blocked_by", "")).inc()
    return outcome


def admit(uow: UnitOfWork, *, request: ActionRequest, state: ConcernState) -> ActionRecord | None:
    """L2 on opening a loop, evaluated once, here: None when it may open, else the blocked question, recorded.

    Runs in the caller's transaction (the one that would create the concern), so the refusal and the
    decision that asked are recorded together.
    """
    verdict = rules.layer2_concern_limits(state, limits_from(uow.settings))
    if verdict.allowed:
        return None
    detail = {"blocked_by": verdict.blocked_by, "reason": verdict.reason}
    row = execution.new_row(uow, request, channel="internal", result=Result.blocked, detail=detail)
    ACTIONS.labels(row.action_type, row.result, verdict.blocked_by).inc()
    return to_record(row, tz=uow.tz)


def _send(
    ctx: AppContext,
    request: ActionRequest,
    reserved: Reservation,
    actor: str,
    on_finished: Finished | None,
    keep_urgent: delivery.KeepUrgent | None,
) -> Outcome:
    sent = delivery.send(ctx, request, reserved, keep_urgent=keep_urgent)
    if sent.paced_for is not None:
        return delivery.defer(ctx, action_id=reserved.action_id, sent=sent, actor=actor)
    return execution.finalize(
        ctx,
        action_id=reserved.action_id,
        sent=sent,
        actor=actor,
        on_finished=on_finished,
        request=request,
        kept=reserved.kept,
    )


def _execute_internal(ctx: AppContext, request: ActionRequest, actor: str) -> ActionRecord:
    """query / internal_update: no layers, one transaction, run on the internal channel."""
    with ctx.uow(actor=actor) as uow:
        if request.request_key and (done := ledger.by_request_key(uow, request_key=request.request_key)) is not None:
            return to_record(done, tz=uow.tz)
        try:
            with uow.session.begin_nested():
                output = operations.run(uow, action_type=request.action_type, operation=request.operation or {})
            result, detail = Result.success, {"output": output}
        except ChannelError as exc:
            result, detail = Result.failed, {"error": exc.kind, **exc.to_attempt()}
        # SPEC §4.4 exceptions: a query only for the current reply, or an update its truth source already recorded.
        recorded_elsewhere = result == Result.success and bool(detail["output"].get("recorded_fact_id"))
        row = execution.new_row(
            uow,
            request,
            channel="internal",
            result=result,
            detail=detail,
            write_fact=request.record_fact and not recorded_elsewhere,
        )
        return to_record(row, tz=uow.tz)


def hold(
    uow: UnitOfWork, *, request: ActionRequest, held_by: str, held_until: datetime | None, reason: str
) -> ActionRecord:
    """Record a send held for its person's moment: pending, not counted, `held_by` / `held_until` in its detail
    (null: open-ended). Running the same request later judges it then, on this row; held again, the moment moves."""
    until = held_until.astimezone(uow.tz).isoformat() if held_until is not None else None
    detail = {"held_by": held_by, "held_until": until, "reason": reason}
    row = ledger.by_request_key(uow, request_key=request.request_key)
    if row is None:
        person = ledger.target(uow, person_id=request.target_person_id)
        preferred = InteractionPolicy.model_validate(person.interaction_policy).preferred_channel if person else None
        bindings = ledger.bindings(uow, person_id=request.target_person_id)
        route = routing.candidates(bindings, preferred=preferred, origin=request.origin_channel)
        channel = route[0].channel if route else (preferred or "internal")
        row = execution.new_row(uow, request, channel=channel, result=Result.pending, detail=detail)
    elif held(row.result, row.result_detail) and row.result_detail != {**row.result_detail, **detail}:
        ledger.touch_pending(uow, action_id=row.action_id, detail=detail)
        row = ledger.by_action_id(uow, action_id=row.action_id)
    return to_record(row, tz=uow.tz)


def recover_interrupted(ctx: AppContext, *, older_than: timedelta) -> list[str]:
    """Finalise in-flight actions untouched for `older_than` as failed ("interrupted"); never re-sent.

    An interrupted action may well have been delivered, so it keeps counting toward the cap, L3 and L4.
    A send deferred by the service's own pacing, or held for its person (`hold`), is not in flight.
    """
    recovered = []
    with ctx.uow(actor="system") as uow:
        cutoff = uow.now - older_than
        stmt = select(ActionRow).where(ActionRow.result == Result.pending.value, ActionRow.timestamp <= cutoff)
        for row in uow.session.scalars(stmt):
            if row.result_detail.get("deferred_until") or row.result_detail.get("held_by"):
                continue  # waiting for its slot or its person's return: nothing is in flight
            detail = {
                "error": "interrupted",
                "reason": "the process ended between decision and send confirmation; not re-sent",
                "attempts": row.result_detail.get("attempts", []),
                **rules.kept_detail(row.result_detail),
            }
            changed = uow.session.execute(
                update(ActionRow)
                .where(ActionRow.pk == row.pk, ActionRow.result == Result.pending.value)
                .values(result=Result.failed.value, timestamp=uow.now, result_detail=detail, counted=True)
            ).rowcount
            if changed:
                uow.session.refresh(row)
                execution.write_result_fact(uow, row)
                recovered.append(row.action_id)
    return recovered


def get(uow: UnitOfWork, *, action_id: str) -> ActionRow | None:
    """The action with this id, or None."""
    return uow.session.scalars(select(ActionRow).where(ActionRow.action_id == action_id)).first()


def get_by_request_key(uow: UnitOfWork, *, request_key: str) -> ActionRow | None:
    """The action executed for a request key, or None (not run yet)."""
    return uow.session.scalars(select(ActionRow).where(ActionRow.request_key == request_key)).first()


def list_(
    uow: UnitOfWork,
    *,
    person_id: str | None = None,
    action_type: str | None = None,
    result: str | None = None,
    since: datetime | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[ActionRow], str | None]:
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
