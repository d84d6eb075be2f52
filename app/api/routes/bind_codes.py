"""`POST /v1/persons/{id}/bind_codes`: issue a one-time code that links a chat to the person."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from app.api.deps import Admin, Ctx
from person import bind_codes

router = APIRouter(prefix="/v1/persons", tags=["persons"])


class BindCodeOut(BaseModel):
    """The code to send to the bot (`/start <code>` or `bind <code>`; the console shows each channel's hint)."""

    person_id: str
    code: str
    expires_at: str


@router.post("/{person_id}/bind_codes", response_model=BindCodeOut, status_code=201)
def issue_bind_code(person_id: str, ctx: Ctx, caller: Admin) -> BindCodeOut:
    """A single-use code valid for 24 hours."""
    with ctx.uow(actor=caller.name) as uow:
        code, expires = bind_codes.issue(uow, person_id=person_id)
        return BindCodeOut(person_id=person_id, code=code, expires_at=expires.astimezone(uow.tz).isoformat())
