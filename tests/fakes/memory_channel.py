"""An in-memory channel for tests, benchmarks and local runs: records messages, edits and press answers, fails on
request."""

from __future__ import annotations

import itertools
import threading
from collections import defaultdict
from dataclasses import dataclass

from channels.base import Button, Channel, ChannelHealth, MessageEdit, OutboundMessage, SendReceipt
from channels.errors import ChannelError, InvalidRequest


@dataclass(frozen=True)
class Delivered:
    """A message the in-memory channel accepted."""

    message_id: str
    message: OutboundMessage


@dataclass(frozen=True)
class Answer:
    """A press the channel answered, and the toast it showed."""

    press_id: str
    text: str


class MemoryChannel(Channel):
    """Stands in for a platform; `fail_with` scripts errors per external user id.

    `sent` keeps each message whole (buttons and media included); `edits` every edit accepted; `answers` every
    press answered. Editing a message it never sent is refused like a platform would (InvalidRequest).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.sent: list[Delivered] = []
        self.edits: list[MessageEdit] = []
        self.answers: list[Answer] = []
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
        detail = {"buttons_message_id": message_id} if message.buttons else {}
        return SendReceipt(message_id=message_id, detail=detail)

    def edit(self, edit: MessageEdit) -> SendReceipt:
        """Record the edit of a message this channel sent (InvalidRequest "message_gone" for any other)."""
        with self._lock:
            if not any(d.message_id == edit.message_id for d in self.sent):
                raise InvalidRequest(f"no message {edit.message_id} to edit", code="message_gone", permanent=True)
            self.edits.append(edit)
        return SendReceipt(message_id=edit.message_id, detail={"edited": True})

    def answer_press(self, *, press_id: str, text: str) -> None:
        """Record the answer."""
        with self._lock:
            self.answers.append(Answer(press_id=press_id, text=text))

    def buttons_to(self, external_user_id: str) -> list[tuple[Button, ...]]:
        """The buttons of each message delivered to one user, oldest first."""
        with self._lock:
            return [d.message.buttons for d in self.sent if d.message.external_user_id == external_user_id]

    def shown(self, message_id: str) -> tuple[str, tuple[Button, ...]] | None:
        """A sent message's text and buttons as they look now (after its last edit), or None."""
        with self._lock:
            delivered = next((d for d in self.sent if d.message_id == message_id), None)
            if delivered is None:
                return None
            last = next((e for e in reversed(self.edits) if e.message_id == message_id), None)
            return (last.text, last.buttons) if last else (delivered.message.text, delivered.message.buttons)

    def health(self) -> ChannelHealth:
        """Always healthy."""
        return ChannelHealth(name=self.name, ok=True, detail="in-memory")

    def texts_to(self, external_user_id: str) -> list[str]:
        """Texts delivered to one user, oldest first."""
        with self._lock:
            return [d.message.text for d in self.sent if d.message.external_user_id == external_user_id]
