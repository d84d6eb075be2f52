"""`/v1/persons`: people, their interaction policy and channel bindings."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query

from app.api.deps import Admin, Ctx, Viewer
from concern.kinds import away
from kernel.pagination import TIME_CURSOR_SCHEMA, Page
from person import service
from person.models import (
    ChannelBindingsIn,
    InteractionPolicy,
    InteractionPolicyPatch,
    PersonCreate,
    PersonOut,
    PersonUpdate,
)

router = APIRouter(prefix="/v1/persons", tags=["persons"])


@router.post("", response_model=PersonOut, status_code=201)
def create_person(body: PersonCreate, ctx: Ctx, caller: Admin) -> PersonOut:
    """Register a person with bindings and policy."""
    with ctx.uow(actor=caller.name) as uow:
        return service.to_out(uow, service.create(uow, data=body))


@router.get("", response_model=Page)
def list_persons(
    ctx: Ctx,
    _: Viewer,
    role: Literal["principal", "member"] | None = None,
    active: bool | None = None,
    q: Annotated[str | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    cursor: Annotated[str | None, Query(max_length=300, json_schema_extra=TIME_CURSOR_SCHEMA)] = None,
) -> Page:
    """Persons newest first."""
    with ctx.reader() as uow:
        persons, next_cursor = service.list_(uow, role=role, active=active, q=q, limit=limit, cursor=cursor)
        return Page(items=[service.to_out(uow, p) for p in persons], next_cursor=next_cursor)


@router.get("/{person_id}", response_model=PersonOut)
def get_person(person_id: str, ctx: Ctx, _: Viewer) -> PersonOut:
    """One person."""
    with ctx.reader() as uow:
        return service.to_out(uow, service.get_or_404(uow, person_id=person_id))


@router.patch("/{person_id}", response_model=PersonOut)
def update_person(person_id: str, body: PersonUpdate, ctx: Ctx, caller: Admin) -> PersonOut:
    """Change the given fields of a person."""
    with ctx.uow(actor=caller.name) as uow:
        person = service.update(uow, person_id=person_id, patch=body)
        if "work_state" in body.model_fields_set:
            away.back(uow, person_id=person_id)  # back: what waited for them goes now
        return service.to_out(uow, person)


@router.delete("/{person_id}", response_model=PersonOut)
def deactivate_person(person_id: str, ctx: Ctx, caller: Admin) -> PersonOut:
    """Deactivate a person; their facts stay."""
    with ctx.uow(actor=caller.name) as uow:
        return service.to_out(uow, service.deactivate(uow, person_id=person_id))


@router.get("/{person_id}/interaction_policy", response_model=InteractionPolicy)
def get_policy(person_id: str, ctx: Ctx, _: Viewer) -> InteractionPolicy:
    """A person's interaction policy."""
    with ctx.reader() as uow:
        return service.policy_of(service.get_or_404(uow, person_id=person_id))


@router.put("/{person_id}/interaction_policy", response_model=InteractionPolicy)
def replace_policy(person_id: str, body: InteractionPolicy, ctx: Ctx, caller: Admin) -> InteractionPolicy:
    """Replace the whole policy; omitted fields take their defaults."""
    with ctx.uow(actor=caller.name) as uow:
        return service.policy_of(service.replace_policy(uow, person_id=person_id, policy=body))


@router.patch("/{person_id}/interaction_policy", response_model=InteractionPolicy)
def patch_policy(person_id: str, body: InteractionPolicyPatch, ctx: Ctx, caller: Admin) -> InteractionPolicy:
    """Change the given policy fields."""
    with ctx.uow(actor=caller.name) as uow:
        return service.policy_of(service.patch_policy(uow, person_id=person_id, patch=body))


@router.put("/{person_id}/channel_bindings", response_model=PersonOut)
def replace_bindings(person_id: str, body: ChannelBindingsIn, ctx: Ctx, caller: Admin) -> PersonOut:
    """Replace a person's channel bindings."""
    with ctx.uow(actor=caller.name) as uow:
        return service.to_out(uow, service.replace_bindings(uow, person_id=person_id, bindings=body.channel_bindings))
