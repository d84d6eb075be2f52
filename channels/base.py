"""The channel interface the action layer sends through, and the registry of configured channels."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class OutboundMessage:
    """One message to one person on one channel; `idempotency_key` is the action id."""

    idempotency_key: str
    external_user_id: str
    chat_id: str | None
    text: str
    locale: str = "zh"


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

    @abstractmethod
    def send(self, message: OutboundMessage) -> SendReceipt:
        """Deliver `message` or raise a ChannelError; never retries or sleeps on its own."""

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
