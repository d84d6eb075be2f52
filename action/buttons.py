"""Buttons: minted with the request that shows them, tied to the message once sent, pressed once per message.

A button's token is opaque (22 random URL-safe characters, well inside Telegram's 64-byte `callback_data`);
everything it means lives in its row: the verb, the concern, who may press it, and the message it sits on.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, select, update

from action.models import ButtonRow, ButtonSpec
from kernel.context import UnitOfWork


@dataclass(frozen=True)
class Choice:
    """One button to mint: what pressing it does (`verb`, `args`) and its label in the addressee's language."""

    verb: str
    label: str
    args: dict[str, Any] = field(default_factory=dict)
    style: str = "default"


_OF_REQUEST = select(ButtonRow).where(ButtonRow.request_key == bindparam("request_key"))


def mint(
    uow: UnitOfWork, *, request_key: str, addressee_id: str, choices: list[Choice], concern_id: str | None = None
) -> list[ButtonSpec]:
    """Buttons for one message (the request `request_key`), pressable by `addressee_id` only.

    Minting again for the same request (a held delivery sent later, a retry) returns the buttons already minted,
    so a message never carries tokens its twin does not know.
    """
    existing = list(uow.session.scalars(_OF_REQUEST, {"request_key": request_key}))
    if existing:
        by_verb = {(row.verb, repr(sorted(row.args.items()))): row for row in existing}
        return [
            ButtonSpec(label=c.label, token=by_verb[(c.verb, repr(sorted(c.args.items())))].token, style=c.style)
            for c in choices
            if (c.verb, repr(sorted(c.args.items()))) in by_verb
        ]
    specs = []
    for choice in choices:
        token = secrets.token_urlsafe(16)
        uow.session.add(
            ButtonRow(
                token=token,
                request_key=request_key,
                verb=choice.verb,
                concern_id=concern_id,
                addressee_id=addressee_id,
                args=choice.args,
                created_at=uow.now,
            )
        )
        specs.append(ButtonSpec(label=choice.label, token=token, style=choice.style))
    uow.session.flush()
    return specs


def attach(
    uow: UnitOfWork, *, tokens: list[str], channel: str, chat_id: str | None, message_id: str | None, text: str
) -> None:
    """Remember the message the buttons went out on and its text (to edit it once one is pressed)."""
    if not tokens:
        return
    uow.session.execute(
        update(ButtonRow)
        .where(ButtonRow.token.in_(tokens))
        .values(channel=channel, chat_id=chat_id, message_id=message_id, text=text)
    )


def get(uow: UnitOfWork, *, token: str) -> ButtonRow | None:
    """The button behind a token, or None (unknown or forged)."""
    return uow.session.get(ButtonRow, token) if token else None


def siblings(uow: UnitOfWork, *, button: ButtonRow) -> list[ButtonRow]:
    """Every button of the message `button` is on, itself included."""
    return list(uow.session.scalars(select(ButtonRow).where(ButtonRow.request_key == button.request_key)))


def others_on_message(uow: UnitOfWork, *, button: ButtonRow) -> list[ButtonRow]:
    """Unpressed buttons of other items on the same message (a brief's items each have their own)."""
    if not (button.channel and button.chat_id and button.message_id):
        return []
    stmt = select(ButtonRow).where(
        ButtonRow.channel == button.channel,
        ButtonRow.chat_id == button.chat_id,
        ButtonRow.message_id == button.message_id,
        ButtonRow.request_key != button.request_key,
        ButtonRow.pressed_at.is_(None),
    )
    return list(uow.session.scalars(stmt.order_by(ButtonRow.request_key, ButtonRow.created_at)))


def claim_press(uow: UnitOfWork, *, button: ButtonRow, fact_id: str) -> bool:
    """Mark the message's buttons pressed by this press; False when one of them was pressed already.

    A conditional update, so two presses racing (two taps, two replicas) have one winner.
    """
    won = uow.session.execute(
        update(ButtonRow)
        .where(ButtonRow.request_key == button.request_key, ButtonRow.pressed_at.is_(None))
        .values(pressed_at=uow.now, press_fact_id=fact_id)
    ).rowcount
    uow.session.expire(button)
    return bool(won)


def release(uow: UnitOfWork, *, button: ButtonRow) -> list[ButtonRow]:
    """Undo a press that changed nothing (a refused nudge): the message's buttons may be pressed again."""
    uow.session.execute(
        update(ButtonRow).where(ButtonRow.request_key == button.request_key).values(pressed_at=None, press_fact_id=None)
    )
    return siblings(uow, button=button)
