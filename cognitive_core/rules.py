"""`decide`: the pure rules that turn one signal into decisions (no I/O, no clock of its own).

Typed commands go through `typed.TYPED`, plain words through the intent table (`intents.read` → `understood`);
what a person owing an answer writes is their answer. Every decision carries a `concern.commands` command.
"""

from __future__ import annotations

import re

from cognitive_core import typed
from cognitive_core.language import classifier, gist, guesses, intents, learned, promises, understood
from cognitive_core.language.names import find_person
from cognitive_core.language.parsing import (
    Intent,
    is_acknowledgement,
    keyword_command,
    parse,
    slash_command,
    strip_bot_mention,
)
from cognitive_core.situation import (  # noqa: F401 (the rules' data, re-exported: callers import it from here)
    UNDERSTOOD_NOTHING,
    Decision,
    OpenAsk,
    PersonView,
    SignalView,
    Situation,
    WaitingConcern,
)
from concern import commands as c

__all__ = ["Decision", "OpenAsk", "PersonView", "SignalView", "Situation", "WaitingConcern", "decide", "find_person"]

# Words that make a member's message a decision for their manager (money, contracts, legal, approvals).
_RISK = "付款 打款 转账 报销 预算 合同 签约 法务 律师 诉讼 审批 批准 采购 发票 报价 赔偿 罚款 涨薪 " + (
    "payment refund budget contract legal lawyer lawsuit approve approval purchase invoice compensation salary"
)
RISK_KEYWORDS = tuple(_RISK.split())


def _risky(text: str) -> list[str]:
    lowered = text.casefold()
    return [k for k in RISK_KEYWORDS if (k in lowered if not k.isascii() else re.search(rf"\b{k}", lowered))]


def _names_someone_else(intent: Intent, situation: Situation) -> bool:
    """A principal's request about a known other person: a request, even from someone who owes an answer."""
    if intent.name not in understood.ABOUT_SOMEONE or situation.sender is None or situation.sender.role != "principal":
        return False
    target = intent.args.get("person") or find_person(
        intent.args.get("who", ""), situation.people, situation.signal.mentions
    )
    return target is not None and target.person_id != situation.sender.person_id


# Commands about the sender's own things: never read as a reply to what waits on them.
_OWN = ("snooze", "remind", "reminders", "away")
# Saying one is back is a command even from someone waited on; a bare "恢复" may be their answer ("服务恢复了吗？").
_BACK = re.compile(r"我(?:已经)?回来了|回来上班了|销假|i'?m back|i am back|back from", re.I)


def _from_someone_waited_on(situation: Situation, text: str, intent: Intent | None) -> Decision | None:
    """For a person with a waiting concern, only slash commands are commands; anything else is their reply.

    Exceptions: a bare acknowledgement ("收到") keeps the loop open; "稍后 2小时" snoozes (the follow-up
    suggests it); a principal's request that names someone else is that request.
    """
    concern = typed.answered_concern(situation)
    media = situation.signal.media_kind
    if concern is None or not (text or media):
        return None
    quoted = situation.signal.reply_to is not None and situation.signal.reply_to in concern.message_refs
    if not media and is_acknowledgement(text):
        if concern.role == "escalation":
            return Decision("acknowledgement:escalation", c.Ignore({"concern_id": concern.concern_id}))
        return Decision("acknowledgement", c.Acknowledge(concern.concern_id))
    back = intent is not None and intent.name == "resume" and (intent.args.get("back") or _BACK.search(text))
    own = intent is not None and (intent.name in _OWN or back)
    if not quoted and intent is not None and (own or _names_someone_else(intent, situation)):
        return None
    rule = (
        "quoted_reply"
        if quoted
        else ("escalation_reply" if concern.role == "escalation" else "reply_to_waiting_concern")
    )
    return Decision(rule if not media else f"{rule}:media", c.Resolve(concern.concern_id, text, media))


def _names_who_to_ask(situation: Situation, text: str) -> Decision | None:
    """After "Ask someone else", the originator's next plain message naming a known person is who to ask."""
    if not situation.awaiting_name or len(text) > 40:
        return None
    concern_id, _ = situation.awaiting_name[-1]
    target = find_person(text, situation.people, situation.signal.mentions)
    if target is None or target.person_id == situation.sender.person_id:
        return None
    return Decision("reassign", c.Reassign(concern_id, target.person_id))


def _promised(answer: Decision, situation: Situation, text: str) -> list[Decision]:
    """An answer that names a time ahead also opens a commitment (cognitive_core.promises)."""
    if not isinstance(answer.command, c.Resolve) or situation.now is None:
        return []
    concern = next(w for w in situation.waiting if w.concern_id == answer.command.concern_id)
    promise = promises.promise(
        text,
        concern_id=concern.concern_id,
        kind=concern.kind,
        role=concern.role,
        timezone=situation.sender.timezone,
        now=situation.now,
        question=concern.question,
    )
    return [promises.commitment_decision(promise)] if promise else []


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


def _read_gist(situation: Situation, text: str) -> Decision | None:
    """What the intent table missed, read by its gist (cognitive_core.language.gist): a principal's only."""
    sender = situation.sender
    if sender.role != "principal":
        return None
    reading = gist.read(
        text, people=situation.people, sender_id=sender.person_id, now=situation.now, tz=sender.timezone
    )
    if reading is None:
        return None
    return learned.taught(_gisted(reading, situation, text), situation, body=reading.args.get("text"))


def _gisted(reading: intents.Reading, situation: Situation, text: str) -> Decision:
    """The decision for a gist's reading."""
    notes = {"matched": {"rule": reading.rule, "words": reading.words}}
    if reading.intent in ("remind", "reminders", "brief", "review"):
        decided = typed.command(Intent(reading.intent, reading.args), situation)
        return Decision(decided.rule, decided.command, {**decided.notes, **notes})
    if reading.intent == "status" and reading.person is not None:
        return Decision("concerns:person", c.Reply("concerns", {"target_person_id": reading.person.person_id}), notes)
    return _understood(reading, situation, text)


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
            return Decision(f"{reading.intent}:not_principal", c.Reply("not_principal"))
        open_asks = tuple((a.concern_id, a.target_person_id, a.question) for a in situation.open_asks)
        return understood.about_someone(
            reading,
            message=text,
            sender_id=sender.person_id,
            open_asks=open_asks,
            tz=sender.timezone,
            now=situation.now,
            speaker=sender,
        )
    if reading.intent == "snooze":
        decided = typed.command(Intent("snooze", reading.args), situation)
        return Decision(decided.rule, decided.command, {**decided.notes, "matched": matched})
    own = understood.own(reading, now=situation.now)
    if own is None:
        return Decision("not_understood", c.Reply("not_understood", {"hint": reading.intent}))
    return own


def _typed(intent: Intent, situation: Situation) -> Decision:
    """A typed command's decision, with what it teaches when it words again a request just missed."""
    return learned.taught(typed.command(intent, situation), situation, body=intent.args.get("text"))


def _unknown_in_command(intent: Intent | None, situation: Situation) -> bool:
    """`问一下小张：…`: a keyword ask or tell whose name nobody has (the plain-words reading may suggest one)."""
    return (
        intent is not None
        and intent.name in ("ask", "tell")
        and find_person(intent.args["who"], situation.people, situation.signal.mentions) is None
    )


def _risk_escalation(situation: Situation, text: str) -> Decision | None:
    """A member's message with risky words goes to their decision maker (their manager, else a principal)."""
    keywords = _risky(text)
    if not keywords or situation.sender.role == "principal":
        return None
    maker = situation.sender.manager_id or next(
        (p.person_id for p in situation.people if p.role == "principal" and p.person_id != situation.sender.person_id),
        None,
    )
    return Decision("risk_keywords", c.Escalate(maker, text, tuple(keywords))) if maker else None


def _guess(situation: Situation, text: str) -> Decision | None:
    """What neither the table nor the gist read: the classifier's guess, answered or offered (language.guesses)."""
    sender = situation.sender
    model = classifier.model()
    return guesses.decide(
        text,
        model.probabilities(classifier.masked(text, situation.people)),
        sure=model.sure,
        people=situation.people,
        speaker=sender,
        open_asks=tuple((a.concern_id, a.target_person_id, a.question) for a in situation.open_asks),
        tz=sender.timezone,
        now=situation.now,
        missed=situation.signal.fact_id,
    )


def decide(situation: Situation) -> list[Decision]:
    """Decisions for one inbound message (an empty list never happens: at least `ignore`)."""
    sig = situation.signal
    if sig.chat_type == "group" and not sig.mentions_bot:
        return [Decision("group_without_mention", c.Ignore())]
    text = strip_bot_mention(sig.text) if sig.mentions_bot else sig.text.strip()
    intent = parse(text)
    if intent is not None and intent.name == "bind":
        return [Decision("bind_code", c.Bind(intent.args["code"]))]
    if situation.sender is None:
        if intent is not None and intent.name == "help":  # how to get linked: to the chat, not to a person
            return [Decision("unknown_sender:help", c.Reply("stranger_help"))]
        return [Decision("unknown_sender", c.Ignore())]
    if (slash := slash_command(text)) is not None:  # anything that starts as a command is a command
        return [_typed(intent, situation) if intent is not None else typed.usage(slash)]
    reading = _read(situation, text) if intent is None or _unknown_in_command(intent, situation) else None
    if reading is not None:
        intent = None  # the plain-words reading knows more than the keyword command
    if intent is None and reading is None and (named := _names_who_to_ask(situation, text)) is not None:
        return [named]
    if (answer := _from_someone_waited_on(situation, text, intent or _as_intent(reading))) is not None:
        return [answer, *_promised(answer, situation, text)]
    if intent is not None:
        return [_typed(intent, situation)]
    if reading is not None:
        return [learned.taught(_understood(reading, situation, text), situation, body=reading.args.get("text"))]
    if (gisted := _read_gist(situation, text)) is not None:
        return [gisted]
    if (keyword := keyword_command(text)) is not None:
        return [typed.usage(keyword)]
    if (risky := _risk_escalation(situation, text)) is not None:
        return [risky]
    nothing = understood.nothing_matched(text, principal=situation.sender.role == "principal")
    if nothing.rule == "not_understood" and (known := learned.decide(situation, text)) is not None:
        return [known]  # the sender taught this way of saying it: it wins over the model's guess
    if nothing.rule == "not_understood" and (guessed := _guess(situation, text)) is not None:
        return [guessed]
    return [nothing]
