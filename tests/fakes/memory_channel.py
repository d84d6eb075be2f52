"""An in-memory channel for tests, benchmarks and local runs: records messages, fails on request."""

from __future__ import annotations

import itertools
import threading
from collections import defaultdict
from dataclasses import dataclass

from channels.base import Channel, ChannelHealth, OutboundMessage, SendReceipt
from channels.errors import ChannelError


@dataclass(frozen=True)
class Delivered:
    """A message the in-memory channel accepted."""

    message_id: str
    message: OutboundMessage


class MemoryChannel(Channel):
    """Stands in for a platform; `fail_with` scripts errors per external user id."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.sent: list[Delivered] = []
        self._failures: dict[str, list[ChannelError]] = defaultdict(list)
        self._always: dict[str, ChannelError] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def fail_with(self, external_user_id: str, error: ChannelError, *, always: bool = False) -> None:
        """Make the next send (or every send, with `always`) to this user raise `error`."""
        with self._lock:
            if always:
                self._always[external_user_id] = error
            else:
                self._failures[external_user_id].append(error)

    def send(self, message: OutboundMessage) -> SendReceipt:
        """Record the message, or raise the scripted error."""
        with self._lock:
            if message.external_user_id in self._always:
                raise self._always[message.external_user_id]
            if self._failures[message.external_user_id]:
                raise self._failures[message.external_user_id].pop(0)
            message_id = f"{self.name}_msg_{next(self._ids)}"
            self.sent.append(Delivered(message_id=message_id, message=message))
        return SendReceipt(message_id=message_id)

    def health(self) -> ChannelHealth:
        """Always healthy."""
        return ChannelHealth(name=self.name, ok=True, detail="in-memory")

    def texts_to(self, external_user_id: str) -> list[str]:
        """Texts delivered to one user, oldest first."""
        with self._lock:
            return [d.message.text for d in self.sent if d.message.external_user_id == external_user_id]
