"""The chat door: a decision about a message carried out inside the signal's transaction (actions queued, not sent).

An answer (a reply, a brief, a review, nothing) the core gives itself, by the `ANSWERS` table; a command goes to
the concern engine's one handler table, and the sender is told its outcome in the words `concern.said` has for the
chat — in the group when they asked there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cognitive_core import answers
from cognitive_core.reports import briefs, reviews
from cognitive_core.situation import Decision, Situation
from concern import buttons as concern_buttons
from concern import commands as c
from concern import handlers, outbound, said, strangers
from concern.outcomes import Outcome
from concern.texts import replies
from kernel.context import UnitOfWork
from person import service as persons


def group_of(situation: Situation) -> str | None:
    """The group chat a request came from (its confirmations go back there), None for a direct message."""
    signal = situation.signal
    return signal.chat_id if signal.chat_type == "group" and signal.chat_id else None


def _reply(uow: UnitOfWork, situation: Situation, decision_id: str, command: c.Reply) -> None:
    """A reply by template; a question asked back carries its choices as buttons only the sender may press."""
    signal, sender = situation.signal, situation.sender
    if sender is None:  # how to get linked, to the chat it came from (a few times an hour at most)
        text = replies.to_stranger(command.template)
        strangers.reply_to_chat(
            uow,
            kind="help",
            channel=signal.channel,
            chat_id=signal.chat_id,
            text=text,
            decision_id=decision_id,
            fact_id=signal.fact_id,
        )
        return
    key = f"{signal.fact_id}:reply"
    options = answers.choices(uow, command, sender.locale, viewer_id=sender.person_id)
    shown = concern_buttons.choices(uow, request_key=key, addressee_id=sender.person_id, options=options)
    outbound.reply(
        uow,
        to=sender.person_id,
        text=answers.text(uow, command, situation),
        decision_id=decision_id,
        channel=signal.channel,
        key=key,
        chat_id=group_of(situation),
        buttons=shown if options else (),
    )


def _report(uow: UnitOfWork, situation: Situation, decision_id: str, command: c.Brief | c.Review) -> None:
    """`/brief` (with its buttons) or `/review`: now, where it was asked for."""
    signal = situation.signal
    common: dict[str, Any] = {
        "person": persons.get_or_404(uow, person_id=situation.sender.person_id),
        "decision_id": decision_id,
        "key": f"{signal.fact_id}:reply",
        "channel": signal.channel,
        "chat_id": group_of(situation),
    }
    if isinstance(command, c.Review):
        reviews.answer(uow, **common)
    else:
        briefs.answer(uow, everything=command.everything, **common)


AnswerRow = Callable[[UnitOfWork, Situation, str, Any], None]

# What the core answers itself; every other command goes to the concern engine's handler table.
ANSWERS: dict[type[c.Command], AnswerRow] = {
    c.Reply: _reply,
    c.Brief: _report,
    c.Review: _report,
    c.Ignore: lambda *_: None,
}


def origin_of(situation: Situation, decision_id: str, fact_id: str, content: dict | None) -> handlers.Origin:
    """Who asked and where, as the handler table reads it."""
    sender = situation.sender
    return handlers.Origin(
        decision_id=decision_id,
        actor_id=sender.person_id if sender else None,
        channel=situation.signal.channel,
        chat_id=group_of(situation),
        fact_id=fact_id,
        content=content or {},
    )


def tell(uow: UnitOfWork, outcome: Outcome, origin: handlers.Origin) -> None:
    """Tell the sender the outcome of their command in their chat, when there is something to say now."""
    words = said.in_chat(uow, outcome, reader_id=origin.actor_id)
    if words is None:
        return
    key = words.key or f"{origin.fact_id}:{words.suffix}"
    if words.stranger:
        chat = origin.content.get("chat_id")
        strangers.reply_to_chat(
            uow,
            kind="bind",
            channel=origin.channel or "",
            chat_id=chat,
            text=words.text,
            decision_id=origin.decision_id,
            fact_id=origin.fact_id or "",
        )
        return
    to, chat_id = (words.to, None) if words.to else (origin.actor_id, origin.chat_id)
    specs = []
    if words.buttons is not None and (reader := persons.get(uow, person_id=to)) is not None:
        specs = concern_buttons.for_message(
            uow, kind=words.buttons, request_key=key, addressee_id=to, locale=reader.locale, concern_id=words.concern_id
        )
    outbound.reply(
        uow,
        to=to,
        text=words.text,
        decision_id=origin.decision_id,
        channel=origin.channel,
        key=key,
        chat_id=chat_id,
        buttons=specs,
    )


def apply(
    uow: UnitOfWork,
    decision: Decision,
    *,
    decision_id: str,
    situation: Situation,
    fact_id: str,
    content: dict | None = None,
) -> Outcome | None:
    """Carry out one decision about a message; the command's outcome (None for an answer the core gave)."""
    answer = ANSWERS.get(type(decision.command))
    if answer is not None:
        answer(uow, situation, decision_id, decision.command)
        return None
    origin = origin_of(situation, decision_id, fact_id, content)
    outcome = handlers.handle(uow, decision.command, origin)
    tell(uow, outcome, origin)
    return outcome
