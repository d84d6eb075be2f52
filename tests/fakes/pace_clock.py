"""A monotonic clock and sleep for pacers that only move when the pacer sleeps: no wall-clock waits in tests."""

from __future__ import annotations

from collections.abc import Callable


class FakeTime:
    """`clock` and `sleep` callables for a pacer; every requested sleep is recorded in `slept`."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now, self.slept = start, []
        self.on_sleep: Callable[[], None] | None = None  # another sender acting just as the sleeper wakes

    def clock(self) -> float:
        """The fake now, in seconds."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Record the sleep, move the clock on, then let `on_sleep` act before the sleeper goes on."""
        self.slept.append(seconds)
        self.now += seconds
        if self.on_sleep is not None:
            self.on_sleep()
