"""The read-receipts port the composition root hands the concern engine's poller: the channels, asked by name."""

from __future__ import annotations

import logging

from channels.errors import ChannelError, RateLimited
from concern.receipts import Polled
from kernel.context import Senders

log = logging.getLogger("deputy.receipts")


class ChannelReceipts:
    """Asks a configured channel who read a message; its errors become what the poller reads (`Polled`)."""

    def __init__(self, channels: Senders) -> None:
        self.channels = channels

    def readers(self, channel: str, message_id: str) -> Polled:
        """Who read `message_id` on `channel`; throttled when the platform asks to slow down."""
        sender = self.channels.get(channel)
        if sender is None:
            return Polled(error="not_configured")
        try:
            return Polled(readers=sender.readers(message_id))
        except RateLimited as exc:
            return Polled(error=str(exc.code or exc.kind), throttled=True)
        except ChannelError as exc:
            return Polled(error=str(exc.code or exc.kind), final=exc.permanent)
        except Exception:  # an adapter bug: this message is asked about again at the next interval
            log.exception("channel %s raised outside the taxonomy while looking up readers", channel)
            return Polled(error="adapter_error")
