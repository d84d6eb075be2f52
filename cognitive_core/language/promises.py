"""Pure rules for times in what people write: a promise in an answer, a deadline in an ask (no I/O)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from cognitive_core.language.when import Found, parse_when
from cognitive_core.situation import Decision
from concern.commands import Commit

HORIZON = timedelta(days=365)  # a promise or deadline further ahead than this is a misreading, not a plan
# An answer about the past ("已经3点发了", "sent it an hour ago") promises nothing.
_PAST = re.compile(r"已经|已|昨天|刚才|刚刚|之前发|\b(?:already|yesterday|ago|sent|did)\b", re.IGNORECASE)


def _ahead(found: Found | None, now: datetime) -> bool:
    return found is not None and now < found.at <= now + HORIZON


def promise(answer: str, *, concern_id: str, kind: str, role: str, timezone: str, now: datetime) -> dict | None:
    """The commitment an answer to a question makes ("明天下午3点给你", "by Friday 5pm"), as its command's fields.

    Only the person asked promises (not the manager answering an escalation), only to a question (a reply to a
    commitment's check-in keeps or extends that one), and only a time still ahead.
    """
    if kind != "question" or role != "target" or _PAST.search(answer):
        return None
    found = parse_when(answer, now=now, tz=timezone)
    if found is None or not _ahead(found, now):
        return None
    return {
        "parent_id": concern_id,
        "due_at": found.at.isoformat(),
        "words": found.words,
        "vague": found.vague,
    }


def commitment_decision(promised: dict) -> Decision:
    """The decision that opens the commitment `promise` found."""
    return Decision("commitment_in_answer", Commit(**promised))


def deadline(text: str, *, timezone: str, now: datetime | None) -> dict:
    """The deadline an ask names ("周五前", "by Friday", "今天下班前"), as params; {} for none or one past.

    Only a "before" reading is a deadline: "明天下午3点开会吗？" asks about a meeting, it sets no deadline.
    """
    if now is None:
        return {}
    found = parse_when(text, now=now, tz=timezone)
    if found is None or not found.before or not _ahead(found, now):
        return {}
    return {"deadline": found.at.isoformat(), "deadline_words": found.words}
