"""`/console/facts`: the fact log with filters, live updates (htmx polling) and infinite scroll; one fact."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from app.api.deps import parse_instant
from app.console import describe, people
from app.console.i18n import Translator
from app.console.web import Shared, Viewing, translator
from fact import service, trace
from fact.models import FactType
from kernel.errors import Invalid, NotFound

router = APIRouter(prefix="/console", include_in_schema=False)
PAGE = 50
LIVE = 100  # newest facts a poll looks at; more new ones than this ask for a reload
_LOCAL = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?")


def instant(value: str, *, field: str, now: datetime, tz: Any) -> datetime | None:
    """`24h`, an ISO instant with offset, or a `datetime-local` value in the deployment timezone."""
    if _LOCAL.fullmatch(value.strip()):
        value = datetime.fromisoformat(value.strip()).replace(tzinfo=tz).isoformat()
    return parse_instant(value.strip() or None, field=field, now=now)


def filter_problem(exc: Invalid, t: Translator) -> str:
    """A filter the page could not use: the validator's message in English, the field's name in Chinese."""
    if t.lang != "zh":
        return exc.message
    label = t(f"bad_{exc.field}")
    return t("invalid_filter", field=label if label != f"bad_{exc.field}" else t("filter"))


def _filters(shared: Shared, params: dict[str, str], now: datetime, person_id: str | None) -> service.FactFilter:
    tz = shared.ctx.settings.tz
    fact_type = params.get("fact_type") or None
    if fact_type and fact_type not in FactType.__members__:
        raise Invalid(f"fact_type must be one of {', '.join(FactType.__members__)}", field="fact_type")
    return service.FactFilter(
        fact_type=fact_type,
        person_id=person_id,
        since=instant(params.get("since", ""), field="since", now=now, tz=tz),
        until=instant(params.get("until", ""), field="until", now=now, tz=tz),
        causation_id=params.get("causation_id") or None,
        q=params.get("q") or None,
    )


@router.get("/facts", response_class=HTMLResponse)
def facts(
    request: Request,
    shared: Shared,
    _: Viewing,
    fact_type: str = Query("", max_length=32),
    person_id: str = Query("", max_length=200),
    since: str = Query("", max_length=64),
    until: str = Query("", max_length=64),
    causation_id: str = Query("", max_length=64),
    q: str = Query("", max_length=200),
    cursor: str | None = Query(None, max_length=200),
    after: int | None = Query(None, ge=0),
) -> Response:
    """The log newest first; `after` (the live poll) returns only facts recorded since that one."""
    t = translator(request)
    values = (fact_type, person_id, since, until, causation_id, q)
    params = dict(zip(("fact_type", "person_id", "since", "until", "causation_id", "q"), values, strict=True))
    error = None
    with shared.ctx.reader() as uow:
        named = people.resolve(uow, person_id, t)
        try:
            filters = _filters(shared, params, uow.now, named.person_id)
            limit = LIVE if after is not None else PAGE
            rows, next_cursor = service.list_(uow, filters=filters, limit=limit, cursor=cursor)
            rows, next_cursor = (rows, next_cursor) if not named.problem else ([], None)
        except Invalid as exc:
            rows, next_cursor, error = [], None, filter_problem(exc, t)
        fresh = [f for f in rows if after is not None and (f.pk or 0) > after]
        who = describe.names(uow, describe.people_in(rows))
        suggest = people.suggestions(uow)
    now, tz = shared.ctx.clock.now(), shared.ctx.settings.tz
    top = max([f.pk or 0 for f in rows] + [after or 0])
    template = "facts.html"
    if after is not None:
        template = "partials/fact_live.html"
    elif request.headers.get("hx-request"):
        template = "partials/fact_rows.html"
    return shared.page(
        request,
        template,
        status=422 if error else 200,
        title=t("facts"),
        facts=fresh if after is not None else rows,
        overflow=after is not None and len(fresh) == LIVE,
        next_cursor=next_cursor,
        top=top,
        params=params,
        live=cursor is None,
        types=list(FactType.__members__),
        error=error,
        named=named,
        suggest=suggest,
        who=who,
        line=lambda f: describe.fact_line(f, t, who=who, tz=tz, now=now),
    )


@router.get("/facts/{ref}", response_class=HTMLResponse)
def fact(ref: str, request: Request, shared: Shared, _: Viewing) -> Response:
    """One fact (by its id, or a decision's `dec_…`): content, what caused it and what it led to."""
    t = translator(request)
    with shared.ctx.reader() as uow:
        found = service.get_by_dedup_key(uow, dedup_key=f"decision:{ref}") if ref.startswith("dec_") else None
        found = found or service.get(uow, fact_id=ref)
        if found is None:
            raise NotFound(f"fact {ref} does not exist", field="fact_id")
        causes = trace.causes(uow, refs=[found.causation_id] if found.causation_id else [])
        own = [found.fact_id] + ([found.content["decision_id"]] if found.fact_type == "decision" else [])
        effects = [
            f for ref_ in own for f in service.list_(uow, filters=service.FactFilter(causation_id=ref_), limit=PAGE)[0]
        ]
        everyone = [found, *[c["fact"] for c in causes], *effects]
        who = describe.names(uow, describe.people_in(everyone))
    now, tz = shared.ctx.clock.now(), shared.ctx.settings.tz
    return shared.page(
        request,
        "fact.html",
        title=f"{t('fact_' + found.fact_type)} {found.fact_id}",
        fact=found,
        causes=[c["fact"] for c in causes],
        effects=sorted(effects, key=lambda f: f.pk or 0),
        line=lambda f: describe.fact_line(f, t, who=who, tz=tz, now=now),
    )
