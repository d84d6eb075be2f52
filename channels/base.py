"""The channel interface the action layer sends through, and the registry of configured channels."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from channels.errors import InvalidRequest

# The one markup Deputy adds to what it sends: a line that is all `**Section**` (a brief's or a review's section
# header). Each adapter shows it bold in its own way and everything else exactly as written (docs/behaviour.md,
# "Platform output"), so a colleague's `**x**` inside a line stays those characters.
HEADER_LINE = re.compile(r"^\*\*([^*\n]+)\*\*$", re.MULTILINE)
# Where a long text may be cut, best first: a paragraph, a line, a word; then (Chinese puts no space between
# words) after a sentence's or a clause's punctuation. A cut falls after the break, which ends the first part.
BREAKS = ("\n\n", "\n", " ", "。", "！", "？", "；", "，", "、")


@dataclass(frozen=True)
class Button:
    """One tap-able choice under a message: the label people read and an opaque token (≤ 40 ASCII characters).

    The token is what comes back when it is pressed (Telegram `callback_data`, a Feishu card button's `value`);
    it names a server-side record, so nothing a person could forge is trusted.
    """

    label: str
    token: str
    style: str = "default"  # default | primary | danger (Feishu colours it; Telegram ignores it)
    # The numbered item of the message it acts on (`[2]` in the text: a brief's line, a bundle's part); None: the
    # message's own. A Feishu card draws each item's buttons under that item.
    group: str | None = None


@dataclass(frozen=True)
class MediaRef:
    """Media someone sent, as the platform names it, so it can be passed on without downloading it."""

    channel: str
    kind: str  # photo | document | voice | audio | video | sticker | image | file | post
    file_id: str  # Telegram file_id; Feishu image_key / file_key
    message_id: str  # the message that carried it (Telegram copyMessage / Feishu forward need it)
    chat_id: str
    caption: str = ""
    file_name: str | None = None
    mime_type: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class OutboundMessage:
    """One message to one person on one channel; `idempotency_key` is the action id.

    `buttons` are shown under the text (an inline keyboard, an interactive card); `media` is passed on with the
    text as its caption (the same platform: copied or forwarded; the adapter refuses media of another platform).
    """

    idempotency_key: str
    external_user_id: str
    chat_id: str | None
    text: str
    locale: str = "zh"
    buttons: tuple[Button, ...] = ()
    media: MediaRef | None = None


@dataclass(frozen=True)
class MessageEdit:
    """Replace the text (and buttons: none removes them) of a message the bot sent earlier.

    An edit cannot add a message, so a text over the platform's limit is cut at a word and ends with "…" and
    `cut_note` on a line of its own: where the whole text is, in the reader's language (the caller's catalogue).
    """

    idempotency_key: str
    chat_id: str
    message_id: str
    text: str
    buttons: tuple[Button, ...] = ()
    locale: str = "zh"
    cut_note: str = ""


@dataclass(frozen=True)
class SendReceipt:
    """What the platform confirmed: its message id and anything else worth keeping."""

    message_id: str | None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ChannelHealth:
    """Whether the adapter is configured and believes it can send."""

    name: str
    ok: bool
    detail: str = ""


class Channel(ABC):
    """A way to reach people. Adapters raise only `channels.errors.ChannelError` subclasses."""

    name: str
    # True only for a stand-in that reaches no platform (channels.dryrun): the sandbox's messages may go there only.
    dry_run: bool = False

    @abstractmethod
    def send(self, message: OutboundMessage) -> SendReceipt:
        """Deliver `message` or raise a ChannelError; never retries or sleeps on its own."""

    def edit(self, edit: MessageEdit) -> SendReceipt:
        """Change a sent message in place; adapters that cannot edit refuse (InvalidRequest)."""
        raise InvalidRequest(f"{self.name} cannot edit messages", code="edit_unsupported", permanent=True)

    def readers(self, message_id: str) -> dict[str, datetime]:
        """Who read a message the bot sent (platform user id → when); adapters without read receipts refuse."""
        raise InvalidRequest(
            f"{self.name} tells bots nothing about reads", code="read_receipts_unsupported", permanent=True
        )

    def urge(self, *, message_id: str, user_id: str, mode: str) -> None:
        """Make a sent message urgent for one person (`mode`: app, sms, phone); adapters without it refuse."""
        raise InvalidRequest(f"{self.name} cannot make a message urgent", code="urgent_unsupported", permanent=True)

    def answer_press(self, *, press_id: str, text: str) -> None:  # noqa: B027  (most platforms answer in-band)
        """Answer a button press with a short toast (Telegram answerCallbackQuery); a no-op where the platform
        takes the toast in the callback's HTTP answer (Feishu)."""

    @abstractmethod
    def health(self) -> ChannelHealth:
        """Current health, without sending anything to a person."""

    def close(self) -> None:  # noqa: B027  (optional: most adapters hold nothing to release)
        """Release connections and threads (nothing to release by default)."""


class ChannelRegistry:
    """The channels this process can send through, by name."""

    def __init__(self, channels: Iterable[Channel] = ()) -> None:
        self._channels = {c.name: c for c in channels}

    def get(self, name: str) -> Channel | None:
        """The channel called `name`, or None when it is not configured."""
        return self._channels.get(name)

    def names(self) -> list[str]:
        """Configured channel names."""
        return list(self._channels)

    def register(self, channel: Channel) -> None:
        """Add or replace a channel."""
        self._channels[channel.name] = channel

    def close(self) -> None:
        """Close every channel."""
        for channel in self._channels.values():
            channel.close()
