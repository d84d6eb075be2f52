"""Scoring understanding: each held-out row through `decide`, as the principal's message, field by field.

A row is right only when every field it states is right: intent, person, priority, deadline (same local day and
part of day), and the exact text the recipient reads (rendered by the same functions the engine sends with).
`score` returns one verdict per row; `table` prints rights per intent and per language.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml

from cognitive_core.rules import Decision, OpenAsk, PersonView, SignalView, Situation, decide
from concern.texts import messages

HERE = Path(__file__).resolve().parent
CONTACTS = {"ask", "tell", "nudge", "cancel"}  # intents that reach (or change what reaches) another person
_PARTS = ((5, "morning"), (12, "afternoon"), (18, "evening"))


@dataclass(frozen=True)
class Cast:
    """The principal, everyone, the open loops and the moment the held-out set is read at."""

    principal: PersonView
    people: tuple[PersonView, ...]
    open_asks: tuple[OpenAsk, ...]
    now: datetime


@dataclass
class Verdict:
    """One row: what was expected, what was read, and which fields were wrong."""

    row: dict[str, Any]
    got: dict[str, Any]
    wrong: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool:
        return not self.wrong


def cast() -> Cast:
    """The people of tests/heldout/people.yaml as the rules see them."""
    data = yaml.safe_load((HERE / "people.yaml").read_text(encoding="utf-8"))
    tz, p = data["timezone"], data["principal"]
    boss = PersonView(p["id"], p["display_name"], role="principal", timezone=tz, aliases=tuple(p["aliases"]))
    others = tuple(
        PersonView(q["id"], q["display_name"], aliases=tuple(q["aliases"]), locale=q["language"], timezone=tz)
        for q in data["people"]
    )
    loops = tuple(
        OpenAsk(f"con_20260318_{i:03d}", loop["person"], loop["question"])
        for i, loop in enumerate(data["open_loops"], 1)
    )
    return Cast(boss, (boss, *others), loops, datetime.fromisoformat(data["now"]))


def rows() -> list[dict[str, Any]]:
    """The held-out requests."""
    return yaml.safe_load((HERE / "requests.yaml").read_text(encoding="utf-8"))["requests"]


def _when(iso: str | None, c: Cast) -> dict[str, Any] | None:
    if not iso:
        return None
    local = datetime.fromisoformat(iso).astimezone(ZoneInfo(c.principal.timezone))
    day = (local.date() - c.now.astimezone(local.tzinfo).date()).days
    part = next((name for start, name in reversed(_PARTS) if local.hour >= start), "night")
    return {"day": day, "part": part}


def _person(c: Cast, person_id: str | None) -> PersonView | None:
    return next((p for p in c.people if p.person_id == person_id), None)


def said(decision: Decision, c: Cast) -> str | None:
    """The text the recipient reads, rendered as the engine renders it."""
    target = _person(c, decision.params.get("target_person_id"))
    if target is None:
        return None
    if decision.kind.value == "raise_concern":
        question = decision.params["question"]
        return messages.question(c.principal.display_name, question, target.locale, c.principal.aliases)
    if decision.params.get("action") == "notify":
        return messages.relay(c.principal.display_name, decision.params["text"], target.locale, c.principal.aliases)
    return None


_REPLIES = {
    "concerns": "status",
    "status_of": "status",
    "did": "did",
    "help": "help",
    "greeting": "social",
    "social_thanks": "social",
    "social_ack": "social",
    "brief": "brief",
    "review": "review",
    "reminders": "reminders",
    "unknown_person": "unknown_person",
}


def reading(decision: Decision, c: Cast) -> dict[str, Any]:
    """What one decision means in the held-out set's terms (intent, person, priority, deadline, say)."""
    p, kind = decision.params, decision.kind.value
    got: dict[str, Any] = {"intent": "none", "person": p.get("target_person_id"), "rule": decision.rule}
    if kind == "raise_concern" and p.get("kind") == "reminder":
        got.update(intent="remind", at=_when(p.get("due_at"), c), say=p.get("text"))
    elif kind == "raise_concern":
        got.update(
            intent="ask", priority=p.get("priority"), deadline=_when(p.get("deadline"), c), say=said(decision, c)
        )
    elif kind == "cancel_concern":
        got.update(intent="cancel")
    elif kind == "direct_action" and p.get("action") == "notify":
        got.update(intent="tell", priority=p.get("priority"), say=said(decision, c))
    elif kind == "direct_action" and p.get("action") == "nudge":
        got.update(intent="nudge")
    elif kind == "direct_action" and p.get("action") == "away":  # a work state said in chat (SetAway)
        got.update(intent="away", status=p.get("status"), until=_when(p.get("until"), c), stand_in=p.get("stand_in_id"))
    elif kind == "direct_action" and p.get("action") == "policy":
        patch = p.get("patch", {})
        got["intent"] = "quiet" if "quiet_hours" in patch else "pause" if patch.get("paused_until") else "resume"
    elif kind == "reply":
        got["intent"] = _REPLIES.get(p.get("template", ""), "none")
        got["name"] = p.get("who")
    return got


def _wrong(row: dict[str, Any], got: dict[str, Any]) -> list[str]:
    wrong = [] if got["intent"] == row["intent"] else ["intent"]
    if wrong:
        return wrong
    if row["intent"] in CONTACTS | {"status"} and got.get("person") != row.get("person"):
        wrong.append("person")
    if row["intent"] == "unknown_person" and got.get("name") != row["name"]:
        wrong.append("name")
    if row["intent"] in ("ask", "tell") and got.get("priority") != row["priority"]:
        wrong.append("priority")
    for key in ("deadline", "at"):
        if row["intent"] in ("ask", "remind") and key in got and not _same_time(row.get(key), got[key]):
            wrong.append(key)
    if row["intent"] == "away":
        wrong += _away_wrong(row, got)
    if "say" in row and got.get("say") != row["say"]:
        wrong.append("say")
    return wrong


def _away_wrong(row: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """The away fields a row states: status, the return (day and part of day, like a deadline), the stand-in."""
    wrong = [key for key in ("status", "stand_in") if key in row and got.get(key) != row[key]]
    if isinstance(row.get("until"), dict) or ("until" in row and row["until"] is None):
        wrong += [] if _same_time(row["until"], got.get("until")) else ["until"]
    return wrong


def _same_time(expected: dict | None, got: dict | None) -> bool:
    if expected is None or got is None:
        return expected is got
    return expected["day"] == got["day"] and expected.get("part", got["part"]) == got["part"]


def verdict(row: dict[str, Any], c: Cast) -> Verdict:
    """Read one row as the principal's message (a DM, or a group message with or without the bot mentioned)."""
    group = row.get("chat") == "group"
    signal = SignalView(
        "fact_heldout", "telegram", row["text"], "group" if group else "p2p", row.get("mentioned", False)
    )
    decisions = decide(Situation(signal, c.principal, c.people, (), c.now, open_asks=c.open_asks))
    got = reading(decisions[0], c) if decisions else {"intent": "none", "person": None, "rule": "nothing"}
    return Verdict(row, got, _wrong(row, got))


def score() -> list[Verdict]:
    """Every held-out row's verdict."""
    c = cast()
    return [verdict(row, c) for row in rows()]


def contacted_wrongly(v: Verdict) -> bool:
    """The row reached someone, and not the person the principal meant (or nobody was meant)."""
    return v.got["intent"] in CONTACTS and v.got.get("person") is not None and v.got["person"] != v.row.get("person")


def table(verdicts: list[Verdict], *, title: str) -> str:
    """Right / total per intent and per language, and the rows that were wrong."""
    by: dict[str, list[bool]] = defaultdict(list)
    for v in verdicts:
        by[f"intent {v.row['intent']}"].append(v.right)
        by[f"lang {v.row['lang']}"].append(v.right)
    total = sum(v.right for v in verdicts)
    lines = [f"{title}: {total}/{len(verdicts)} right ({total / len(verdicts):.1%})"]
    lines += [f"  {key:<24} {sum(ok)}/{len(ok)} ({sum(ok) / len(ok):.0%})" for key, ok in sorted(by.items())]
    return "\n".join(lines)


def misses(verdicts: list[Verdict]) -> str:
    """One line per wrong row: what was expected, what was read."""
    lines = []
    for v in verdicts:
        if not v.right:
            got = {k: v.got.get(k) for k in ("intent", "person", "say", "rule") if v.got.get(k) is not None}
            lines.append(f"  {v.row['id']} {v.row['text']!r}: wrong {','.join(v.wrong)}; got {got}")
    return "\n".join(lines)
