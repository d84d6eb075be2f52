"""Helpers for button stories: find the buttons a memory channel delivered, press them through the inbound port."""

from __future__ import annotations

import itertools

from sqlalchemy import or_, select

from action.models import ActionRow
from app.inbound import PerceptionInbound
from app.pipeline import tick
from channels.inbound import InboundPress
from kernel.context import AppContext

_ids = itertools.count(1)


def buttons_to(channel, user: str, index: int = -1) -> dict[str, str]:
    """{label: token} of the `index`-th message with buttons delivered to `user` on a memory channel."""
    with_buttons = [d.message for d in channel.sent if d.message.external_user_id == user and d.message.buttons]
    return {b.label: b.token for b in with_buttons[index].buttons}


def press(
    ctx: AppContext,
    *,
    channel: str,
    user: str,
    token: str,
    event_id: str | None = None,
    process: bool = True,
) -> str:
    """Press a button as `user` (through the same port the adapters use); returns the toast."""
    n = next(_ids)
    toast = PerceptionInbound(ctx).press(
        InboundPress(
            channel=channel,
            event_id=event_id or f"press_{n}",
            press_id=f"cb_{n}",
            token=token,
            external_user_id=user,
            chat_id=f"chat_{user}",
            message_id=None,
            occurred_at=ctx.clock.now(),
        )
    )
    if process:
        tick(ctx)
    return toast.toast


def outcomes_to(ctx: AppContext, person_id: str) -> list[str]:
    """What presses showed `person_id` under their messages (the press actions' texts), oldest first."""
    with ctx.reader() as uow:
        rows = uow.session.scalars(
            select(ActionRow)
            .where(
                ActionRow.target_person_id == person_id,
                or_(ActionRow.request_key.like("%:press"), ActionRow.request_key.like("%:outcome:cancelled")),
            )
            .order_by(ActionRow.pk)
        )
        return [row.content_preview for row in rows]
