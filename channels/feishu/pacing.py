"""Per-receiver send pacing (Feishu allows 5 messages/s to one user or chat): wait briefly or raise Paced.

A message's parts take their slots together up front, so our own pacing never cuts a message half-way.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from channels.errors import Paced

log = logging.getLogger("deputy.channels.feishu")

RATE, WINDOW, MAX_WAIT = 5, 1.0, 0.5
MAX_SLEEP = 1.0  # no single wait inside a send is longer than this

# KEYS[1] the receiver's window; ARGV now_ms, window_ms, limit, member, count.
# Returns -1 (`count` slots taken) or ms until enough of the oldest sends leave the window.
_SLIDING_WINDOW = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
local over = redis.call('ZCARD', KEYS[1]) + tonumber(ARGV[5]) - tonumber(ARGV[3])
if over <= 0 then
  for i = 1, tonumber(ARGV[5]) do redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4] .. ':' .. i) end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return -1
end
local oldest = redis.call('ZRANGE', KEYS[1], over - 1, over - 1, 'WITHSCORES')
return math.max(0, tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1]))
"""


class Pacer(Protocol):
    def acquire(self, receiver: str, *, parts: int = 1) -> int: ...

    def follow(self, receiver: str) -> None: ...


class _Waiting:
    """The shared wait-or-refuse loop: `try_take` returns None (taken) or seconds until the slots free."""

    def __init__(
        self, *, rate: int, window: float, max_wait: float, clock: Callable[[], float], sleep: Callable[[float], None]
    ) -> None:
        if not 0 <= max_wait <= MAX_SLEEP:
            raise ValueError(f"max_wait must be within [0, {MAX_SLEEP}] seconds")
        self.rate, self.window, self.max_wait = rate, window, max_wait
        self._clock, self._sleep = clock, sleep

    def try_take(self, receiver: str, now: float, count: int = 1) -> float | None:
        raise NotImplementedError

    def _take(self, receiver: str, count: int, max_wait: float) -> float | None:
        """None once `count` slots are ours (after sleeps of at most `max_wait` in all), else the last wait seen."""
        deadline = self._clock() + max_wait
        while True:
            now = self._clock()
            wait = self.try_take(receiver, now, count)
            if wait is None:
                return None
            if now + wait > deadline:
                return wait
            self._sleep(wait)

    def acquire(self, receiver: str, *, parts: int = 1) -> int:
        """Take slots for a message's first min(parts, rate) parts together, waiting at most `max_wait`, else Paced.

        Returns how many parts have their slot; each later part calls `follow` before it goes.
        """
        count = max(1, min(parts, self.rate))
        wait = self._take(receiver, count, self.max_wait)
        if wait is not None:
            raise Paced(
                f"more than {self.rate} messages per {self.window:g}s to {receiver}",
                retry_after=max(0.001, round(wait, 3)),
            )
        return count

    def follow(self, receiver: str) -> None:
        """A slot for one more part of a message already underway: wait briefly, and go anyway rather than cut it."""
        if self._take(receiver, 1, min(self.window, MAX_SLEEP)) is not None:
            log.warning("feishu pace to %s full; a later part of a long message goes anyway", receiver)


class LocalPacer(_Waiting):
    """Sliding window per receiver, in this process only."""

    def __init__(
        self,
        *,
        rate: int = RATE,
        window: float = WINDOW,
        max_wait: float = MAX_WAIT,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(rate=rate, window=window, max_wait=max_wait, clock=clock, sleep=sleep)
        self._sent: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def try_take(self, receiver: str, now: float, count: int = 1) -> float | None:
        with self._lock:
            if len(self._sent) > 10_000:  # forget idle receivers
                self._sent = {k: q for k, q in self._sent.items() if q and q[-1] > now - self.window}
            sent = self._sent.setdefault(receiver, deque())
            while sent and sent[0] <= now - self.window:
                sent.popleft()
            over = len(sent) + count - self.rate
            if over <= 0:
                sent.extend([now] * count)
                return None
            return sent[over - 1] + self.window - now


class RedisPacer(_Waiting):
    """Sliding window per receiver shared by every process on one Redis; falls back to local pacing if Redis fails."""

    def __init__(
        self,
        redis: Any,
        *,
        prefix: str = "deputy:feishu:pace:",
        rate: int = RATE,
        window: float = WINDOW,
        max_wait: float = MAX_WAIT,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(rate=rate, window=window, max_wait=max_wait, clock=clock, sleep=sleep)
        self._redis, self._prefix = redis, prefix
        self._script = redis.register_script(_SLIDING_WINDOW)
        self._fallback = LocalPacer(rate=rate, window=window, max_wait=max_wait, clock=clock, sleep=sleep)

    def try_take(self, receiver: str, now: float, count: int = 1) -> float | None:
        now_ms, window_ms = int(now * 1000), int(self.window * 1000)
        try:
            member = f"{now_ms}:{uuid.uuid4().hex}"
            args = [now_ms, window_ms, self.rate, member, count]
            wait_ms = int(self._script(keys=[self._prefix + receiver], args=args))
        except Exception as exc:  # Redis is coordination, not truth: pace in this process meanwhile
            # Debug only: the service's Redis client skips a failing Redis for a while (its breaker) and says so once.
            log.debug("feishu pacing falls back to this process: %s", type(exc).__name__)
            return self._fallback.try_take(receiver, now, count)
        return None if wait_ms < 0 else wait_ms / 1000
