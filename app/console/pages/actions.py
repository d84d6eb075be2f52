"""`/console/actions`: the action ledger with results, channels, attempts and why each was held back; one action."""

from __future__ import annotations

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response

from action import service
from action.models import ActionType, Result
from app.console import describe, people, timeline
from app.console.pages.facts import filter_problem, instant
from app.console.web import Shared, Viewing, translator
from fact import trace
from kernel.errors import Invalid, NotFound

router = APIRouter(prefix="/console", include_in_schema=False)
PAGE = 50
TYPES = tuple(a.value for a in ActionType)
RESULTS = tuple(r.value for r in Result)


@router.get("/actions", response_class=HTMLResponse)
def actions(
    request: Request,
    shared: Shared,
    _: Viewing,
    person_id: str = Query("", max_length=200),
    action_type: str = Query("", max_length=32),
    result: str = Query("", max_length=16),
    since: str = Query("", max_length=64),
    cursor: str | None = Query(None, max_length=200),
) -> Response:
    """Actions newest first with each message's text, and the human reason when one was held back or failed."""
    t = translator(request)
    tz = shared.ctx.settings.tz
    params = {"person_id": person_id, "action_type": action_type, "result": result, "since": since}
    error = None
    with shared.ctx.reader() as uow:
        now = uow.now
        named = people.resolve(uow, person_id, t)
        try:
            for name, value, allowed in (("action_type", action_type, TYPES), ("result", result, RESULTS)):
                if value and value not in allowed:
                    raise Invalid(f"{name} must be one of {', '.join(allowed)}", field=name)
            rows, next_cursor = [], None
            found = service.list_(
                uow,
                person_id=named.person_id,
                action_type=action_type or None,
                result=result or None,
                since=instant(since, field="since", now=now, tz=tz),
                limit=PAGE,
                cursor=cursor,
            )
            rows, next_cursor = found if not named.problem else ([], None)
        except Invalid as exc:
            rows, next_cursor, error = [], None, filter_problem(exc, t)
        records = [(row, service.to_record(row, tz=tz).model_dump(mode="json")) for row in rows]
        who = describe.names(uow, [row.target_person_id for row in rows])
        suggest = people.suggestions(uow)
    template = "partials/action_rows.html" if request.headers.get("hx-request") else "actions.html"
    return shared.page(
        request,
        template,
        status=422 if error else 200,
        title=t("actions"),
        records=records,
        next_cursor=next_cursor,
        params=params,
        types=TYPES,
        results=RESULTS,
        error=error,
        named=named,
        suggest=suggest,
        who=who,
        why=lambda record: describe.reason(
            record["result_detail"], t, target=who.get(record["target_person_id"] or "", "?"), tz=tz, now=now
        ),
    )


@router.get("/actions/{action_id}", response_class=HTMLResponse)
def action(action_id: str, request: Request, shared: Shared, _: Viewing) -> Response:
    """One action: its record, every channel attempt, and the causal chain that led to it (list and graph)."""
    t = translator(request)
    tz = shared.ctx.settings.tz
    with shared.ctx.reader() as uow:
        now = uow.now
        row = service.get(uow, action_id=action_id)
        if row is None:
            raise NotFound(f"action {action_id} does not exist", field="action_id")
        record = service.to_record(row, tz=tz).model_dump(mode="json")
        chain = [step["fact"] for step in trace.trace(uow, action_id=action_id, decision_ref=row.decision_ref)]
        who = describe.names(uow, [row.target_person_id, *describe.people_in(chain)])

    def line(fact):
        return describe.fact_line(fact, t, who=who, tz=tz, now=now)

    story = sorted(chain, key=lambda f: f.pk or 0)
    return shared.page(
        request,
        "action.html",
        title=f"{t.action_type(row.action_type)} {row.action_id}",
        row=row,
        record=record,
        summary=describe.action_line(record, t, who=who, tz=tz, now=now),
        chain=story,
        graph=timeline.trace_graph(story, t, line=line),
        line=line,
        who=who,
    )
