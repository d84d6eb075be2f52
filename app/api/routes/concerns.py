"""`/v1/concerns` and `/v1/scheduler/tick`."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from fastapi import APIRouter, BackgroundTasks, Query
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from action import service as actions
from action.models import ActionRow
from app.api.deps import Admin, Ctx, Pipeline, Viewer
from concern import admin, commands, service
from concern.outbox import drain as outbox
from concern.outcomes import Outcome, Refused
from kernel.context import AppContext
from kernel.errors import Conflict
from kernel.instants import OptionalInstant
from kernel.limits import local_isoformat
from kernel.pagination import TIME_CURSOR_SCHEMA, Page
from person import service as persons
from person.calendar import with_calendar
from person.models import PERSON_ID_PATTERN

router = APIRouter(tags=["concerns"])
State = Literal["waiting_reply", "resolved", "escalated", "cancelled", "expired"]
Kind = Literal["question", "commitment", "reminder"]
MAX_DEADLINE_AHEAD = timedelta(days=366)  # "within a year", also across a 29 February


class ConcernIn(BaseModel):
    """`POST /v1/concerns` body."""

    model_config = ConfigDict(extra="forbid")

    originator_id: str = Field(pattern=PERSON_ID_PATTERN)
    target_person_id: str = Field(pattern=PERSON_ID_PATTERN)
    question: str = Field(min_length=1, max_length=2000)
    priority: Literal["P0", "P1", "P2", "P3"] = "P1"
    deadline: OptionalInstant = None

    def check_deadline(self, *, now: datetime) -> None:
        """409 naming `deadline` unless it lies in the future and at most a year ahead of `now`."""
        if self.deadline is not None and self.deadline <= now:
            raise Conflict("deadline must be in the future", field="deadline")
        if self.deadline is not None and self.deadline > now + MAX_DEADLINE_AHEAD:
            raise Conflict(f"deadline must be within {MAX_DEADLINE_AHEAD.days} days from now", field="deadline")


TIMES = (
    "deadline",
    "due_at",
    "next_follow_up_at",
    "created_at",
    "updated_at",
    "resolved_at",
    "escalated_at",
    "acknowledged_at",
)


def concern_out(uow: Any, concern: Any) -> dict[str, Any]:
    """A concern as the API (and `deputy concerns --json`) shows it: times in the deployment timezone."""
    data = service.snapshot(concern)
    for key in TIMES:
        value = getattr(concern, key)
        data[key] = local_isoformat(value, uow.tz) if isinstance(value, datetime) else None
    for key in ("held_until", "read_at"):  # derived or not stored on every version: from the snapshot's UTC text
        data[key] = local_isoformat(datetime.fromisoformat(data[key]), uow.tz) if data.get(key) else None
    return data


def _raise(ctx: AppContext, body: ConcernIn, *, actor: str, owner: str) -> Outcome:
    """The concern and its question, queued already claimed by `owner`, in one transaction."""
    with ctx.uow(actor=actor) as uow:
        body.check_deadline(now=uow.now)
        for field, pid in (("originator_id", body.originator_id), ("target_person_id", body.target_person_id)):
            person = persons.get_or_404(uow, person_id=pid)
            if not person.active:
                raise Conflict(f"{pid} is deactivated", field=field)
        question = commands.Ask(
            body.target_person_id,
            body.question,
            body.priority,
            deadline=body.deadline.isoformat() if body.deadline else None,
        )
        return admin.carry_out(
            uow,
            question,
            rule="admin_api:concerns",
            person_refs=[body.originator_id, body.target_person_id],
            originator_id=body.originator_id,
            claimed_by=owner,
        )


@router.post("/v1/concerns", status_code=201)
def raise_concern(
    body: ConcernIn, ctx: Ctx, caller: Admin, processor: Pipeline, background: BackgroundTasks
) -> dict[str, Any]:
    """Raise a concern and send its question now; returns the concern with the first action's record."""
    owner = outbox.owner_token()  # the question is queued already ours: no drainer takes it before this request runs it
    if body.originator_id == body.target_person_id:
        raise Conflict("a concern needs someone other than the originator to answer", field="target_person_id")
    outcome = with_calendar(ctx, lambda: _raise(ctx, body, actor=caller.name, owner=owner))
    if isinstance(outcome, Refused):  # the decision and the blocked question are recorded; no concern is opened
        raise Conflict(f"refused: {outcome.values['blocked_by']}", field="target_person_id")
    concern_id = outcome.concern_id
    outbox.run_owned(ctx, request_key=f"{concern_id}:question:1")
    background.add_task(processor.wake)  # the originator's confirmation and anything else the result queued
    with ctx.reader() as uow:
        concern = service.get_or_404(uow, concern_id=concern_id)
        first = uow.session.scalars(
            select(ActionRow).where(ActionRow.concern_id == concern_id).order_by(ActionRow.pk).limit(1)
        ).first()
        return {
            **concern_out(uow, concern),
            "action": actions.to_record(first, tz=uow.tz).model_dump(mode="json") if first else None,
        }


@router.get("/v1/concerns", response_model=Page)
def list_concerns(
    ctx: Ctx,
    _: Viewer,
    state: State | None = None,
    kind: Kind | None = None,
    originator_id: Annotated[str | None, Query(max_length=64)] = None,
    target_person_id: Annotated[str | None, Query(max_length=64)] = None,
    person_id: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(max_length=300, json_schema_extra=TIME_CURSOR_SCHEMA)] = None,
) -> Page:
    """Concerns newest first."""
    with ctx.reader() as uow:
        rows, nxt = service.list_(
            uow,
            state=state,
            kind=kind,
            originator_id=originator_id,
            target_person_id=target_person_id,
            person_id=person_id,
            limit=limit,
            cursor=cursor,
        )
        return Page(items=[concern_out(uow, c) for c in rows], next_cursor=nxt)


@router.get("/v1/concerns/{concern_id}")
def get_concern(concern_id: str, ctx: Ctx, _: Viewer) -> dict[str, Any]:
    """One concern."""
    with ctx.reader() as uow:
        return concern_out(uow, service.get_or_404(uow, concern_id=concern_id))


@router.post("/v1/concerns/{concern_id}/cancel")
def cancel_concern(
    concern_id: str, ctx: Ctx, caller: Admin, background: BackgroundTasks, processor: Pipeline
) -> dict[str, Any]:
    """Cancel: no further contact."""
    with ctx.uow(actor=caller.name) as uow:
        out = concern_out(uow, admin.cancel(uow, concern_id=concern_id, rule="admin_api:cancel"))
    background.add_task(processor.wake)  # the originator (and an escalation's recipient) hear about it now
    return out


@router.post("/v1/scheduler/tick")
def tick(processor: Pipeline, _: Admin) -> dict[str, int]:
    """Run one pipeline pass now: pending signals, due timers, interrupted actions, queued actions."""
    return processor.run_now()
