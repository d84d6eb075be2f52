"""Injectable clocks: every 'now' in the service comes from one of these, always UTC-aware."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    """Source of the current instant."""

    def now(self) -> datetime: ...


class SystemClock:
    """The wall clock, in UTC."""

    def now(self) -> datetime:
        """Current UTC time."""
        return datetime.now(UTC)


class FrozenClock:
    """A clock that only moves when told to (tests, simulations)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FrozenClock needs an aware datetime")
        self._now = start.astimezone(UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        """The frozen instant."""
        with self._lock:
            return self._now

    def advance(self, delta: timedelta) -> datetime:
        """Move forward by `delta` and return the new instant."""
        with self._lock:
            self._now += delta
            return self._now

    def set(self, instant: datetime) -> None:
        """Jump to `instant`."""
        with self._lock:
            self._now = instant.astimezone(UTC)
