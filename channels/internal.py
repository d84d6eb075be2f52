"""The `internal` channel: runs query and internal_update operations in-process; it messages no one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from channels.base import Channel, ChannelHealth, OutboundMessage, SendReceipt
from channels.errors import InvalidRequest

Handler = Callable[[Any, dict[str, Any]], dict[str, Any]]


class InternalChannel(Channel):
    """Executes named operations with handlers the composition root registers."""

    name = "internal"

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}

    def register(self, operation: str, handler: Handler) -> None:
        """Make `operation` runnable; the handler gets (unit of work, arguments) and returns a result dict."""
        self._handlers[operation] = handler

    def operations(self) -> list[str]:
        """Names of the registered operations."""
        return sorted(self._handlers)

    def run(self, uow: Any, operation: dict[str, Any]) -> dict[str, Any]:
        """Run `{"name": ..., **arguments}`; InvalidRequest for an unknown operation."""
        name = operation.get("name")
        handler = self._handlers.get(name) if isinstance(name, str) else None
        if handler is None:
            raise InvalidRequest(f"unknown internal operation {name!r}", code="unknown_operation")
        return handler(uow, {k: v for k, v in operation.items() if k != "name"})

    def send(self, message: OutboundMessage) -> SendReceipt:
        """The internal channel delivers no messages to people."""
        raise InvalidRequest("the internal channel does not message people", code="not_a_messaging_channel")

    def health(self) -> ChannelHealth:
        """Always available."""
        return ChannelHealth(name=self.name, ok=True, detail=f"{len(self._handlers)} operations")
