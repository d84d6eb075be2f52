"""`/v1/facts`: query the log (read-only by design)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.api.deps import Ctx, InstantQuery, Viewer, parse_instant
from fact import service
from fact.models import FactOut, FactType
from kernel.errors import NotFound
from kernel.pagination import KEY_CURSOR_SCHEMA, Page

router = APIRouter(prefix="/v1/facts", tags=["facts"])


@router.get("", response_model=Page)
def list_facts(
    ctx: Ctx,
    _: Viewer,
    fact_type: FactType | None = None,
    person_id: Annotated[str | None, Query(max_length=64)] = None,
    since: InstantQuery = None,
    until: InstantQuery = None,
    causation_id: Annotated[str | None, Query(max_length=64)] = None,
    q: Annotated[
        str | None,
        Query(
            max_length=200,
            description="text people wrote or read, or a con_/act_/dec_/fact_ id; any case (not JSON keys)",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_LIMIT)] = 50,
    cursor: Annotated[str | None, Query(max_length=200, json_schema_extra=KEY_CURSOR_SCHEMA)] = None,
) -> Page:
    """Facts newest first, filtered, one page at a time."""
    with ctx.reader() as uow:
        filters = service.FactFilter(
            fact_type=fact_type.value if fact_type else None,
            person_id=person_id,
            since=parse_instant(since, field="since", now=uow.now),
            until=parse_instant(until, field="until", now=uow.now),
            causation_id=causation_id,
            q=q or None,
        )
        facts, next_cursor = service.list_(uow, filters=filters, limit=limit, cursor=cursor)
        return Page(items=[service.to_out(f, uow=uow) for f in facts], next_cursor=next_cursor)


@router.get("/{fact_id}", response_model=FactOut)
def get_fact(fact_id: str, ctx: Ctx, _: Viewer) -> FactOut:
    """One fact by id."""
    with ctx.reader() as uow:
        fact = service.get(uow, fact_id=fact_id)
        if fact is None:
            raise NotFound(f"fact {fact_id} does not exist", field="fact_id")
        return service.to_out(fact, uow=uow)
