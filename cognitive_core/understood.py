"""From a `intents.Reading` to one decision, as (kind, rule, params); pure, no I/O.

The params record what matched: `matched = {"rule": <table row>, "words": <the frame's words>}`. A request that
names nobody the bot knows, or that could be an ask or a tell, becomes a reply with `choices` (flows mints them as
buttons whose args carry the pending `request`, so one press completes it: press_rules `pick_person` /
`ask_or_tell`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from cognitive_core import promises
from cognitive_core.intents import Reading
from cognitive_core.parsing import is_acknowledgement
from fact.decisions import DecisionKind

ABOUT_SOMEONE = frozenset({"ask", "tell", "nudge", "cancel"})  # the intents that name a person
# Cues for "did you mean …?" when nothing matched: the closest intent by the words that are there.
_HINTS = (
    ("pause", r"打扰|免打扰|暂停|安静|静音|disturb|pause|quiet|mute"),
    ("status", r"等谁|在等|进展|没回|waiting|pending|status"),
    ("did", r"做了|干了|did you|done"),
    ("tell", r"告诉|通知|转告|说一声|tell|let .* know|inform"),
    ("ask", r"问|确认|催|ask|check|chase|follow"),
)


_GREETING = re.compile(
    r"^(?:你好|您好|哈喽|嗨|在吗|在不在|早|早上好|下午好|晚上好|hi|hello|hey|yo|good (?:morning|afternoon|evening))"
    r"[\s!！。.~,，?？]*(?:deputy|bot|机器人)?[\s!！。.~?？]*$",
    re.I,
)


def nothing_matched(text: str, *, principal: bool) -> tuple[DecisionKind, str, dict]:
    """Thanks are let be, a greeting is greeted; a principal hears the closest request, a member the help."""
    if is_acknowledgement(text):
        return DecisionKind.ignore, "acknowledgement:nothing_waiting", {}
    if _GREETING.match(text):
        return DecisionKind.reply, "greeting", {"template": "greeting"}
    if principal:
        return DecisionKind.reply, "not_understood", {"template": "not_understood", "hint": hint(text)}
    return DecisionKind.reply, "fallback_help", {"template": "help"}


def hint(text: str) -> str:
    """The intent a message that matched nothing comes closest to (ask when nothing is near)."""
    return next((name for name, cue in _HINTS if re.search(cue, text, re.I)), "ask")


def _deadline(text: str, tz: str, now: datetime | None) -> dict[str, Any]:
    return promises.deadline(text, timezone=tz, now=now)


def request_of(reading: Reading, *, message: str, tz: str, now: datetime | None) -> dict[str, Any]:
    """The pending request a choice completes: intent, text, priority and deadline (JSON-safe)."""
    return {
        "intent": reading.intent,
        "text": reading.args.get("text", ""),
        **({"priority": reading.args["priority"]} if reading.args.get("priority") else {}),
        **_deadline(message, tz, now),
        "matched": {"rule": reading.rule, "words": reading.words},
    }


def complete(request: dict[str, Any], *, target_id: str, intent: str | None = None) -> tuple[DecisionKind, str, dict]:
    """The decision a pending request becomes once its person (and ask-or-tell) is known."""
    intent = intent or request["intent"]
    matched = request.get("matched", {})
    if intent == "tell":
        params = {"action": "notify", "target_person_id": target_id, "text": request["text"]}
        return (
            DecisionKind.direct_action,
            "tell",
            params | {"priority": request.get("priority", "P2"), "matched": matched},
        )
    params = {"target_person_id": target_id, "question": request["text"], "priority": request.get("priority", "P1")}
    deadline = {k: request[k] for k in ("deadline", "deadline_words") if request.get(k)}
    return DecisionKind.raise_concern, "ask", params | deadline | {"matched": matched}


def about_someone(
    reading: Reading,
    *,
    message: str,
    sender_id: str,
    open_asks: tuple[tuple[str, str, str], ...],
    tz: str,
    now: datetime | None,
) -> tuple[DecisionKind, str, dict]:
    """Ask, tell, nudge or cancel about the person read (open_asks: (concern_id, target_id, question))."""
    matched = {"rule": reading.rule, "words": reading.words}
    request = request_of(reading, message=message, tz=tz, now=now)
    if reading.person is None:
        if not reading.suggestions:
            params = {"template": "unknown_person", "who": reading.who, "matched": matched}
            return DecisionKind.reply, f"{reading.intent}:unknown_person", params
        choices = [p.person_id for p in reading.suggestions]
        params = {"template": "did_you_mean_person", "who": reading.who, "choices": choices, "request": request}
        return DecisionKind.reply, f"{reading.intent}:did_you_mean", params | {"matched": matched}
    target = reading.person.person_id
    if target == sender_id:
        return DecisionKind.reply, f"{reading.intent}:self", {"template": "ask_self", "matched": matched}
    if reading.intent in ("nudge", "cancel"):
        return _about_open(reading, target, open_asks, matched, request)
    if reading.ambiguous:
        params = {"template": "ask_or_tell", "target_person_id": target, "request": request, "matched": matched}
        return DecisionKind.reply, "ask_or_tell", params
    if not request["text"]:
        params = {"template": f"{reading.intent}_what", "target_person_id": target, "matched": matched}
        return DecisionKind.reply, f"{reading.intent}:what", params
    kind, rule, params = complete(request, target_id=target)
    return kind, f"{rule}:{reading.rule}", params


def _about_open(
    reading: Reading, target: str, open_asks: tuple[tuple[str, str, str], ...], matched: dict, request: dict
) -> tuple[DecisionKind, str, dict]:
    """催一下张三 / 不用问张三了: the open question to them, or which one (buttons), or there is none."""
    mine = [(cid, question) for cid, tid, question in open_asks if tid == target]
    common = {"target_person_id": target, "matched": matched}
    if len(mine) == 1 and reading.intent == "nudge":
        return DecisionKind.direct_action, "nudge", {"action": "nudge", "concern_id": mine[0][0], **common}
    if len(mine) == 1:
        return DecisionKind.cancel_concern, "cancel", {"concern_id": mine[0][0], **common}
    if mine:
        params = {"template": f"{reading.intent}_which", "choices": mine, **common}
        return DecisionKind.reply, f"{reading.intent}:which", params
    if reading.intent == "nudge" and reading.args.get("text"):  # "催一下张三的设计稿" with nothing open: ask it
        kind, _, params = complete(request, target_id=target)
        return kind, "nudge:none_open:ask", params
    template = "nudge_what" if reading.intent == "nudge" else "nothing_to_cancel"
    return DecisionKind.reply, f"{reading.intent}:none_open", {"template": template, **common}


def own(reading: Reading, *, now: datetime | None) -> tuple[DecisionKind, str, dict] | None:
    """Status, did, quiet, pause, resume and help: the sender's own requests (snooze is the caller's)."""
    matched = {"rule": reading.rule, "words": reading.words}
    args = reading.args
    if reading.intent == "status":
        return DecisionKind.reply, "concerns", {"template": "concerns", "matched": matched}
    if reading.intent == "did":
        window = int(args["window"].total_seconds()) if "window" in args else 86400
        params = {"template": "did", "today": bool(args.get("today")), "window_s": window, "matched": matched}
        return DecisionKind.reply, "did", params
    if reading.intent == "help":
        return DecisionKind.reply, "help", {"template": "help", "matched": matched}
    if reading.intent == "quiet":
        patch = {"quiet_hours": args["windows"]}
        return (
            DecisionKind.direct_action,
            "self_service:quiet",
            {"action": "policy", "patch": patch, "matched": matched},
        )
    if reading.intent == "pause" and now is not None:
        until = args["until"] if "until" in args else now + args["duration"]
        patch = {"paused_until": until.astimezone(UTC).isoformat()}
        return (
            DecisionKind.direct_action,
            "self_service:pause",
            {"action": "policy", "patch": patch, "matched": matched},
        )
    if reading.intent == "resume":
        patch = {"paused_until": None}
        return DecisionKind.direct_action, "self_service:resume", {"action": "policy", "patch": patch,
                                                                   "matched": matched}  # fmt: skip
    return None
