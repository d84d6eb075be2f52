"""`/console/concerns`: loops by state and kind with filters; one loop's timeline and causal trace; cancel and nudge."""

from __future__ import annotations

from typing import Literal
from urllib.parse import quote
from zoneinfo import ZoneInfo

from fastapi import APIRouter, BackgroundTasks, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from action import service as actions
from app.api.deps import Pipeline
from app.console import describe, people, timeline
from app.console.web import Changing, Shared, Viewing, translator
from concern import admin, reachability, service
from concern import stats as concern_stats
from concern.outbox import drain as outbox
from person import service as persons

router = APIRouter(prefix="/console", include_in_schema=False)
State = Literal["waiting_reply", "escalated", "resolved", "cancelled", "expired", "open", ""]
STATES = ("waiting_reply", "escalated", "resolved", "cancelled", "expired")
PAGE = 50


@router.get("/concerns", response_class=HTMLResponse)
def concerns(
    request: Request,
    shared: Shared,
    _: Viewing,
    state: State = "open",
    kind: str = Query("", max_length=32),
    priority: Literal["P0", "P1", "P2", "P3", ""] = "",
    person_id: str = Query("", max_length=200),
    cursor: str | None = Query(None, max_length=300),
) -> Response:
    """Loops newest first; `open` (the default) means waiting or escalated; the person by id, name or alias."""
    t = translator(request)
    states = ["waiting_reply", "escalated"] if state == "open" else [state or None]
    with shared.ctx.reader() as uow:
        loops, next_cursor = [], None
        named = people.resolve(uow, person_id, t)
        for one in states if not named.problem else []:
            found, next_cursor = service.list_(
                uow,
                state=one,
                kind=kind or None,
                priority=priority or None,
                person_id=named.person_id,
                limit=PAGE,
                cursor=cursor if len(states) == 1 else None,
            )
            loops += found
        if len(states) > 1:  # both open states, merged newest first (the active loops are few: L2 caps them)
            loops, next_cursor = sorted(loops, key=lambda c: c.created_at, reverse=True), None
        who = describe.names(uow, [pid for c in loops for pid in (c.originator_id, c.target_person_id)])
        counts = concern_stats.count_open(uow)
        suggest = people.suggestions(uow)
    filters = {"state": state, "kind": kind, "priority": priority, "person_id": person_id}
    template = "partials/concern_rows.html" if request.headers.get("hx-request") else "concerns.html"
    return shared.page(
        request,
        template,
        title=t("concerns"),
        named=named,
        suggest=suggest,
        loops=loops,
        next_cursor=next_cursor,
        who=who,
        filters=filters,
        states=STATES,
        state_counts={st: sum(n for (s, _), n in counts.items() if s == st) for st in STATES},
    )


@router.get("/concerns/{concern_id}", response_class=HTMLResponse)
def concern(concern_id: str, request: Request, shared: Shared, _: Viewing) -> Response:
    """One loop: its facts in order, the causal trace as a graph, the buttons pressed; admins cancel or nudge."""
    t = translator(request)
    tz, now = shared.ctx.settings.tz, shared.ctx.clock.now()
    with shared.ctx.reader() as uow:
        loop = service.get_or_404(uow, concern_id=concern_id)
        story = timeline.concern_facts(uow, loop)
        who = describe.names(
            uow,
            [loop.originator_id, loop.target_person_id, loop.escalated_to, loop.answered_by]
            + list(describe.people_in(story)),
        )
        read_line = _read_line(uow, loop, t, now=now)
        nudged = request.query_params.get("nudged")
        nudge_row = actions.get_by_request_key(uow, request_key=nudged) if nudged else None
        nudge = actions.to_record(nudge_row, tz=tz).model_dump(mode="json") if nudge_row else None

    def line(fact):
        return describe.fact_line(fact, t, who=who, tz=tz, now=now)

    return shared.page(
        request,
        "concern.html",
        title=loop.question,
        concern=loop,
        story=story,
        presses=[f for f in story if timeline.pressed(f)],
        graph=timeline.trace_graph(story, t, line=line),
        line=line,
        who=who,
        nudge=nudge,
        read_line=read_line,
        nudge_line=describe.action_line(nudge, t, who=who, tz=tz, now=now) if nudge else None,
        flash=t("cancelled_ok") if request.query_params.get("cancelled") else None,
    )


def _read_line(uow, loop, t, *, now) -> str | None:
    """`已读 15:02` / `未读` in the viewer's language and the person's clock; None where reads are unknown."""
    last = reachability.last_contact(loop)
    if last is None or not last.read_known:
        return None
    if loop.read_at is None:
        return t("unread")
    target = persons.get(uow, person_id=loop.target_person_id)
    tz = ZoneInfo(target.timezone) if target is not None else uow.tz
    local = loop.read_at.astimezone(tz)
    same_day = local.date() == now.astimezone(tz).date()
    return t("read_at", time=local.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M"))


@router.post("/concerns/{concern_id}/cancel")
def cancel(
    concern_id: str, shared: Shared, session: Changing, background: BackgroundTasks, processor: Pipeline
) -> Response:
    """Cancel the loop as the session's admin (the originator is told, as by `POST /v1/concerns/{id}/cancel`)."""
    with shared.ctx.uow(actor=session.caller.name) as uow:
        admin.cancel(uow, concern_id=concern_id, rule="console:cancel")
    background.add_task(processor.wake)  # the originator's notice goes out now, not at the next interval
    return RedirectResponse(f"/console/concerns/{concern_id}?cancelled=1", status_code=303)


@router.post("/concerns/{concern_id}/nudge")
def nudge(
    concern_id: str, shared: Shared, session: Changing, background: BackgroundTasks, processor: Pipeline
) -> Response:
    """Send one follow-up now (L2's interval skipped, L1 and L3 kept) and show its result."""
    owner = outbox.owner_token()
    with shared.ctx.uow(actor=session.caller.name) as uow:
        key = admin.nudge(uow, concern_id=concern_id, rule="console:nudge", claimed_by=owner)
    outbox.run_owned(shared.ctx, request_key=key)
    background.add_task(processor.wake)  # whatever its result queued
    return RedirectResponse(f"/console/concerns/{concern_id}?nudged={quote(key, safe='')}", status_code=303)
