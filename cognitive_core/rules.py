"""`decide`: the pure rules that turn one signal into decisions (no I/O, no clock of its own)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from cognitive_core import intents, promises, reminding, understood
from cognitive_core.parsing import Intent, is_acknowledgement, keyword_command, parse, slash_command, strip_bot_mention
from cognitive_core.situation import (  # noqa: F401 (the rules' data, re-exported: callers import it from here)
    UNDERSTOOD_NOTHING,
    Decision,
    OpenAsk,
    PersonView,
    SignalView,
    Situation,
    WaitingConcern,
)
from fact.decisions import DecisionKind

# Words that make a member's message a decision for their manager (money, contracts, legal, approvals).
_RISK = "付款 打款 转账 报销 预算 合同 签约 法务 律师 诉讼 审批 批准 采购 发票 报价 赔偿 罚款 涨薪 " + (
    "payment refund budget contract legal lawyer lawsuit approve approval purchase invoice compensation salary"
)
RISK_KEYWORDS = tuple(_RISK.split())


def find_person(
    who: str, people: tuple[PersonView, ...], mentions: tuple[tuple[str | None, str], ...] = ()
) -> PersonView | None:
    """Match by person id, display name, alias or platform mention (case-insensitive)."""
    key = who.strip().lstrip("@").strip().casefold()
    for ext_id, name in mentions:
        if name.strip().lstrip("@").casefold() == key and ext_id:
            for person in people:
                if any(e == ext_id for _, e in person.external_ids):
                    return person
    for person in people:
        names = {
            person.person_id.casefold(),
            person.person_id.removeprefix("p_").casefold(),
            person.display_name.casefold(),
            *(a.casefold() for a in person.aliases),
        }
        if key in names:
            return person
    return None


def _answered_concern(situation: Situation) -> WaitingConcern | None:
    if not situation.waiting:
        return None
    if situation.signal.reply_to:
        for c in situation.waiting:
            if situation.signal.reply_to in c.message_refs:
                return c
    epoch = datetime.min.replace(tzinfo=situation.now.tzinfo) if situation.now else None
    return max(situation.waiting, key=lambda c: (c.last_contact_at or epoch, c.concern_id))


def _risky(text: str) -> list[str]:
    lowered = text.casefold()
    return [k for k in RISK_KEYWORDS if (k in lowered if not k.isascii() else re.search(rf"\b{k}", lowered))]


def _command(intent: Intent, situation: Situation) -> Decision:
    sender = situation.sender
    assert sender is not None
    name, args = intent.name, intent.args
    if name in ("ask", "tell"):
        if sender.role != "principal":
            return Decision(DecisionKind.reply, f"{name}:not_principal", {"template": "not_principal"})
        target = find_person(args["who"], situation.people, situation.signal.mentions)
        if target is None:
            return Decision(
                DecisionKind.reply, f"{name}:unknown_person", {"template": "unknown_person", "who": args["who"]}
            )
        if target.person_id == sender.person_id:
            return Decision(DecisionKind.reply, f"{name}:self", {"template": "ask_self"})
        if name == "ask":
            return Decision(
                DecisionKind.raise_concern,
                "ask",
                {
                    "target_person_id": target.person_id,
                    "question": args["text"],
                    "priority": args.get("prio", "P1").upper(),
                    **promises.deadline(args["text"], timezone=sender.timezone, now=situation.now),
                },
            )
        return Decision(
            DecisionKind.direct_action,
            "tell",
            {
                "action": "notify",
                "target_person_id": target.person_id,
                "text": args["text"],
                "priority": args.get("prio", "P2").upper(),
            },
        )
    if name == "remind":
        return _remind(args["rest"], situation)
    if name == "cancel":
        return Decision(DecisionKind.cancel_concern, "cancel", {"concern_id": args["concern_id"]})
    if name == "snooze":
        concern = _answered_concern(situation)
        if concern is None:
            return Decision(DecisionKind.reply, "snooze:nothing_waiting", {"template": "nothing_to_snooze"})
        return Decision(
            DecisionKind.snooze_concern,
            "snooze",
            {"concern_id": concern.concern_id, "duration_s": int(args["duration"].total_seconds())},
        )
    if name == "quiet":
        return Decision(
            DecisionKind.direct_action,
            "self_service:quiet",
            {"action": "policy", "patch": {"quiet_hours": [{"start": args["start"], "end": args["end"]}]}},
        )
    if name == "pause":
        until = situation.now + args["duration"]
        return Decision(
            DecisionKind.direct_action,
            "self_service:pause",
            {"action": "policy", "patch": {"paused_until": until.isoformat()}},
        )
    if name == "resume":
        return Decision(
            DecisionKind.direct_action, "self_service:resume", {"action": "policy", "patch": {"paused_until": None}}
        )
    if name == "did":
        params: dict[str, Any] = {
            "template": "did",
            "today": bool(args.get("today")),
            "window_s": int(args["window"].total_seconds()) if "window" in args else 86400,
        }
        if args.get("who"):
            who = find_person(args["who"], situation.people, situation.signal.mentions)
            params["person_id"] = who.person_id if who else None
        return Decision(DecisionKind.reply, "did", params)
    if name == "brief":
        return Decision(DecisionKind.reply, "brief", {"template": "brief", "all": bool(args.get("all"))})
    if name == "review":
        return Decision(DecisionKind.reply, "review", {"template": "review"})
    return Decision(DecisionKind.reply, name, {"template": name})


def _remind(rest: str, situation: Situation) -> Decision:
    """A reminder for the sender themselves; its time must be ahead (a past one is said back, nothing set)."""
    read = reminding.read(rest, now=situation.now, tz=situation.sender.timezone)
    if read is None:
        return _usage("remind")
    at, text, words = read
    if at <= situation.now:
        return Decision(DecisionKind.reply, "remind:past", {"template": "remind_past", "at": at.isoformat()})
    return Decision(
        DecisionKind.raise_concern,
        "remind",
        {"kind": "reminder", "due_at": at.isoformat(), "text": text, "words": words},
    )


def _usage(command: str) -> Decision:
    """A malformed command gets the hint for that command only; an unknown one says so."""
    if command.startswith("/"):
        return Decision(DecisionKind.reply, "unknown_command", {"template": "unknown_command", "command": command})
    return Decision(DecisionKind.reply, f"usage:{command}", {"template": f"usage:{command}"})


def _names_someone_else(intent: Intent, situation: Situation) -> bool:
    """A principal's request about a known other person: a request, even from someone who owes an answer."""
    if intent.name not in understood.ABOUT_SOMEONE or situation.sender is None or situation.sender.role != "principal":
        return False
    target = intent.args.get("person") or find_person(
        intent.args.get("who", ""), situation.people, situation.signal.mentions
    )
    return target is not None and target.person_id != situation.sender.person_id


# Commands about the sender's own things: never read as a reply to what waits on them.
_OWN = ("snooze", "remind", "reminders")


def _from_someone_waited_on(situation: Situation, text: str, intent: Intent | None) -> Decision | None:
    """For a person with a waiting concern, only slash commands are commands; anything else is their reply.

    Exceptions: a bare acknowledgement ("收到") keeps the loop open; "稍后 2小时" snoozes (the follow-up
    suggests it); a principal's request that names someone else is that request.
    """
    concern = _answered_concern(situation)
    media = situation.signal.media_kind
    if concern is None or not (text or media):
        return None
    quoted = situation.signal.reply_to is not None and situation.signal.reply_to in concern.message_refs
    if not media and is_acknowledgement(text):
        if concern.role == "escalation":
            return Decision(DecisionKind.ignore, "acknowledgement:escalation", {"concern_id": concern.concern_id})
        return Decision(
            DecisionKind.snooze_concern, "acknowledgement", {"concern_id": concern.concern_id, "acknowledgement": True}
        )
    if not quoted and intent is not None and (intent.name in _OWN or _names_someone_else(intent, situation)):
        return None
    rule = (
        "quoted_reply"
        if quoted
        else ("escalation_reply" if concern.role == "escalation" else "reply_to_waiting_concern")
    )
    params = {"concern_id": concern.concern_id, "answer": text}
    if media:
        params["media_kind"] = media
    return Decision(DecisionKind.resolve_concern, rule if not media else f"{rule}:media", params)


def _names_who_to_ask(situation: Situation, text: str) -> Decision | None:
    """After "Ask someone else", the originator's next plain message naming a known person is who to ask."""
    if not situation.awaiting_name or len(text) > 40:
        return None
    concern_id, _ = situation.awaiting_name[-1]
    target = find_person(text, situation.people, situation.signal.mentions)
    if target is None or target.person_id == situation.sender.person_id:
        return None
    return Decision(
        DecisionKind.direct_action,
        "reassign",
        {"action": "reassign", "concern_id": concern_id, "target_person_id": target.person_id},
    )


def _promised(answer: Decision, situation: Situation, text: str) -> list[Decision]:
    """An answer that names a time ahead also opens a commitment (cognitive_core.promises)."""
    if answer.kind != DecisionKind.resolve_concern or situation.now is None:
        return []
    concern = next(c for c in situation.waiting if c.concern_id == answer.params["concern_id"])
    params = promises.promise(
        text,
        concern_id=concern.concern_id,
        kind=concern.kind,
        role=concern.role,
        timezone=situation.sender.timezone,
        now=situation.now,
    )
    return [Decision(*promises.commitment_decision(params))] if params else []


def _read(situation: Situation, text: str) -> intents.Reading | None:
    """The plain-words reading of a message (intents.read), in the sender's timezone."""
    sender = situation.sender
    return intents.read(
        text,
        people=situation.people,
        mentions=situation.signal.mentions,
        sender_id=sender.person_id if sender else None,
        now=situation.now,
        tz=sender.timezone if sender else "UTC",
    )


def _as_intent(reading: intents.Reading | None) -> Intent | None:
    """A reading as the command intent `_from_someone_waited_on` weighs (its person already found)."""
    if reading is None or reading.ambiguous:
        return Intent(reading.intent, {"person": reading.person}) if reading else None
    return Intent(reading.intent, {**reading.args, "person": reading.person})


def _understood(reading: intents.Reading, situation: Situation, text: str) -> Decision:
    """The decision for a plain-words request (cognitive_core.understood builds it)."""
    sender = situation.sender
    matched = {"rule": reading.rule, "words": reading.words}
    if reading.intent in understood.ABOUT_SOMEONE:
        if sender.role != "principal":
            return Decision(DecisionKind.reply, f"{reading.intent}:not_principal", {"template": "not_principal"})
        open_asks = tuple((a.concern_id, a.target_person_id, a.question) for a in situation.open_asks)
        return Decision(
            *understood.about_someone(
                reading,
                message=text,
                sender_id=sender.person_id,
                open_asks=open_asks,
                tz=sender.timezone,
                now=situation.now,
            )
        )
    if reading.intent == "snooze":
        decided = _command(Intent("snooze", reading.args), situation)
        return Decision(decided.kind, decided.rule, {**decided.params, "matched": matched})
    own = understood.own(reading, now=situation.now)
    if own is None:
        return Decision(DecisionKind.reply, "not_understood", {"template": "not_understood", "hint": reading.intent})
    return Decision(*own)


def _unknown_in_command(intent: Intent | None, situation: Situation) -> bool:
    """`问一下小张：…`: a keyword ask or tell whose name nobody has (the plain-words reading may suggest one)."""
    return (
        intent is not None
        and intent.name in ("ask", "tell")
        and find_person(intent.args["who"], situation.people, situation.signal.mentions) is None
    )


def decide(situation: Situation) -> list[Decision]:
    """Decisions for one inbound message (an empty list never happens: at least `ignore`)."""
    sig = situation.signal
    if sig.chat_type == "group" and not sig.mentions_bot:
        return [Decision(DecisionKind.ignore, "group_without_mention")]
    text = strip_bot_mention(sig.text) if sig.mentions_bot else sig.text.strip()
    intent = parse(text)
    if intent is not None and intent.name == "bind":
        return [Decision(DecisionKind.direct_action, "bind_code", {"action": "bind", "code": intent.args["code"]})]
    if situation.sender is None:
        if intent is not None and intent.name == "help":  # how to get linked: to the chat, not to a person
            return [Decision(DecisionKind.reply, "unknown_sender:help", {"template": "stranger_help"})]
        return [Decision(DecisionKind.ignore, "unknown_sender")]
    if (slash := slash_command(text)) is not None:  # anything that starts as a command is a command
        return [_command(intent, situation) if intent is not None else _usage(slash)]
    reading = _read(situation, text) if intent is None or _unknown_in_command(intent, situation) else None
    if reading is not None:
        intent = None  # the plain-words reading knows more than the keyword command
    if intent is None and reading is None and (named := _names_who_to_ask(situation, text)) is not None:
        return [named]
    if (answer := _from_someone_waited_on(situation, text, intent or _as_intent(reading))) is not None:
        return [answer, *_promised(answer, situation, text)]
    if intent is not None:
        return [_command(intent, situation)]
    if reading is not None:
        return [_understood(reading, situation, text)]
    if (keyword := keyword_command(text)) is not None:
        return [_usage(keyword)]
    keywords = _risky(text)
    if keywords and situation.sender.role != "principal":
        maker = situation.sender.manager_id or next(
            (
                person.person_id
                for person in situation.people
                if person.role == "principal" and person.person_id != situation.sender.person_id
            ),
            None,
        )
        if maker is not None:
            return [
                Decision(
                    DecisionKind.escalate,
                    "risk_keywords",
                    {"decision_maker_id": maker, "question": text, "keywords": keywords},
                )
            ]
    return [Decision(*understood.nothing_matched(text, principal=situation.sender.role == "principal"))]
