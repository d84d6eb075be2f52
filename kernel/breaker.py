"""A circuit breaker: after repeated failures of a dependency, skip it for a while instead of waiting on it.

Closed, every call goes through and `threshold` consecutive failures open the breaker. Open, calls are
refused at once (`Skipped`) until `cooldown` seconds have passed; then one call is let through as a trial
(half-open): its success closes the breaker, its failure opens it for another cooldown. The breaker logs
once when it opens and once when it closes, never per call.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
CLOSED, OPEN, HALF_OPEN = "closed", "open", "half_open"


class Skipped(ConnectionError):
    """Raised instead of calling a dependency whose breaker is open (nothing was sent to it)."""


class CircuitBreaker:
    """Guards calls to one dependency; `failures` says which exceptions mean the dependency is unavailable."""

    def __init__(
        self,
        name: str,
        *,
        failures: tuple[type[BaseException], ...] = (OSError,),
        threshold: int = 3,
        cooldown: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        log: logging.Logger | None = None,
    ) -> None:
        if threshold < 1 or cooldown <= 0:
            raise ValueError("threshold must be >= 1 and cooldown > 0")
        self.name, self.failures, self.threshold, self.cooldown = name, failures, threshold, cooldown
        self._clock = clock
        self._log = log or logging.getLogger("deputy.breaker")
        self._lock = threading.Lock()
        self.state = CLOSED
        self._streak = 0
        self._open_until = 0.0
        # What happened to the calls: let through (attempted), failed among them, and refused while open.
        self.attempted = self.failed = self.skipped = 0

    def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run `fn` unless the breaker is open (then raise Skipped without calling it)."""
        self._admit()
        try:
            result = fn(*args, **kwargs)
        except self.failures as exc:
            self._failed(exc)
            raise
        except BaseException:  # an answer that is an error (a script error, a wrong type): the dependency is up
            self._succeeded()
            raise
        self._succeeded()
        return result

    @property
    def is_open(self) -> bool:
        """True while calls are being skipped (open, or half-open with its trial call in flight)."""
        return self.state != CLOSED

    def _admit(self) -> None:
        with self._lock:
            if self.state == OPEN and self._clock() >= self._open_until:
                self.state = HALF_OPEN  # this caller is the trial; others keep being skipped until it answers
            elif self.state != CLOSED:
                self.skipped += 1
                raise Skipped(f"{self.name} skipped: circuit open after repeated failures")
            self.attempted += 1

    def _succeeded(self) -> None:
        with self._lock:
            self._streak = 0
            if self.state == CLOSED:
                return
            self.state = CLOSED
        self._log.warning("%s answers again: circuit closed", self.name, extra={"breaker": self.name, "state": CLOSED})

    def _failed(self, exc: BaseException) -> None:
        with self._lock:
            self.failed += 1
            self._streak += 1
            if self.state == CLOSED and self._streak < self.threshold:
                return
            opening = self.state == CLOSED
            self.state, self._open_until = OPEN, self._clock() + self.cooldown
        if opening:  # a failed trial re-opens silently: the outage was already reported
            self._log.warning(
                "%s unavailable (%s): circuit open, skipping it for %gs",
                self.name,
                type(exc).__name__,
                self.cooldown,
                extra={"breaker": self.name, "state": OPEN, "failures": self._streak},
            )
