"""Pure rules for times in what people write: a promise in an answer, a deadline in an ask (no I/O)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from cognitive_core.language.when import Found, every_when, parse_when
from cognitive_core.situation import Decision
from concern.commands import Commit

HORIZON = timedelta(days=365)  # a promise or deadline further ahead than this is a misreading, not a plan
# An answer about the past ("已经3点发了", "sent it an hour ago") promises nothing.
_PAST = re.compile(r"已经|已|昨天|刚才|刚刚|之前发|\b(?:already|yesterday|ago|sent|did)\b", re.IGNORECASE)


def _ahead(found: Found | None, now: datetime) -> bool:
    return found is not None and now < found.at <= now + HORIZON


# The sender commits themself: a first-person future or a delivery verb towards the asker.
_COMMITS = re.compile(
    r"给你|给您|发你|发您|发给你|交给你|回你|回复你|告诉你|我会|我争取|争取|保证|我尽量|之前(?:给|发|交|弄|搞|做|完成)"
    r"|前(?:给|发|交|弄好|搞定|完成|做完|改好|出)|(?:能|可以|会)(?:给|发|交|弄好|搞定|完成|做完|改好|出来)"
    r"|\b(?:i'll|i will|i can|i should|we'll|we will|you'll (?:have|get)"
    r"|will (?:send|have|get|finish|deliver|do|be done)|should be (?:ready|done)|expect it|promise|by|before)\b"
    r"|(?:之前|以前|前)(?:$|[，,。!！])",
    re.I,
)
# A question that asks when something will be delivered: a bare time in its answer is a promise.
_ASKS_DELIVERY = re.compile(
    r"(?:什么时候|何时|几点|哪天|多久)(?:能|可以|会)?(?:给|交|发|好|完成|出|弄完|搞定|上线|提测|做完|改完)"
    r"|(?:能|可以)(?:给|交|发|好|完成|出)|能不能.{0,12}(?:前|之前)|\beta\b|by when"
    r"|when (?:can|will|could) (?:you|it|we)|when (?:is|will) (?:it|the \w+) (?:be )?(?:ready|done)",
    re.I,
)


def commits(answer: str, question: str) -> bool:
    """Whether an answer commits its sender to a time, judged with the question it answers.

    "明天下午给你" commits; "下午三点" commits only when the question asked when something will be delivered
    ("提测什么时候能给"), not when it asked for a time as information ("明天的会几点开始").
    """
    return bool(_COMMITS.search(answer) or _ASKS_DELIVERY.search(question))


def promise(
    answer: str, *, concern_id: str, kind: str, role: str, timezone: str, now: datetime, question: str | None = None
) -> dict | None:
    """The commitment an answer to a question makes ("明天下午3点给你", "by Friday 5pm"), as its command's fields.

    Only the person asked promises (not the manager answering an escalation), only to a question (a reply to a
    commitment's check-in keeps or extends that one), and only a time still ahead.
    """
    if kind != "question" or role != "target" or _PAST.search(answer):
        return None
    if question is not None and not commits(answer, question):
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
    found = next((f for f in every_when(text, now=now, tz=timezone) if f.before), None)  # "明天的会几点, EOD前回我"
    if found is None or not _ahead(found, now):
        return {}
    return {"deadline": found.at.isoformat(), "deadline_words": found.words}


def without_reply_by(body: str, words: str) -> str:
    """The body without the clause that only says when to answer ("…，一小时内回我", "…, by EOD please").

    Only a clause of its own at the end goes: "周五前能不能把方案给我" keeps its "周五前" (it is what is asked).
    """
    if not words or words not in body:
        return body
    lead = r"(?:(?:i\s+)?need\s+(?:an\s+answer|it|this|to\s+know)|answer|reply|respond|get back to me|最晚|最迟)"
    tail = r"(?:回我|回复我?|给我(?:个)?(?:答复|回复|回音|回话|消息)|答复|回个话|please|pls|thanks|at the latest)"
    said = re.escape(words)
    clause = re.compile(  # after a comma or a stop; after a space only with words that say "answer me"
        rf"(?:[,，;；:：—\-.。!！?？]+\s*{lead}?\s*{said}|\s+{lead}\s*{said}|\s+{said}(?=\s*{tail}))"
        rf"\s*(?:{tail}|[!！.。])*\s*$",
        re.I,
    )
    kept = clause.sub("", body)
    return body if kept == body or not kept.strip() else kept
