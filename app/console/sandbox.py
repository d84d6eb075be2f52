"""The console's sandbox: each person's conversation with the bot as a chat, and messages typed or pressed as them.

What they received is read from the dry-run sends the action records keep (text and buttons, `channels.dryrun`);
what they said or pressed from the fact log. The sandbox enters through `PerceptionInbound`, the port long polling
uses, with `sandbox: true` on the signal; `action.sandbox` keeps everything it causes off live channels.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select

from action.models import ActionRow, ButtonRow
from app.inbound import PerceptionInbound
from channels.dryrun import TOKEN_HINT
from channels.inbound import InboundMessage, InboundPress, PressAnswer
from fact.models import Fact, FactPersonRef
from kernel.channel_names import live
from kernel.context import AppContext, UnitOfWork
from person.models import ChannelBinding

SHOWN = 200  # the newest bubbles of a conversation


@dataclass(frozen=True)
class Bubble:
    """One line of the chat: said by the person (`mine`) or sent to them, with the buttons still pressable."""

    at: datetime
    mine: bool
    text: str
    sandbox: bool = False
    buttons: list[tuple[str, str, bool]] = field(default_factory=list)  # (label, token, still pressable)


def live_channels(ctx: AppContext) -> list[str]:
    """The installed channels that are not dry-run: while any is live the sandbox is off."""
    return live(ctx.settings.dry_run_channels)


def binding(uow: UnitOfWork, *, person_id: str) -> ChannelBinding | None:
    """The platform identity the sandbox speaks as (the person's first binding)."""
    stmt = select(ChannelBinding).where(ChannelBinding.person_id == person_id).order_by(ChannelBinding.channel)
    return uow.session.scalars(stmt).first()


def chat(uow: UnitOfWork, *, person_id: str) -> list[Bubble]:
    """What the person said and pressed, and what Deputy sent them (dry-run), oldest first."""
    said = uow.session.scalars(
        select(Fact)
        .join(FactPersonRef, FactPersonRef.fact_pk == Fact.pk)
        .where(FactPersonRef.person_id == person_id, Fact.fact_type.in_(("message_received", "button_pressed")))
        .order_by(Fact.pk.desc())
        .limit(SHOWN)
    )
    mine = [f for f in said if f.content.get("person_id") == person_id]
    sent = uow.session.scalars(
        select(ActionRow)
        .where(ActionRow.target_person_id == person_id, ActionRow.result == "success", ActionRow.channel != "internal")
        .order_by(ActionRow.pk.desc())
        .limit(SHOWN)
    )
    shown = [(row, _receipt(row)) for row in sent]
    open_ = _open_buttons(uow, person_id=person_id)
    labels = {hint: label for _, r in shown for label, hint in r.get("buttons", [])}
    bubbles = [_said(f, labels) for f in mine]
    for row, receipt in shown:
        buttons = [(label, open_.get(hint, ""), hint in open_) for label, hint in receipt.get("buttons", [])]
        bubbles.append(Bubble(row.timestamp, False, receipt.get("text") or row.content_preview, buttons=buttons))
    return sorted(bubbles, key=lambda b: b.at)[-SHOWN:]


def _open_buttons(uow: UnitOfWork, *, person_id: str) -> dict[str, str]:
    """The person's unpressed buttons, by the hint the dry-run record names them with (the start of the token)."""
    stmt = select(ButtonRow.token).where(ButtonRow.addressee_id == person_id, ButtonRow.pressed_at.is_(None))
    return {token[:TOKEN_HINT]: token for token in uow.session.scalars(stmt)}


def _said(fact: Fact, labels: dict[str, str]) -> Bubble:
    """A message as typed; a press as the label of the button pressed (`[…]`: its message is no longer shown)."""
    content = fact.content
    pressed = labels.get(str(content.get("token", ""))[:TOKEN_HINT], "[…]")
    text = pressed if fact.fact_type == "button_pressed" else content.get("text", "")
    return Bubble(fact.timestamp, True, str(text), sandbox=content.get("sandbox") is True)


def _receipt(row: ActionRow) -> dict[str, Any]:
    """The dry-run channel's account of the send (its text and buttons), from the successful attempt."""
    for attempt in reversed(row.result_detail.get("attempts", [])):
        if attempt.get("result") == "success" and "call" not in attempt:  # a send, not an urgent call after it
            return attempt
    return {}


def say(ctx: AppContext, *, person: ChannelBinding, text: str) -> bool:
    """`text` as a private message from the person, through the inbound port; True when it was recorded."""
    event = f"sandbox-{secrets.token_hex(8)}"
    message = InboundMessage(
        channel=person.channel,
        event_id=event,
        message_id=event,
        chat_id=person.chat_id or person.external_user_id,
        chat_type="p2p",
        external_user_id=person.external_user_id,
        text=text,
        occurred_at=ctx.clock.now(),
        sandbox=True,
    )
    inbound = PerceptionInbound(ctx)
    created = inbound.record(message)
    inbound.wake()
    return created


def press(ctx: AppContext, *, person: ChannelBinding, token: str) -> PressAnswer:
    """The person presses the button `token`, through the inbound port; the toast the platform would show."""
    event = f"sandbox-{secrets.token_hex(8)}"
    with ctx.reader() as uow:
        button = uow.session.get(ButtonRow, token)
    inbound = PerceptionInbound(ctx)
    answer = inbound.press(
        InboundPress(
            channel=person.channel,
            event_id=event,
            press_id=event,
            token=token,
            external_user_id=person.external_user_id,
            chat_id=button.chat_id if button else None,
            message_id=button.message_id if button else None,
            occurred_at=ctx.clock.now(),
            sandbox=True,
        )
    )
    inbound.wake()
    return answer
