"""`/v1/notifications` (run a notify now) and `/v1/actions` (the action ledger)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from action import service
from action.models import ActionRecord, ActionType, Result
from app.api.deps import Admin, Ctx, InstantQuery, Viewer, parse_instant
from concern import admin, commands
from concern.outbox import drain as outbox
from fact import service as facts
from fact import trace
from kernel.errors import NotFound
from kernel.pagination import KEY_CURSOR_SCHEMA, Page
from person import service as persons
from person.models import PERSON_ID_PATTERN

router = APIRouter(tags=["actions"])


class NotificationIn(BaseModel):
    """A one-way notice to send now, through all four layers."""

    model_config = ConfigDict(extra="forbid")

    target_person_id: str = Field(pattern=PERSON_ID_PATTERN)
    text: str = Field(min_length=1, max_length=4000)
    notification_type: str = Field("default", pattern=r"^[a-z][a-z0-9_]{0,63}$")
    priority: str = Field("P2", pattern=r"^P[0-3]$")


@router.post(
    "/v1/notifications",
    response_model=ActionRecord,
    responses={
        202: {"description": "pending: waiting for a send slot, or held until the person is back (held_by away)"}
    },
)
def send_notification(body: NotificationIn, ctx: Ctx, caller: Admin) -> Any:
    """Notify a person now: 200 with the Action record (success, blocked or failed), 202 while it waits for a send slot
    or, below P0, for its person's return (`result_detail.held_by` away, `held_until`).

    The decision and its queued action commit together, so a crash right after leaves the action to run, not lost.
    """
    with ctx.uow(actor=caller.name) as uow:
        persons.get_or_404(uow, person_id=body.target_person_id)
        queued = admin.carry_out(
            uow,
            commands.Notify(body.target_person_id, body.text, body.notification_type, body.priority),
            rule="admin_api:notifications",
            person_refs=[body.target_person_id],
            claimed_by=outbox.owner_token(),
        )
    key = queued.values["request_key"]
    outcome = outbox.run_owned(ctx, request_key=key)
    with ctx.reader() as uow:
        row = service.get_by_request_key(uow, request_key=key)
        record = service.to_record(row, tz=uow.tz)
    if outcome is None or record.result == Result.pending:
        return JSONResponse(record.model_dump(mode="json"), status_code=202)
    return record


@router.get("/v1/actions", response_model=Page)
def list_actions(
    ctx: Ctx,
    _: Viewer,
    person_id: Annotated[str | None, Query(max_length=64)] = None,
    action_type: ActionType | None = None,
    result: Result | None = None,
    since: InstantQuery = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(max_length=200, json_schema_extra=KEY_CURSOR_SCHEMA)] = None,
) -> Page:
    """Action records newest first."""
    with ctx.reader() as uow:
        rows, next_cursor = service.list_(
            uow,
            person_id=person_id,
            action_type=action_type.value if action_type else None,
            result=result.value if result else None,
            since=parse_instant(since, field="since", now=uow.now),
            limit=limit,
            cursor=cursor,
        )
        return Page(items=[service.to_record(r, tz=uow.tz) for r in rows], next_cursor=next_cursor)


@router.get("/v1/actions/{action_id}", response_model=ActionRecord)
def get_action(action_id: str, ctx: Ctx, _: Viewer) -> ActionRecord:
    """One action record."""
    with ctx.reader() as uow:
        row = service.get(uow, action_id=action_id)
        if row is None:
            raise NotFound(f"action {action_id} does not exist", field="action_id")
        return service.to_record(row, tz=uow.tz)


@router.get("/v1/actions/{action_id}/trace")
def trace_action(action_id: str, ctx: Ctx, _: Viewer) -> dict:
    """The causal chain of an action: its result fact, the decision or concern, and the signal facts that started it."""
    with ctx.reader() as uow:
        row = service.get(uow, action_id=action_id)
        if row is None:
            raise NotFound(f"action {action_id} does not exist", field="action_id")
        chain = trace.trace(uow, action_id=action_id, decision_ref=row.decision_ref)
        return {
            "action": service.to_record(row, tz=uow.tz).model_dump(mode="json"),
            "chain": [
                {
                    "kind": step["kind"],
                    "id": step["id"],
                    "fact": facts.to_out(step["fact"], uow=uow).model_dump(mode="json"),
                }
                for step in chain
            ],
        }
