"""Telegram Update (as a JSON dict) → InboundMessage or InboundPress; shared by the webhook and long polling.

Which updates become messages: only `message` from a person (text, or media with its caption as the text).
`callback_query` from a person with data becomes a press; one without data (a game) or from a bot is answered
and ignored. `edited_message` is acknowledged and ignored (acting again on an edited command would act twice),
and so are channel posts, messages from other bots and every other update type.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from channels.errors import ChannelError
from channels.inbound import InboundMedia, InboundMessage, InboundPress, Mention
from channels.telegram.text import utf16_slice
from kernel.limits import EARLIEST, LATEST, RANGE_TEXT

log = logging.getLogger("deputy.channels.telegram")


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


_MEDIA = ("photo", "document", "voice", "audio", "video", "video_note", "sticker")


def media_of(message: dict[str, Any]) -> InboundMedia | None:
    """The media a message carries (a photo's largest size; a video note as a video), or None."""
    for kind in _MEDIA:
        found = message.get(kind)
        if kind == "photo" and isinstance(found, list):
            sizes = [s for s in found if isinstance(s, dict) and s.get("file_id")]
            area = lambda s: (s.get("width", 0) * s.get("height", 0), s.get("file_size", 0))  # noqa: E731
            found = max(sizes, key=area, default={})
        if not isinstance(found, dict) or not found.get("file_id"):
            continue
        size = found.get("file_size")
        return InboundMedia(
            kind="video" if kind == "video_note" else kind,  # type: ignore[arg-type]
            file_id=str(found["file_id"]),
            file_name=str(found["file_name"]) if found.get("file_name") else None,
            mime_type=str(found["mime_type"]) if found.get("mime_type") else None,
            size=size if type(size) is int else None,
        )
    return None


@dataclass(frozen=True)
class IgnoredPress:
    """A callback Deputy answers (so the button stops spinning) but does not record, and why."""

    press_id: str
    reason: str


def answer_quietly(sender: Any, press: InboundPress | IgnoredPress, toast: str) -> None:
    """Answer the press through the sender's answerCallbackQuery; a failure is only logged (it is recorded)."""
    if isinstance(press, IgnoredPress):
        log.info("telegram callback ignored: %s", press.reason, extra={"press_id": press.press_id})
    if sender is None:
        return
    try:
        sender.answer_press(press_id=press.press_id, text=toast)
    except ChannelError as exc:
        log.warning("telegram answerCallbackQuery failed: %s", exc.message, extra={"press_id": press.press_id})


def to_press(update: dict[str, Any], *, now: datetime) -> InboundPress | IgnoredPress | None:
    """The press of a `callback_query` update (None for any other update); `now` is when it arrived.

    A callback carries no date of its own (the message's `date` is when the bot sent the message).
    """
    event_id = update_id(update)
    query = update.get("callback_query")
    if not isinstance(query, dict):
        return None
    press_id, sender = query.get("id"), query.get("from")
    if not isinstance(press_id, str) or not press_id or not isinstance(sender, dict) or "id" not in sender:
        raise InvalidUpdate(f"malformed callback_query in update {event_id}: an id and a sender are required")
    if sender.get("is_bot"):
        return IgnoredPress(press_id, "a callback from a bot")
    data = query.get("data")
    if not isinstance(data, str) or not data:
        return IgnoredPress(press_id, "a callback without data")
    message = query.get("message")
    message = message if isinstance(message, dict) else {}
    chat = message.get("chat") if isinstance(message.get("chat"), dict) else {}
    try:
        return InboundPress(
            channel="telegram",
            event_id=press_id,
            press_id=press_id,
            token=data,
            external_user_id=str(sender["id"]),
            chat_id=str(chat["id"]) if "id" in chat else None,
            message_id=str(message["message_id"]) if "message_id" in message else None,
            occurred_at=now,
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidUpdate(f"unreadable callback_query in update {event_id}: {problems}") from exc


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
            media=media_of(message),
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
