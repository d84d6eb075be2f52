"""From a `intents.Reading` to one decision (its command and how it was read); pure, no I/O.

The notes record what matched: `matched = {"rule": <table row>, "words": <the frame's words>}`. A request that
names nobody the bot knows, or that could be an ask or a tell, becomes a reply with `choices` (flows mints them as
buttons whose args carry the pending `request`, so one press completes it: press_rules `pick_person` /
`ask_or_tell`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from cognitive_core.language import forwarding, phrasing, promises
from cognitive_core.language.intents import Reading
from cognitive_core.language.parsing import is_acknowledgement
from cognitive_core.situation import Decision, PersonView
from concern import commands as c

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


_THANKS = re.compile(
    r"谢|辛苦|感谢|麻烦你了|\b(?:thanks?|thank you|thx|ty|cheers|appreciated?|no worries|much obliged)\b", re.I
)
_ACK = re.compile(
    r"^(?:哈+)?(?:(?:好的?|好嘞|好滴|行|可以|收到|知道了|明白|了解|嗯+"
    r"|ok|okay|got it|sounds good|great|cool|perfect|noted)"
    r"[\s!！。.~,，]*)+$",
    re.I,
)


def nothing_matched(text: str, *, principal: bool) -> Decision:
    """Thanks get a short social reply, an acknowledgement a nod, a greeting a greeting; a principal hears the
    closest request, a member the help."""
    bare = phrasing.without_emoji(text)
    if _THANKS.search(bare):
        return Decision("social:thanks", c.Reply("social_thanks"))
    if is_acknowledgement(text) or _ACK.match(bare):
        return Decision("social:acknowledgement", c.Reply("social_ack"))
    if _GREETING.match(text):
        return Decision("greeting", c.Reply("greeting"))
    if principal:
        return Decision("not_understood", c.Reply("not_understood", {"hint": hint(text)}))
    return Decision("fallback_help", c.Reply("help"))


def hint(text: str) -> str:
    """The intent a message that matched nothing comes closest to (ask when nothing is near)."""
    return hinted(text) or "ask"


def hinted(text: str) -> str | None:
    """The intent whose cue words a message that matched nothing has, if any."""
    return next((name for name, cue in _HINTS if re.search(cue, text, re.I)), None)


def _deadline(text: str, tz: str, now: datetime | None) -> dict[str, Any]:
    return promises.deadline(text, timezone=tz, now=now)


def request_of(
    reading: Reading, *, message: str, tz: str, now: datetime | None, speaker: PersonView | None = None
) -> dict[str, Any]:
    """The pending request a choice completes: intent, text (rewritten for its reader), priority and deadline."""
    text = reading.args.get("text", "")
    deadline = _deadline(message, tz, now)
    if reading.intent != "tell":  # a reply-by clause is the deadline, not words to pass on
        text = promises.without_reply_by(text, deadline.get("deadline_words", ""))
    if speaker is not None and text and reading.intent in ("ask", "tell", "nudge"):
        intent = "ask" if reading.intent == "nudge" or reading.ambiguous else reading.intent
        rule = reading.rule
        if intent == "ask" and re.search(
            rf"\b(?:ask|get|tell)\s+\S+(?:\s\S+)?\s+to\s+{re.escape(text[:8])}", message, re.I
        ):
            rule = "ask:en:have_them"  # "ask Priya to send me the contract": a request, not a question
        text = forwarding.rewrite(
            text,
            intent=intent,
            rule=rule,
            speaker=speaker.display_name,
            aliases=speaker.aliases,
            words=reading.words,
        )
    return {
        "intent": reading.intent,
        "text": text,
        **({"priority": reading.args["priority"]} if reading.args.get("priority") else {}),
        **deadline,
        "matched": {"rule": reading.rule, "words": reading.words},
    }


def complete(request: dict[str, Any], *, target_id: str, intent: str | None = None) -> Decision:
    """The decision a pending request becomes once its person (and ask-or-tell) is known."""
    intent = intent or request["intent"]
    notes = {"matched": request.get("matched", {})}
    priority = request.get("priority", phrasing.PLAIN_PRIORITY)
    if intent == "tell":
        return Decision("tell", c.Tell(target_id, request["text"], priority), notes)
    deadline = {k: request[k] for k in ("deadline", "deadline_words") if request.get(k)}
    return Decision("ask", c.Ask(target_id, request["text"], priority, **deadline), notes)


def about_someone(
    reading: Reading,
    *,
    message: str,
    sender_id: str,
    open_asks: tuple[tuple[str, str, str], ...],
    tz: str,
    now: datetime | None,
    speaker: PersonView | None = None,
) -> Decision:
    """Ask, tell, nudge or cancel about the person read (open_asks: (concern_id, target_id, question))."""
    notes = {"matched": {"rule": reading.rule, "words": reading.words}}
    request = request_of(reading, message=message, tz=tz, now=now, speaker=speaker)
    if reading.person is None:
        if not reading.suggestions:
            return Decision(f"{reading.intent}:unknown_person", c.Reply("unknown_person", {"who": reading.who}), notes)
        choices = [p.person_id for p in reading.suggestions]
        values = {"who": reading.who, "choices": choices, "request": request}
        return Decision(f"{reading.intent}:did_you_mean", c.Reply("did_you_mean_person", values), notes)
    target = reading.person.person_id
    if target == sender_id:
        return Decision(f"{reading.intent}:self", c.Reply("ask_self"), notes)
    if reading.intent in ("nudge", "cancel"):
        return _about_open(reading, target, open_asks, notes, request)
    if reading.ambiguous:
        values = {"target_person_id": target, "request": request}
        return Decision("ask_or_tell", c.Reply("ask_or_tell", values), notes)
    if not request["text"]:
        return Decision(
            f"{reading.intent}:what", c.Reply(f"{reading.intent}_what", {"target_person_id": target}), notes
        )
    completed = complete(request, target_id=target)
    return Decision(f"{completed.rule}:{reading.rule}", completed.command, completed.notes)


def _about_open(
    reading: Reading, target: str, open_asks: tuple[tuple[str, str, str], ...], notes: dict, request: dict
) -> Decision:
    """催一下张三 / 不用问张三了: the open question to them, or which one (buttons), or there is none."""
    mine = [(cid, question) for cid, tid, question in open_asks if tid == target]
    about = {"target_person_id": target, **notes}
    if len(mine) == 1 and reading.intent == "nudge":
        return Decision("nudge", c.Nudge(mine[0][0]), about)
    if len(mine) == 1:
        return Decision("cancel", c.Cancel(mine[0][0]), about)
    if mine:
        values = {"choices": mine, "target_person_id": target}
        return Decision(f"{reading.intent}:which", c.Reply(f"{reading.intent}_which", values), notes)
    if reading.intent == "nudge" and reading.args.get("text"):  # "催一下张三的设计稿" with nothing open: ask it
        completed = complete(request, target_id=target)
        return Decision("nudge:none_open:ask", completed.command, completed.notes)
    template = "nudge_what" if reading.intent == "nudge" else "nothing_to_cancel"
    return Decision(f"{reading.intent}:none_open", c.Reply(template, {"target_person_id": target}), notes)


def _did(reading: Reading, now: datetime | None) -> Decision:
    window = int(reading.args["window"].total_seconds()) if "window" in reading.args else 86400
    return Decision("did", c.Reply("did", {"today": bool(reading.args.get("today")), "window_s": window}))


def _pause(reading: Reading, now: datetime | None) -> Decision | None:
    if now is None:
        return None
    until = reading.args["until"] if "until" in reading.args else now + reading.args["duration"]
    return Decision("self_service:pause", c.SetPolicy({"paused_until": until.astimezone(UTC).isoformat()}))


def _away(reading: Reading, now: datetime | None) -> Decision:
    until = reading.args.get("until")
    return Decision(
        "self_service:away",
        c.SetAway(
            reading.args["status"],
            until.astimezone(UTC).isoformat() if until else None,
            reading.args["note"],
            reading.args.get("stand_in_id"),
        ),
    )


# The sender's own requests: intent → decision (snooze is the caller's: it needs what waits on the sender).
OWN: dict[str, Any] = {
    "status": lambda r, now: Decision("concerns", c.Reply("concerns")),
    "did": _did,
    "help": lambda r, now: Decision("help", c.Reply("help")),
    "quiet": lambda r, now: Decision("self_service:quiet", c.SetPolicy({"quiet_hours": r.args["windows"]})),
    "pause": _pause,
    "resume": lambda r, now: Decision("self_service:resume", c.SetPolicy({"paused_until": None})),
    "away": _away,
}


def own(reading: Reading, *, now: datetime | None) -> Decision | None:
    """Status, did, quiet, pause, resume, away and help: the sender's own requests (None: not one of them)."""
    row = OWN.get(reading.intent)
    decided = row(reading, now) if row is not None else None
    if decided is None:
        return None
    return Decision(decided.rule, decided.command, {"matched": {"rule": reading.rule, "words": reading.words}})
