"""Telegram Update (as a JSON dict) → perception.models.InboundMessage; shared by the webhook and long polling.

Which updates become messages: only `message` from a person. `edited_message` is acknowledged and
ignored (acting again on an edited command would act twice), and so are channel posts, callbacks,
messages from other bots and every other update type.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from channels.inbound import InboundMessage, Mention
from channels.telegram.text import utf16_slice
from kernel.limits import EARLIEST, LATEST, RANGE_TEXT


class InvalidUpdate(ValueError):
    """The JSON is not a Telegram Update (no integer update_id, or a message without its required parts)."""


class InvalidDate(InvalidUpdate):
    """The message's `date` is not a Unix time in the accepted range (SPEC §8: a 422, never a 500)."""


@dataclass(frozen=True)
class BotIdentity:
    """Who the bot is, to tell when a group message addresses it (id from the token, username from settings/getMe)."""

    id: str | None = None
    username: str | None = None

    def is_username(self, name: str) -> bool:
        """True when `name` (without the @) is the bot's username."""
        return bool(self.username) and name.lower() == self.username.lstrip("@").lower()


def update_id(update: Any) -> int:
    """The update's id, or InvalidUpdate."""
    if not isinstance(update, dict) or type(update.get("update_id")) is not int:
        raise InvalidUpdate("not a Telegram Update: an integer update_id is required")
    return update["update_id"]


def sent_at(date: Any) -> datetime:
    """The message's `date` (integer Unix seconds) as a UTC instant, or InvalidDate."""
    if type(date) is not int:
        raise InvalidDate(f"message.date must be integer Unix seconds, not {type(date).__name__}")
    if not EARLIEST.timestamp() <= date < LATEST.timestamp():  # checked before fromtimestamp can overflow
        raise InvalidDate(f"message.date must lie {RANGE_TEXT}")
    return datetime.fromtimestamp(date, UTC)


def _mentions(text: str, entities: list[dict[str, Any]], bot: BotIdentity) -> tuple[list[Mention], bool]:
    mentions: list[Mention] = []
    addressed = False
    for entity in entities:
        kind = entity.get("type")
        piece = utf16_slice(text, int(entity.get("offset", 0)), int(entity.get("length", 0)))
        if kind == "mention":  # "@username": Telegram gives no user id for these
            name = piece.lstrip("@")
            is_bot = bot.is_username(name)
            mentions.append(Mention(external_user_id=bot.id if is_bot else None, name=name, is_bot=is_bot))
            addressed = addressed or is_bot
        elif kind == "text_mention" and isinstance(entity.get("user"), dict):  # a user without a username
            user = entity["user"]
            is_bot = bool(user.get("is_bot"))
            mentions.append(Mention(external_user_id=str(user["id"]), name=_full_name(user) or piece, is_bot=is_bot))
            addressed = addressed or (is_bot and str(user["id"]) == bot.id)
        elif kind == "bot_command" and "@" in piece:  # "/ask@deputy_bot": a command addressed to this bot
            addressed = addressed or bot.is_username(piece.partition("@")[2])
    return mentions, addressed


def _full_name(user: dict[str, Any]) -> str:
    return " ".join(p for p in (user.get("first_name"), user.get("last_name")) if p)


def _reply_to(message: dict[str, Any]) -> str | None:
    replied = message.get("reply_to_message")
    if not isinstance(replied, dict):
        return None
    if message.get("is_topic_message") and "forum_topic_created" in replied:
        return None  # in forum topics every message "replies" to the topic's first message
    return str(replied["message_id"])


def to_inbound(update: dict[str, Any], bot: BotIdentity) -> InboundMessage | None:
    """The normalised message for a `message` update, None for anything Deputy ignores (see module doc)."""
    event_id = update_id(update)
    message = update.get("message")
    if not isinstance(message, dict):
        return None
    sender = message.get("from")
    if not isinstance(sender, dict) or sender.get("is_bot"):
        return None
    try:
        chat = message["chat"]
        text = message.get("text") or message.get("caption") or ""
        entities = message.get("entities") or message.get("caption_entities") or []
        mentions, addressed = _mentions(text, entities, bot)
        return InboundMessage(
            channel="telegram",
            event_id=str(event_id),
            message_id=str(message["message_id"]),
            chat_id=str(chat["id"]),
            chat_type="p2p" if chat.get("type") == "private" else "group",
            external_user_id=str(sender["id"]),
            text=text,
            reply_to_message_id=_reply_to(message),
            mentions=mentions,
            mentions_bot=addressed,
            occurred_at=sent_at(message.get("date")),
        )
    except InvalidDate:
        raise
    except ValidationError as exc:  # e.g. text with U+0000, which no backend stores alike
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidUpdate(f"unreadable message in update {event_id}: {problems}") from exc
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise InvalidUpdate(f"malformed message in update {event_id}: {exc}") from exc
