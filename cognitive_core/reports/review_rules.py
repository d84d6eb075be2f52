"""The weekly review as a pure function over fact records (as `/v1/facts` returns them), and its text."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import median
from typing import Any

from cognitive_core.reports.brief_rules import clip
from cognitive_core.reports.brief_texts import age
from kernel.catalogue import Catalogue

ACTIVE = ("waiting_reply", "escalated")


@dataclass
class PersonStats:
    """One person asked, over the week."""

    questions: int = 0
    answered: int = 0
    answer_seconds: list[float] = field(default_factory=list)
    follow_ups: int = 0
    escalations: int = 0
    kept: int = 0
    slipped: int = 0

    @property
    def median_s(self) -> float | None:
        return median(self.answer_seconds) if self.answer_seconds else None

    @property
    def slowest_s(self) -> float | None:
        return max(self.answer_seconds) if self.answer_seconds else None


@dataclass
class Review:
    """What the principal reads on Monday."""

    people: dict[str, PersonStats]
    open_longest: list[tuple[str, str, datetime]]  # (person asked, question, raised at), oldest first
    delivered_to_me: int = 0
    capped: int = 0
    quiet_deferred: int = 0

    @property
    def empty(self) -> bool:
        return not self.people and not self.open_longest and not (self.delivered_to_me or self.capped)


def _at(fact: dict[str, Any]) -> datetime:
    value = fact["timestamp"]
    return value if isinstance(value, datetime) else datetime.fromisoformat(value)


def _order(fact: dict[str, Any]) -> tuple[datetime, int]:
    """Time, then the fact's sequence number (facts of one transaction share a timestamp)."""
    seq = str(fact.get("fact_id", "")).rpartition("_")[2]
    return _at(fact), int(seq) if seq.isdigit() else 0


def compute(facts: list[dict[str, Any]], *, person_id: str, start: datetime, end: datetime) -> Review:
    """The review of `person_id`'s week [start, end) from fact records (oldest first, any before `start` too)."""
    loops: dict[str, dict[str, Any]] = {}  # concern_id → {target, kind, question, raised, state}
    people: dict[str, PersonStats] = {}
    review = Review(people=people, open_longest=[])
    for fact in sorted(facts, key=_order):
        at, content = _at(fact), fact["content"]
        if fact["fact_type"] == "action_result":
            if content.get("target_person_id") == person_id and start <= at < end:
                blocked = (content.get("result_detail") or {}).get("blocked_by")
                review.delivered_to_me += content.get("result") == "success"
                review.capped += blocked == "L1:daily_cap"
                review.quiet_deferred += blocked == "L1:quiet_hours"
            continue
        if fact["fact_type"] != "concern_changed":
            continue
        cid, change, after = content.get("concern_id"), content.get("change"), content.get("after") or {}
        refs = fact.get("person_refs") or []
        if change == "raised" and refs and refs[0] == person_id:
            target = refs[1] if len(refs) > 1 else refs[0]
            loops[cid] = {
                "target": target,
                "kind": content.get("kind", "question"),
                "question": content.get("question", ""),
                "raised": at,
                "state": after.get("state"),
            }
            if start <= at < end and loops[cid]["kind"] == "question":
                people.setdefault(target, PersonStats()).questions += 1
            continue
        loop = loops.get(cid)
        if loop is None:
            continue
        loop["state"] = after.get("state", loop["state"])
        if not start <= at < end:
            continue
        stats = people.setdefault(loop["target"], PersonStats())
        if loop["kind"] == "question" and change == "resolved":
            stats.answered += 1
            stats.answer_seconds.append((at - loop["raised"]).total_seconds())
            stats.follow_ups += int(after.get("follow_up_count") or 0)
        elif change == "escalated":
            stats.escalations += 1
        elif change == "commitment_kept":
            stats.kept += bool(content.get("on_time", True))
            stats.slipped += not content.get("on_time", True)
        elif change == "commitment_slipped":
            stats.slipped += 1
    still_open = [(v["target"], v["question"], v["raised"]) for v in loops.values() if v["state"] in ACTIVE]
    review.open_longest = sorted(still_open, key=lambda item: item[2])[:3]
    return review


_TEXTS = {
    "title": {"zh": "**本周回顾 · {start}–{end}**", "en": "**Weekly review · {start}–{end}**"},
    "nothing": {"zh": "这一周没有要回顾的事。", "en": "Nothing to review this week."},
    "people": {"zh": "**按人**", "en": "**By person**"},
    "person": {
        "zh": "{who}：问 {q} · 答 {a} · 中位 {med} · 最慢 {slow} · 跟进 {f} · 升级 {e} · 守约 {k} · 逾期 {s}",
        "en": "{who}: {q} asked · {a} answered · median {med} · slowest {slow} · {f} follow-ups · {e} escalations"
        " · {k} promises kept · {s} slipped",
    },
    "open": {"zh": "**最久未结**", "en": "**Open longest**"},
    "open_item": {"zh": "{who}：{question} · 已等 {age}", "en": "{who}: {question} · {age}"},
    "me": {
        "zh": "**你自己**\n• 收到 {n} 条消息 · 上限拦下 {cap} 条 · 免打扰顺延 {quiet} 条",
        "en": "**You**\n• {n} messages to you · {cap} held by your daily cap · {quiet} deferred by quiet hours",
    },
}
TEXTS = Catalogue("cognitive_core.review_rules", _TEXTS)


def _t(name: str, locale: str, **values: Any) -> str:
    return TEXTS.text(name, locale, **values)


def render(review: Review, *, names: dict[str, str], locale: str, span: tuple[str, str], now: datetime) -> str:
    """The review as one message (the reader's language)."""
    if review.empty:
        return _t("nothing", locale)
    lines = [_t("title", locale, start=span[0], end=span[1])]
    dash = "-"
    if review.people:
        lines += ["", _t("people", locale)]
        for pid, s in sorted(review.people.items(), key=lambda kv: -kv[1].questions):
            med = age(timedelta(seconds=s.median_s), locale) if s.median_s is not None else dash
            slow = age(timedelta(seconds=s.slowest_s), locale) if s.slowest_s is not None else dash
            lines.append(
                "• "
                + _t(
                    "person",
                    locale,
                    who=names.get(pid, pid),
                    q=s.questions,
                    a=s.answered,
                    med=med,
                    slow=slow,
                    f=s.follow_ups,
                    e=s.escalations,
                    k=s.kept,
                    s=s.slipped,
                )
            )
    if review.open_longest:
        lines += ["", _t("open", locale)]
        for pid, question, raised in review.open_longest:
            lines.append(
                "• "
                + _t(
                    "open_item", locale, who=names.get(pid, pid), question=clip(question), age=age(now - raised, locale)
                )
            )
    lines += ["", _t("me", locale, n=review.delivered_to_me, cap=review.capped, quiet=review.quiet_deferred)]
    return "\n".join(lines)
