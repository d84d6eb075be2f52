"""Helpers for end-to-end concern stories: inbound messages through perception, ticks, and the memory channels."""

from __future__ import annotations

import itertools
from datetime import datetime

from app.pipeline import tick
from channels.inbound import InboundMessage
from kernel.context import AppContext
from perception import service as perception

_ids = itertools.count(1)


def say(
    ctx: AppContext,
    *,
    channel: str,
    user: str,
    text: str,
    reply_to: str | None = None,
    chat_type: str = "p2p",
    mentions_bot: bool = False,
    event_id: str | None = None,
    mentions: list[dict] | None = None,
    process: bool = True,
    chat_id: str | None = None,
) -> str:
    """Deliver one inbound chat message through perception and run the pipeline once; returns the fact id.

    With process=False it is only recorded (it waits in the inbox for the next pass, as in a burst).
    """
    n = next(_ids)
    message = InboundMessage(
        channel=channel,
        event_id=event_id or f"evt_{n}",
        message_id=f"in_{n}",
        chat_id=chat_id or f"chat_{user}",
        chat_type=chat_type,
        external_user_id=user,
        text=text,
        reply_to_message_id=reply_to,
        mentions_bot=mentions_bot,
        mentions=mentions or [],
        occurred_at=ctx.clock.now(),
    )
    fact, _ = perception.record_message(ctx, message=message)
    if process:
        tick(ctx)  # what the processor does when the webhook wakes it
    return fact.fact_id


def command_in_chat(ctx: AppContext, *, person_id: str, command, channel: str = "telegram") -> None:
    """Carry `command` out as if `person_id` had typed it on `channel` (the chat door: its answer goes to them)."""
    from cognitive_core import flows
    from cognitive_core.situation import Decision, PersonView, SignalView, Situation
    from fact import decisions
    from person import service as persons

    with ctx.uow(actor="test") as uow:
        person = persons.get_or_404(uow, person_id=person_id)
        sender = PersonView(person.person_id, person.display_name, person.role, person.locale, timezone=person.timezone)
        decision = Decision("test", command)
        decision_id = decisions.record(uow, kind=decision.kind, rule=decision.rule, person_refs=[person_id])
        signal = SignalView(fact_id=f"typed:{decision_id}", channel=channel, text="")
        situation = Situation(signal=signal, sender=sender, people=(sender,), now=uow.now)
        flows.apply(uow, decision, decision_id=decision_id, situation=situation, fact_id=signal.fact_id)


def local(ctx: AppContext, instant: datetime) -> str:
    """`03-18 20:00` in the deployment timezone."""
    return instant.astimezone(ctx.settings.tz).strftime("%m-%d %H:%M")
