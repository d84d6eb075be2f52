"""`GET /v1/persons/{id}/reachability`: the reachability model's answer for a person now (SPEC §5.1)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header

from app.api.deps import Ctx, Viewer
from app.console.i18n import pick
from concern import reachability
from kernel.catalogue import default_locale
from kernel.context import AppContext
from kernel.limits import local_isoformat
from person.calendar import with_calendar
from person.reachability.texts import reasons_out, summary

router = APIRouter(prefix="/v1/persons", tags=["persons"])


def reader_locale(accept_language: str | None) -> str:
    """The caller's language from Accept-Language; the deployment's default when the header is absent."""
    return pick(accept_language, None) if accept_language else default_locale()


@router.get("/{person_id}/reachability")
def get_reachability(
    person_id: str,
    ctx: Ctx,
    _: Viewer,
    priority: Literal["P0", "P1", "P2", "P3"] = "P2",
    kind: Literal["question", "follow_up", "notice"] = "follow_up",
    accept_language: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    """Now or when, which channel, plain or urgent, and why (reasons in the caller's language)."""
    locale = reader_locale(accept_language)
    return with_calendar(ctx, lambda: _answer(ctx, person_id, priority=priority, kind=kind, locale=locale))


def busy_out(found: reachability.Answer, *, now: datetime) -> dict[str, Any]:
    """The calendar's state (`off`, `ok`, `failed`) and the busy blocks not over yet, in the person's offset."""
    read = found.calendar
    blocks = [b for b in read.busy if b.end > now] if read is not None else []
    return {
        "calendar": read.state if read is not None else "off",
        "busy": [
            {"start": local_isoformat(b.start, found.tz), "end": local_isoformat(b.end, found.tz)} for b in blocks
        ],
    }


def _answer(ctx: AppContext, person_id: str, *, priority: str, kind: str, locale: str) -> dict[str, Any]:
    with ctx.reader() as uow:
        found = reachability.answer(uow, person_id=person_id, priority=priority, kind=kind)
        answer, tz, now = found.reach, found.tz, uow.now
        median = found.rhythm.median_wait
        return {
            "now": answer.now,
            "next_at": local_isoformat(answer.next_at, tz) if answer.next_at else None,
            "channel": answer.channel,
            "urgent": answer.urgent,
            "held_by": answer.held_by,
            "reasons": reasons_out(answer, tz=tz, locale=locale, now=now),
            "summary": summary(answer, tz=tz, locale=locale, now=now),
            "answering_hours": [{"start": f"{a:02d}:00", "end": f"{b % 24:02d}:00"} for a, b in answer.answering_hours],
            "median_answer_seconds": int(median.total_seconds()) if median is not None else None,
            "answers_counted": found.rhythm.answers,
            **busy_out(found, now=now),
        }
