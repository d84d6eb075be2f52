"""Feishu card button presses (`card.action.trigger`, schema 2.0) as InboundPress, and the toast they are answered with.

Webhook and long connection share this: the event names the presser (`operator.open_id`), the button's value
(`action.value.t`, the opaque token Deputy put there) and the card's message and chat (`context`). A press
Deputy cannot read (no token: a button not ours, or an old-style card) is answered with nothing and not recorded.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from channels.inbound import InboundPress

log = logging.getLogger("deputy.channels.feishu")

CARD_ACTION = "card.action.trigger"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def is_press(payload: dict[str, Any]) -> bool:
    """True for a v2 card callback (`header.event_type` is card.action.trigger)."""
    return _dict(payload.get("header")).get("event_type") == CARD_ACTION


def to_press(payload: dict[str, Any], *, now: datetime) -> InboundPress | None:
    """The press of a verified card.action.trigger payload; None when it carries no readable token or presser."""
    header, event = _dict(payload.get("header")), _dict(payload.get("event"))
    action, context = _dict(event.get("action")), _dict(event.get("context"))
    token, presser = _dict(action.get("value")).get("t"), _dict(event.get("operator")).get("open_id")
    if not isinstance(token, str) or not token or not presser or not header.get("event_id"):
        log.info("feishu card callback without a Deputy token ignored", extra={"event_id": header.get("event_id")})
        return None
    try:
        return InboundPress(
            channel="feishu",
            event_id=str(header["event_id"]),
            press_id=str(header["event_id"]),
            token=token,
            external_user_id=str(presser),
            chat_id=str(context["open_chat_id"]) if context.get("open_chat_id") else None,
            message_id=str(context["open_message_id"]) if context.get("open_message_id") else None,
            occurred_at=now,
        )
    except ValidationError:  # a token or id no backend can store (NUL): nobody's button
        log.info("feishu card callback with an unreadable token ignored", extra={"event_id": header.get("event_id")})
        return None


def toast(text: str) -> dict[str, Any]:
    """The callback answer that shows `text` as a toast (nothing for an empty text)."""
    return {"toast": {"type": "info", "content": text}} if text else {}
