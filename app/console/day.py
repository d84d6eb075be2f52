"""A person's day as the operator asks about it: what Deputy did for them today, oldest first.

Read from the fact log (the person's own index): the questions asked of them and the follow-ups, what was held
back and until when, what they said and pressed, the answers, the promises, the messages they were told, and
what could not be sent and why. Decisions and bookkeeping changes are left to the loop's own page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from app.console import describe
from app.console.i18n import Translator
from concern.models import Concern
from fact import service as facts
from kernel.context import UnitOfWork

LIMIT = 300  # facts of one person in one day that the page reads; a busier day links to the fact log
# concern_changed.change → the day's label (other changes are bookkeeping)
CHANGES = {
    "question_sent": "day_asked",
    "follow_up_sent": "day_followed_up",
    "nudge_sent": "day_followed_up",
    "rescheduled": "day_held",
    "delivery_deferred": "day_held",
    "resolved": "day_answered",
    "escalated": "day_escalated",
    "question_failed": "day_not_sent",
    "follow_up_failed": "day_not_sent",
    "undeliverable": "day_not_sent",
}


@dataclass(frozen=True)
class Entry:
    """One thing of the day: when, what kind (a `day_…` word), the line an operator reads, and its page."""

    at: datetime
    label: str
    line: str
    href: str
    css: str


def _loop_entry(fact: Any, kind: str, held_why: str) -> tuple[str, str] | None:
    c = fact.content
    change, after = c.get("change"), c.get("after") or {}
    if change == "raised" and kind == "commitment":
        return "day_promised", ""
    label = CHANGES.get(change or "")
    if label is None or (change == "rescheduled" and not c.get("blocked_by")):
        return None
    if label == "day_answered":
        return label, f"“{after.get('answer') or ''}”"
    if label == "day_held":
        return label, held_why
    return label, ""


def entries(
    uow: UnitOfWork, *, person_id: str, since: datetime, t: Translator, tz: ZoneInfo, now: datetime
) -> list[Entry]:
    """Everything of the day about `person_id` since `since`, oldest first."""
    found, _ = facts.list_(uow, filters=facts.FactFilter(person_id=person_id, since=since), limit=LIMIT)
    found.reverse()
    loops = _loops(uow, [f.content.get("concern_id") for f in found if f.fact_type == "concern_changed"])
    who = describe.names(uow, [person_id, *describe.people_in(found), *(target for *_, target in loops.values())])
    out: list[Entry] = []
    for fact in found:
        c, href = fact.content, describe.href(fact.fact_id)
        if fact.fact_type in ("message_received", "button_pressed"):
            label = "day_said" if fact.fact_type == "message_received" else "day_pressed"
            out.append(Entry(fact.timestamp, label, describe.fact_line(fact, t, who=who, tz=tz, now=now), href, label))
        elif fact.fact_type == "action_result" and c.get("target_person_id") == person_id:
            if c.get("action_type") == "send_message" and c.get("result") in ("success", "blocked"):
                continue  # the loop's own change says it (asked, followed up, held until …)
            label = "day_told" if c.get("result") == "success" else "day_not_sent"
            out.append(Entry(fact.timestamp, label, describe.fact_line(fact, t, who=who, tz=tz, now=now), href, label))
        elif fact.fact_type == "concern_changed":
            loop_id = c.get("concern_id") or ""
            held = _held_why(c, t, who=who.get(person_id, person_id), tz=tz, now=now)
            question, kind, target = loops.get(loop_id, ("", "", ""))
            if target and target != person_id:  # their own question, asked of someone else
                question = f"→ {who.get(target, target)}: {question}"
            found_entry = _loop_entry(fact, kind, held)
            if found_entry is not None:
                label, extra = found_entry
                line = " · ".join(p for p in (question, extra) if p)
                out.append(Entry(fact.timestamp, label, line, describe.href(loop_id), label))
    return out


def _held_why(content: dict[str, Any], t: Translator, *, who: str, tz: ZoneInfo, now: datetime) -> str:
    """`张三今天收到的消息已达上限，到 明天 00:00`: why and until when, from the loop's change."""
    after = content.get("after") or {}
    code = content.get("blocked_by")
    until = after.get("next_follow_up_at")
    if not code:
        return ""
    detail = {"blocked_by": code, "not_before": until} if until else {"blocked_by": code}
    return describe.reason(detail, t, target=who, tz=tz, now=now)


def _loops(uow: UnitOfWork, ids: list[str | None]) -> dict[str, tuple[str, str, str]]:
    """Loop id → (question, kind, target), in one query."""
    wanted = {i for i in ids if i}
    if not wanted:
        return {}
    stmt = select(Concern.concern_id, Concern.question, Concern.kind, Concern.target_person_id).where(
        Concern.concern_id.in_(wanted)
    )
    return {cid: (question, kind, target) for cid, question, kind, target in uow.session.execute(stmt)}
