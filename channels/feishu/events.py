"""A Feishu `im.message.receive_v1` event as the normalised InboundMessage (webhook and long connection alike).

Media messages (image, file, audio, media, sticker) carry their key as `media` and no text; a post (rich text)
gives its text, and `media` of kind post when it holds images or videos.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from channels.inbound import Inbound, InboundMedia, InboundMessage, InboundRead, Mention
from kernel.limits import EARLIEST, in_range
from kernel.screening import screen_json

MESSAGE_RECEIVED = "im.message.receive_v1"
MESSAGE_READ = "im.message.message_read_v1"  # a person read the bot's messages in their private chat with it


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _open_id(ids: Any) -> str | None:
    value = _dict(ids).get("open_id")
    return str(value) if value else None


def _post_text(body: dict[str, Any]) -> str:
    """The readable text of a rich-text (post) message: its title and the text of every text/link/at element."""
    post = (
        body if "content" in body else next((v for v in body.values() if isinstance(v, dict)), {})
    )  # locale-keyed or flat
    lines = [str(post.get("title") or "")]
    for paragraph in post.get("content") or []:
        words = []
        for element in paragraph if isinstance(paragraph, list) else []:
            element = _dict(element)
            if element.get("tag") in ("text", "a", "code_block"):
                words.append(str(element.get("text") or ""))
            elif element.get("tag") == "at":
                words.append(str(element.get("user_name") or element.get("user_id") or ""))
        lines.append("".join(words))
    return "\n".join(line for line in lines if line)


_KEYS = {"image": "image_key", "file": "file_key", "audio": "file_key", "media": "file_key", "sticker": "file_key"}
_KINDS = {"image": "image", "file": "file", "audio": "audio", "media": "video", "sticker": "sticker"}


def _post_has_media(body: dict[str, Any]) -> bool:
    post = body if "content" in body else next((v for v in body.values() if isinstance(v, dict)), {})
    return any(
        _dict(element).get("tag") in ("img", "media")
        for paragraph in post.get("content") or []
        for element in (paragraph if isinstance(paragraph, list) else [])
    )


def message_media(message_type: str, raw_content: Any) -> InboundMedia | None:
    """The media of an image/file/audio/media/sticker message (its key), of a post with images (kind post), or None."""
    try:
        body = json.loads(raw_content) if isinstance(raw_content, str) else _dict(raw_content)
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    if message_type == "post":
        return InboundMedia(kind="post", file_id="") if _post_has_media(body) else None
    key = body.get(_KEYS.get(message_type, ""))
    if not isinstance(key, str) or not key:
        return None
    name = body.get("file_name")
    return InboundMedia(
        kind=_KINDS[message_type],  # type: ignore[arg-type]
        file_id=key,
        file_name=str(name) if name else None,
    )


def message_text(message_type: str, raw_content: Any, mentions: list[dict[str, Any]]) -> str:
    """Plain text of a message; `@_user_n` placeholders become `@<name>`. Non-text messages give "".

    `content` is JSON inside a string, unseen by the HTTP guard: it is screened here (TooDeep, Invalid) before parsing.
    """
    if isinstance(raw_content, str):
        screen_json(raw_content.encode("utf-8", "surrogatepass"))
    try:
        body = json.loads(raw_content) if isinstance(raw_content, str) else _dict(raw_content)
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    if message_type == "text":
        text = str(body.get("text") or "")
    elif message_type == "post":
        text = _post_text(body)
    else:
        return ""
    names = {str(m.get("key")): str(m.get("name") or "") for m in mentions if m.get("key")}
    if names:
        keys = sorted(names, key=len, reverse=True)  # @_user_10 before @_user_1
        text = re.sub("|".join(re.escape(k) for k in keys), lambda match: f"@{names[match.group(0)]}", text)
    return text


def _mentions(raw: Any, bot_open_id: str | None) -> list[Mention]:
    found = []
    for item in raw if isinstance(raw, list) else []:
        item = _dict(item)
        open_id = _open_id(item.get("id"))
        is_bot = open_id == bot_open_id if bot_open_id else item.get("mentioned_type") == "bot"
        found.append(Mention(external_user_id=open_id, name=str(item.get("name") or ""), is_bot=bool(is_bot)))
    return found


def _occurred_at(millis: Any) -> datetime:
    """create_time (ms); an unreadable or out-of-range one reads as the epoch rather than losing the message."""
    try:
        instant = datetime.fromtimestamp(int(millis) / 1000, tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return EARLIEST
    return instant if in_range(instant) else EARLIEST


def to_inbound(payload: dict[str, Any], *, bot_open_id: str | None = None) -> InboundMessage | None:
    """The InboundMessage of a v2 `im.message.receive_v1` event; None for any other event or a non-user sender.

    With `bot_open_id` a mention is the bot's when its open_id matches; without it, when Feishu marks the
    mention's `mentioned_type` as "bot" (Feishu only delivers group messages that @-mention the bot anyway).
    """
    header, event = _dict(payload.get("header")), _dict(payload.get("event"))
    if header.get("event_type") != MESSAGE_RECEIVED or not header.get("event_id"):
        return None
    sender, message = _dict(event.get("sender")), _dict(event.get("message"))
    sender_open_id = _open_id(sender.get("sender_id"))
    if (
        not sender_open_id
        or sender.get("sender_type", "user") != "user"
        or not message.get("message_id")
        or not message.get("chat_id")
    ):
        return None
    listed = message.get("mentions")
    raw_mentions = [m for m in listed if isinstance(m, dict)] if isinstance(listed, list) else []
    mentions = _mentions(raw_mentions, bot_open_id)
    chat_type = "p2p" if message.get("chat_type") == "p2p" else "group"
    message_type = str(message.get("message_type") or "")
    return InboundMessage(
        channel="feishu",
        event_id=str(header["event_id"]),
        message_id=str(message["message_id"]),
        chat_id=str(message["chat_id"]),
        chat_type=chat_type,
        external_user_id=sender_open_id,
        text=message_text(message_type, message.get("content"), raw_mentions),
        media=message_media(message_type, message.get("content")),
        reply_to_message_id=str(message["parent_id"]) if message.get("parent_id") else None,
        mentions=mentions,
        mentions_bot=any(m.is_bot for m in mentions),
        occurred_at=_occurred_at(message.get("create_time")),
    )


def to_read(payload: dict[str, Any]) -> InboundRead | None:
    """The InboundRead of a v2 `im.message.message_read_v1` event; None for any other event or an unreadable one."""
    header, event = _dict(payload.get("header")), _dict(payload.get("event"))
    if header.get("event_type") != MESSAGE_READ or not header.get("event_id"):
        return None
    reader = _dict(event.get("reader"))
    open_id = _open_id(reader.get("reader_id"))
    listed = event.get("message_id_list")
    ids = [str(m) for m in listed if isinstance(m, str) and m] if isinstance(listed, list) else []
    read_at = _occurred_at(reader.get("read_time"))
    if not open_id or not ids or read_at == EARLIEST:
        return None
    return InboundRead(
        channel="feishu",
        event_id=str(header["event_id"]),
        external_user_id=open_id,
        message_ids=ids[:500],
        read_at=read_at,
    )


def ingest(payload: dict[str, Any], *, bot_open_id: str | None, inbound: Inbound) -> bool:
    """Hand a verified event's message (or read receipt) to the inbound port; True when it was new."""
    if (receipt := to_read(payload)) is not None:
        return inbound.read(receipt)
    message = to_inbound(payload, bot_open_id=bot_open_id)
    return inbound.record(message) if message is not None else False
