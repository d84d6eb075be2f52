"""`POST /v1/signals`: a generic inbound signal from another system."""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks
from fastapi.responses import JSONResponse

from app.api.deps import Admin, Ctx
from fact import service as facts
from fact.models import FactOut
from kernel.errors import Invalid
from perception import service
from perception.models import ExternalSignal
from person import service as persons

router = APIRouter(tags=["signals"])


@router.post(
    "/v1/signals",
    status_code=202,
    response_model=FactOut,
    responses={200: {"model": FactOut, "description": "a repeat of source + external_id: the fact recorded first"}},
)
def post_signal(body: ExternalSignal, ctx: Ctx, caller: Admin, background: BackgroundTasks) -> JSONResponse:
    """Record the signal durably (202 with the fact); a repeat of source + external_id: the same fact, 200."""
    if body.person_id is None and bool(body.channel) != bool(body.external_user_id):
        raise Invalid("give person_id, or channel together with external_user_id", field="channel")
    if body.person_id is not None:
        with ctx.reader() as uow:
            persons.get_or_404(uow, person_id=body.person_id)
    fact, created = service.record_signal(ctx, signal=body, actor=caller.name)
    if created:
        background.add_task(ctx.signal_recorded)
    with ctx.reader() as uow:
        out = facts.to_out(fact, uow=uow).model_dump(mode="json")
    return JSONResponse(out, status_code=202 if created else 200)
