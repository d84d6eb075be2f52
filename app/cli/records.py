"""`deputy facts | concerns | persons`: the records as a table, or with `--json` one API-shaped object per line."""

from __future__ import annotations

import re
from datetime import date, datetime, time
from enum import StrEnum
from typing import Annotated, Any, get_args

import typer

from app.api.routes.concerns import State
from app.cli import output
from app.settings import Settings
from fact.models import FactType

ConcernState = StrEnum("ConcernState", {s: s for s in get_args(State)})  # the API's values, so the same error
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
Json = Annotated[bool, typer.Option("--json", help="one JSON object per line, in the API's shape")]
Limit = Annotated[int, typer.Option(min=1, max=500, help="at most this many, newest first")]


def _context():
    from app.wiring import build_context

    return build_context(Settings())


def since_instant(value: str | None, *, now: datetime, tz: Any) -> datetime | None:
    """`--since`: a look-back (`24h`), an ISO instant with offset, or a date meaning its midnight in DEPUTY_TIMEZONE."""
    from app.api.deps import parse_instant
    from kernel.errors import DeputyError

    try:
        if value and _DATE.match(value.strip()):
            return parse_instant(datetime.combine(date.fromisoformat(value.strip()), time(0), tz).isoformat(),
                                 field="since", now=now)  # fmt: skip
        return parse_instant(value, field="since", now=now)
    except ValueError as exc:  # a date that does not exist (2026-02-30)
        raise typer.BadParameter(f"{value!r} is not a date: {exc}", param_hint="'--since'") from exc
    except DeputyError as exc:
        hint = f"; or a date like 2026-11-30 (midnight in {tz.key})" if "duration" in exc.message else ""
        raise typer.BadParameter(exc.message + hint, param_hint="'--since'") from exc


def facts(
    since: Annotated[
        str | None, typer.Option(help="look-back like 24h, a date (midnight in DEPUTY_TIMEZONE) or ISO with offset")
    ] = None,
    person: Annotated[str | None, typer.Option(help="person id")] = None,
    fact_type: Annotated[FactType | None, typer.Option("--type", help="fact type")] = None,
    q: Annotated[str | None, typer.Option(help="text people wrote or read, or a record id (not JSON keys)")] = None,
    limit: Limit = 50,
    as_json: Json = False,
) -> None:
    """Show facts newest first."""
    from fact import service
    from kernel.db import dumps

    ctx = _context()
    try:
        with ctx.reader() as uow:
            filters = service.FactFilter(
                fact_type=fact_type.value if fact_type else None,
                person_id=person,
                since=since_instant(since, now=uow.now, tz=uow.tz),
                q=q,
            )
            rows, _ = service.list_(uow, filters=filters, limit=limit)
            if as_json:
                output.json_lines(service.to_out(f, uow=uow).model_dump(mode="json") for f in rows)
                return
            cells = [
                [
                    f.fact_id,
                    f.timestamp.astimezone(uow.tz).strftime("%Y-%m-%d %H:%M:%S"),
                    f.fact_type,
                    f.source,
                    ",".join(f.person_refs),
                    dumps(f.content),
                ]
                for f in rows
            ]
    finally:
        ctx.close()
    columns = [
        output.Column("fact_id", keep=9, whole=True),
        output.Column("time", keep=7, whole=True),
        output.Column("type", keep=8, whole=True),
        output.Column("source", keep=1, whole=True),
        output.Column("persons", keep=2, min_width=10),
        output.Column("content", keep=6, min_width=16, clip=True),
    ]
    output.table(f"{len(cells)} facts (times in {ctx.settings.timezone})", columns, cells)


def concerns(
    state: Annotated[ConcernState | None, typer.Option(help="the loop's state")] = None,
    person: Annotated[str | None, typer.Option(help="originator or target")] = None,
    limit: Limit = 50,
    as_json: Json = False,
) -> None:
    """Show concerns newest first."""
    from app.api.routes.concerns import concern_out
    from concern import service

    ctx = _context()
    try:
        with ctx.reader() as uow:
            rows, _ = service.list_(uow, state=state.value if state else None, person_id=person, limit=limit)
            if as_json:
                output.json_lines(concern_out(uow, c) for c in rows)
                return
            cells = [
                [
                    c.concern_id,
                    c.state,
                    c.originator_id,
                    c.target_person_id,
                    c.priority,
                    str(c.follow_up_count),
                    c.next_follow_up_at.astimezone(uow.tz).strftime("%m-%d %H:%M") if c.next_follow_up_at else "",
                    c.question + (f" → {c.answer}" if c.answer else ""),
                ]
                for c in rows
            ]
    finally:
        ctx.close()
    columns = [
        output.Column("concern_id", keep=9, whole=True),
        output.Column("state", keep=8, whole=True),
        output.Column("originator", keep=3, min_width=10),
        output.Column("target", keep=6, min_width=10),
        output.Column("priority", keep=2, whole=True),
        output.Column("follow-ups", keep=1, whole=True),
        output.Column("next", keep=5, whole=True),
        output.Column("question / answer", keep=7, min_width=20),
    ]
    output.table(f"{len(cells)} concerns", columns, cells)


def list_persons(as_json: bool) -> None:
    """Every person (all pages), as a table or JSON lines."""
    from person import service

    ctx = _context()
    try:
        with ctx.reader() as uow:
            people, cursor = service.list_(uow, limit=500)
            while cursor:
                more, cursor = service.list_(uow, limit=500, cursor=cursor)
                people += more
            if as_json:
                output.json_lines(service.to_out(uow, p).model_dump(mode="json") for p in people)
                return
            cells = [
                [
                    p.person_id,
                    p.display_name,
                    p.role,
                    p.manager_id or "",
                    p.timezone,
                    ",".join(
                        f"{b.channel}{'' if b.reachable else '(unreachable)'}"
                        for b in service.bindings_of(uow, person_id=p.person_id)
                    ),
                    "yes" if p.active else "no",
                ]
                for p in people
            ]
    finally:
        ctx.close()
    columns = [
        output.Column("person_id", keep=9, whole=True),
        output.Column("name", keep=8, min_width=8),
        output.Column("role", keep=5, min_width=6),
        output.Column("manager", keep=4, min_width=8),
        output.Column("timezone", keep=1, min_width=8),
        output.Column("channels", keep=6, min_width=8),
        output.Column("active", keep=3, min_width=3),
    ]
    output.table(f"{len(cells)} persons", columns, cells)
