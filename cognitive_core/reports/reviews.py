"""The weekly review: read the principal's facts, compute (review_rules), answer `/review` or send it on schedule."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from cognitive_core.reports.review_rules import Review, compute, render
from concern import outbound
from concern.queue import Purpose
from fact import service as facts
from fact.models import Fact
from fact.service import FactFilter
from kernel.context import AppContext, UnitOfWork
from kernel.ids import allocate
from kernel.portion import Portion
from person import service as persons
from person.models import Person
from person.principals import due, principals

NOTIFICATION_TYPE = "weekly_review"
WEEK = timedelta(days=7)
LOOKBACK = timedelta(days=60)  # loops raised this long before the week still count as open
MAX_FACTS = 20_000


def read(uow: UnitOfWork, *, person_id: str, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """The person's facts that matter to a review, as `/v1/facts` shows them (a thin reader)."""
    found: list[dict[str, Any]] = []
    cursor = None
    for fact_type in ("concern_changed", "action_result"):
        cursor = None
        while len(found) < MAX_FACTS:
            flt = FactFilter(fact_type=fact_type, person_id=person_id, since=start - LOOKBACK, until=end)
            page, cursor = facts.list_(uow, filters=flt, limit=500, cursor=cursor)
            found += [
                {
                    "fact_id": f.fact_id,
                    "fact_type": f.fact_type,
                    "timestamp": f.timestamp,
                    "person_refs": f.person_refs,
                    "content": f.content,
                }
                for f in page
            ]
            if cursor is None:
                break
    return found


def review_of(uow: UnitOfWork, *, person: Person, end: datetime) -> tuple[Review, str]:
    """The review of the week before `end` and its text."""
    start = end - WEEK
    result = compute(
        read(uow, person_id=person.person_id, start=start, end=end), person_id=person.person_id, start=start, end=end
    )
    tz = ZoneInfo(person.timezone)
    span = (f"{start.astimezone(tz):%m-%d}", f"{(end - timedelta(seconds=1)).astimezone(tz):%m-%d}")
    names = dict(uow.session.execute(select(Person.person_id, Person.display_name)).all())
    return result, render(result, names=names, locale=person.locale, span=span, now=end)


def answer(
    uow: UnitOfWork,
    *,
    person: Person,
    decision_id: str,
    key: str,
    channel: str | None,
    chat_id: str | None,
) -> None:
    """`/review`: the last seven days, now, reactively."""
    _, body = review_of(uow, person=person, end=uow.now)
    outbound.reply(
        uow, to=person.person_id, text=body, decision_id=decision_id, channel=channel, key=key, chat_id=chat_id
    )


class _Taken(Exception):
    """Another replica recorded this week's review first."""


def _decide(uow: UnitOfWork, *, person_id: str, key: str, end: datetime) -> bool:
    person = persons.get_or_404(uow, person_id=person_id)
    decision_id = allocate(uow.session, "dec", now=uow.now, tz=uow.tz)
    result, body = review_of(uow, person=person, end=end)
    _, created = facts.append(
        uow,
        fact_type="decision",
        source="cognitive_core",
        person_refs=[person_id],
        dedup_key=key,
        content={
            "decision_id": decision_id,
            "kind": "direct_action",
            "actor": uow.actor,
            "inputs": [],
            "rule": "weekly_review:nothing_to_report" if result.empty else "weekly_review",
            "requested": [] if result.empty else [{"action": "notify", "notification_type": NOTIFICATION_TYPE}],
        },
    )
    if not created:
        raise _Taken
    if result.empty:
        return False
    outbound.notify(
        uow,
        to=person_id,
        text=body,
        decision_id=decision_id,
        key=key,
        notification_type=NOTIFICATION_TYPE,
        purpose=Purpose.brief,
        solicited=True,
    )
    return True


def send_due(ctx: AppContext, *, portion: Portion) -> int:
    """Decide the weekly reviews due now, as many as `portion` takes (once per principal and week, across
    replicas); how many were queued."""
    everyone = principals(ctx)
    with ctx.reader() as uow:
        wanted = due(everyone, uow.now, report="review")
        keys = [k for _, k, _ in wanted]
        done = set(uow.session.scalars(select(Fact.dedup_key).where(Fact.dedup_key.in_(keys)))) if keys else set()
    decided = queued = 0
    for person_id, key, moment in [w for w in wanted if w[1] not in done]:
        if not portion.more(decided):
            break
        try:
            with ctx.uow(actor="cognitive_core") as uow:
                queued += _decide(uow, person_id=person_id, key=key, end=moment)
        except _Taken:
            continue
        decided += 1
    return queued
