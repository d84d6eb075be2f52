"""An `Inbound` port for channel tests: keeps messages, presses, reads and skips in memory; a press gets a toast.

The app's own port (app.inbound.PerceptionInbound) writes facts; adapter tests only need to see what an adapter
handed over and that it answered a press with the toast it was given.
"""

from __future__ import annotations

import threading

from channels.inbound import InboundMessage, InboundPress, InboundRead, PressAnswer


class RecordingInbound:
    """Keeps what arrives, de-duplicated by event id like the real port; `toast` is every press's answer."""

    def __init__(self, toast: str = "已推迟到 18:30") -> None:
        self.toast = toast
        self.messages: list[InboundMessage] = []
        self.presses: list[InboundPress] = []
        self.reads: list[InboundRead] = []
        self.skips: list[tuple[str, str, str]] = []
        self.wakes = 0
        self._lock = threading.Lock()

    def record(self, message: InboundMessage) -> bool:
        """Keep the message once per event id; True when it was new."""
        with self._lock:
            if any(m.event_id == message.event_id for m in self.messages):
                return False
            self.messages.append(message)
            return True

    def skipped(self, *, channel: str, event_id: str, reason: str) -> None:
        """Keep the skip."""
        with self._lock:
            self.skips.append((channel, event_id, reason))

    def press(self, press: InboundPress) -> PressAnswer:
        """Keep the press once per event id; the toast either way, `first` only for the delivery that kept it."""
        with self._lock:
            first = not any(p.event_id == press.event_id for p in self.presses)
            if first:
                self.presses.append(press)
        return PressAnswer(self.toast, first=first)

    def read(self, receipt: InboundRead) -> bool:
        """Keep the read receipt once per event id; True when it was new."""
        with self._lock:
            if any(r.event_id == receipt.event_id for r in self.reads):
                return False
            self.reads.append(receipt)
            return True

    def wake(self) -> None:
        """Count wake-ups."""
        with self._lock:
            self.wakes += 1
