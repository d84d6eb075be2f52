"""The inbound shape: what every channel adapter produces and perception consumes, and the port it is handed to.

Adapters (webhooks, long polling, the long connection) normalise what their platform sent into an
`InboundMessage` and give it to an `Inbound` the composition root wires to perception; nothing in
`channels` imports perception or any other layer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict
from pydantic import Field as PField

from kernel.channel_names import ChannelName
from kernel.limits import SaneInstant, StorableText


class Mention(BaseModel):
    """Someone @-mentioned in a message (platform user id and the name shown)."""

    external_user_id: StorableText | None = None
    name: StorableText = ""
    is_bot: bool = False


class InboundMedia(BaseModel):
    """Media a message carried: what kind, the platform's key for it, and what is known about it."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["photo", "document", "voice", "audio", "video", "sticker", "image", "file", "post"]
    file_id: StorableText  # Telegram file_id; Feishu image_key / file_key ("" for a post)
    file_name: StorableText | None = None
    mime_type: StorableText | None = None
    size: int | None = None


class InboundMessage(BaseModel):
    """One chat message from any platform, normalised (the same shape whatever the transport).

    Its text must be storable on every backend: messages also arrive by long polling and the long
    connection, where the HTTP guard does not look.
    """

    model_config = ConfigDict(extra="forbid")

    channel: ChannelName
    event_id: StorableText  # Feishu header.event_id / Telegram update_id: the de-duplication key
    message_id: StorableText
    chat_id: StorableText
    chat_type: Literal["p2p", "group"]
    external_user_id: StorableText
    text: StorableText = ""
    reply_to_message_id: StorableText | None = None
    mentions: list[Mention] = PField(default_factory=list)
    mentions_bot: bool = False
    media: InboundMedia | None = None  # with it, `text` is the caption (or a post's text)
    occurred_at: SaneInstant
    sandbox: bool = False  # typed in the console's sandbox, not on the platform: what it causes stays dry-run


class InboundPress(BaseModel):
    """A button press on a message the bot sent (Telegram callback_query, Feishu card.action.trigger)."""

    model_config = ConfigDict(extra="forbid")

    channel: ChannelName
    event_id: StorableText  # Telegram callback_query.id / Feishu header.event_id: the de-duplication key
    press_id: StorableText  # what the adapter answers the press with (Telegram callback_query.id)
    token: StorableText  # the button's opaque token (callback_data / card value)
    external_user_id: StorableText
    chat_id: StorableText | None = None
    message_id: StorableText | None = None  # the message the button is on
    occurred_at: SaneInstant
    sandbox: bool = False  # pressed in the console's sandbox: what it causes stays dry-run


class InboundRead(BaseModel):
    """A platform saying a person read messages the bot sent (Feishu im.message.message_read_v1)."""

    model_config = ConfigDict(extra="forbid")

    channel: ChannelName
    event_id: StorableText  # the de-duplication key: a redelivered event is recorded once
    external_user_id: StorableText  # who read
    message_ids: list[StorableText] = PField(min_length=1, max_length=500)
    read_at: SaneInstant


@dataclass(frozen=True)
class PressAnswer:
    """What a press is answered with: the toast, and whether this delivery recorded it (`first`).

    A platform that answers out of band (Telegram's answerCallbackQuery, once per query) answers only the first
    delivery; a redelivery of the same event is recognised here, before anything is sent. A platform that
    answers in band (Feishu's callback response) answers every delivery with the toast.
    """

    toast: str
    first: bool = True


class Inbound(Protocol):
    """Where adapters hand inbound messages (the composition root wires it to perception)."""

    def record(self, message: InboundMessage) -> bool:
        """Record the message durably (once per platform event); True when it was new."""

    def skipped(self, *, channel: str, event_id: str, reason: str) -> None:
        """Note durably that an event Deputy cannot read was passed over."""

    def press(self, press: InboundPress) -> PressAnswer:
        """Record the press durably (once per platform event) and return the toast to answer it with at once
        (the cheap checks: addressee, closed; otherwise a neutral "received") in the presser's language, and
        whether this delivery was the first."""

    def read(self, receipt: InboundRead) -> bool:
        """Record that a person read messages the bot sent (once per platform event); True when it was new."""

    def wake(self) -> None:
        """New messages wait: wake the pipeline."""
