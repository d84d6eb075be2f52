"""Pure rules for the optional LLM: when it is asked, and how its proposal is judged (no I/O).

The LLM only proposes. A proposal becomes the typed command it stands for and goes through `rules.decide`, so
the person layer (who exists, who may ask whom) and every check a typed command meets apply unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from cognitive_core import rules
from cognitive_core.language import promises
from cognitive_core.language.parsing import slash_command
from kernel.limits import storable
from kernel.redaction import redact

# Rules that mean "the rules did not understand this message" (adjust here when the NL rules rename them).
NOT_UNDERSTOOD = rules.UNDERSTOOD_NOTHING  # the principal's one-line "did you mean", a member's help
NOT_UNDERSTOOD_PREFIXES = ("did_you_mean",)
CONTACTS = ("ask", "tell")  # proposals that would contact someone: confirmed by the principal first
READS = {"status": "/concerns", "did": "/did"}  # proposals that only read: answered at once
MAX_TEXT = 2000
PRIORITIES = ("P0", "P1", "P2", "P3")
# What the model may answer, kept here rather than in `client` (httpx): a process with the LLM off never loads it.
INTENTS = ("ask", "tell", "status", "did", "none")
MAX_RAW = 2000  # characters of the model's output kept in the facts


@dataclass(frozen=True)
class Answer:
    """What the model said: `status` ok (then `data` is the JSON object) or why not; `raw` as received."""

    status: str  # ok | timeout | rate_limited | http_error | unreachable | garbage
    raw: str = ""
    data: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        # Kept in a fact: cut to MAX_RAW, stripped of secrets a proxy may echo, and storable on every backend.
        object.__setattr__(self, "raw", storable(redact(self.raw[:MAX_RAW])))


def not_understood(decisions: list[rules.Decision]) -> bool:
    """The seam to the NL rules: True when their only answer to a message is "I did not understand"."""
    return len(decisions) == 1 and (
        decisions[0].rule in NOT_UNDERSTOOD or decisions[0].rule.startswith(NOT_UNDERSTOOD_PREFIXES)
    )


def wants_llm(situation: rules.Situation, decisions: list[rules.Decision]) -> bool:
    """Whether the LLM is asked about this message: a principal's free text the rules did not understand."""
    sender, text = situation.sender, situation.signal.text.strip()
    if sender is None or sender.role != "principal" or not text or slash_command(text) is not None:
        return False
    return not_understood(decisions)


@dataclass(frozen=True)
class Verdict:
    """What becomes of a proposal: `confirm` (ask the principal first), `answer` (at once), or `drop` (why)."""

    outcome: str  # confirm | answer | drop
    why: str = ""
    decision: rules.Decision | None = None
    target: rules.PersonView | None = None


def as_typed(situation: rules.Situation, command: str) -> list[rules.Decision]:
    """The seam to the NL rules: decide on `command` as if the sender had typed it in a private chat."""
    typed = replace(situation.signal, text=command, mentions_bot=False, chat_type="p2p", reply_to=None)
    return rules.decide(replace(situation, signal=typed, waiting=(), awaiting_name=()))


def judge(data: dict[str, Any] | None, situation: rules.Situation) -> Verdict:
    """Judge one proposal (the model's JSON object) against the rules and the people the sender's situation has."""
    if not isinstance(data, dict) or data.get("intent") not in INTENTS:
        return Verdict("drop", "intent")
    intent = data["intent"]
    if intent == "none":
        return Verdict("drop", "no_intent")
    if intent in READS:
        [decision] = as_typed(situation, READS[intent])
        return Verdict("answer", decision=decision)
    text, who, priority = data.get("text"), data.get("person"), data.get("priority")
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT:
        return Verdict("drop", "text")
    if priority is not None and priority not in PRIORITIES:
        return Verdict("drop", "priority")
    target = rules.find_person(who, situation.people) if isinstance(who, str) and who.strip() else None
    if target is None:
        return Verdict("drop", "unknown_person")
    command = " ".join(part for part in (f"/{intent}", f"@{target.person_id}", priority, text.strip()) if part)
    decided = as_typed(situation, command)
    if len(decided) != 1 or decided[0].rule != intent:
        return Verdict("drop", decided[0].rule)
    decision = decided[0]
    if intent == "ask" and data.get("deadline") is not None:
        deadline = _deadline(data["deadline"], situation)
        if deadline is None:
            return Verdict("drop", "deadline")
        decision = replace(decision, command=replace(decision.command, **deadline))
    return Verdict("confirm", decision=decision, target=target)


def _deadline(value: Any, situation: rules.Situation) -> dict | None:
    """An ISO 8601 instant ahead (within a year), or words the rules read as a deadline; None: impossible."""
    if not isinstance(value, str) or not value.strip() or situation.now is None:
        return None
    try:
        at = datetime.fromisoformat(value.strip())
    except ValueError:
        return promises.deadline(value, timezone=situation.sender.timezone, now=situation.now) or None
    if at.tzinfo is None or not situation.now < at <= situation.now + promises.HORIZON:
        return None
    return {"deadline": at.isoformat(), "deadline_words": value.strip()}
