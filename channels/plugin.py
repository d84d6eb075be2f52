"""One plugin per platform: from settings, the sender, the webhook, the inbound starter and the contact directory.

The composition root lists the plugins (`app.plugins`); the rest of the service only sees the `Channel`
interface for sending and an `Inbound` port for what arrives. Adding a platform is a new folder with a
plugin and one line in that list.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from channels.base import Channel
from channels.inbound import Inbound, InboundMessage, InboundPress


@dataclass(frozen=True)
class WebhookRequest:
    """What a platform POSTed to `/webhooks/<name>`: headers, raw body, and when it arrived."""

    headers: Mapping[str, str]
    body: bytes
    now: datetime


@dataclass(frozen=True)
class WebhookReply:
    """The platform's answer and the messages to record; `answer(recorded)` builds the body once they are.

    With a `press`, the caller hands it to `Inbound.press` and answers with `answer_press(toast)` instead (which
    may call the platform, e.g. Telegram's answerCallbackQuery: run it off the event loop).
    """

    answer: Callable[[bool], dict[str, Any]]
    messages: list[InboundMessage] = field(default_factory=list)
    status: int = 200
    press: InboundPress | None = None
    answer_press: Callable[[str], dict[str, Any]] | None = None


class Webhook(Protocol):
    """Authenticates, parses and answers one platform request (refusals raise the kernel's errors)."""

    def handle(self, request: WebhookRequest) -> WebhookReply: ...


class Started(Protocol):
    """A running inbound transport (long polling, a long connection)."""

    def stop(self) -> None: ...


class ChannelPlugin(ABC):
    """A platform: its name, and what it provides once its settings are there."""

    name: str

    @abstractmethod
    def sender(self, settings: Any, *, redis: Any = None) -> Channel | None:
        """The sending channel, or None while the platform is not configured."""

    def webhook(self, settings: Any, *, sender: Channel | None) -> Webhook | None:
        """The handler of `POST /webhooks/<name>`, or None when the platform has no webhook."""
        return None

    def start_inbound(self, ctx: Any, *, inbound: Inbound, sender: Channel | None) -> Started | None:
        """Start the transport that fetches messages (polling, long connection) when the settings ask for one."""
        return None

    def directory(self, settings: Any, *, sender: Channel | None) -> Any:
        """The platform's contact directory (`users()` as plain records), or None."""
        return None
