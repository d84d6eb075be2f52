"""Replies to a chat whose sender the bot does not know (a /help, a wrong bind code): a few per chat and hour.

Unknown senders cannot command the bot, but someone who writes to it should learn how to get linked. The reply
goes to their chat (no person to address), in both languages, and is rate-limited per chat so that strangers
cannot make the bot spam: the outbox itself is the count (its keys name a digest of the chat).
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

from sqlalchemy import func, select

from concern import outbound
from concern.models import OutboxEntry
from kernel.context import UnitOfWork

WINDOW = timedelta(hours=1)
# Replies per chat and WINDOW: one "how to get linked", a few answers to mistyped codes.
LIMITS = {"help": 1, "bind": 3}


def _prefix(kind: str, channel: str, chat_id: str) -> str:
    digest = hashlib.sha256(f"{channel}:{chat_id}".encode()).hexdigest()[:20]
    return f"chat:{kind}:{digest}:"


def reply_to_chat(
    uow: UnitOfWork, *, kind: str, channel: str, chat_id: str | None, text: str, decision_id: str, fact_id: str
) -> bool:
    """Queue one reactive reply to the chat, unless it had its share of `kind` this hour; False when held back."""
    if not chat_id:
        return False
    prefix = _prefix(kind, channel, chat_id)
    recent = uow.session.scalar(
        select(func.count())
        .select_from(OutboxEntry)
        .where(OutboxEntry.request_key.startswith(prefix), OutboxEntry.created_at > uow.now - WINDOW)
    )
    if (recent or 0) >= LIMITS[kind]:
        return False
    key = f"{prefix}{fact_id}"
    return outbound.reply_to_chat(uow, channel=channel, chat_id=chat_id, text=text, decision_id=decision_id, key=key)
