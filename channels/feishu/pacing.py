"""Per-receiver send pacing (Feishu allows 5 messages/s to one user or chat): wait briefly or raise RateLimited."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from channels.errors import RateLimited

log = logging.getLogger("deputy.channels.feishu")

RATE, WINDOW, MAX_WAIT = 5, 1.0, 0.5
REDIS_RETRY_AFTER = 30.0  # seconds of local-only pacing after a Redis error

# KEYS[1] the receiver's window; ARGV now_ms, window_ms, limit, member. Returns -1 (slot taken) or ms to wait.
_SLIDING_WINDOW = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return -1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(0, tonumber(oldest[2]) + tonumber(ARGV[2]) - tonumber(ARGV[1]))
"""


class Pacer(Protocol):
    def acquire(self, receiver: str) -> None: ...


class _Waiting:
    """The shared wait-or-refuse loop: `try_take` returns None (taken) or seconds until a slot frees."""

    def __init__(self, *, rate: int, window: float, max_wait: float, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self.rate, self.window, self.max_wait = rate, window, max_wait
        self._clock, self._sleep = clock, sleep

    def try_take(self, receiver: str, now: float) -> float | None:
        raise NotImplementedError

    def acquire(self, receiver: str) -> None:
        """Take a send slot for `receiver`, waiting at most `max_wait` seconds, else RateLimited."""
        deadline = self._clock() + self.max_wait
        while True:
            now = self._clock()
            wait = self.try_take(receiver, now)
            if wait is None:
                return
            if now + wait > deadline:
                raise RateLimited(f"more than {self.rate} messages per {self.window:g}s to {receiver}", code="pacing", retry_after=round(wait, 3))
            self._sleep(wait)


class LocalPacer(_Waiting):
    """Sliding window per receiver, in this process only."""

    def __init__(self, *, rate: int = RATE, window: float = WINDOW, max_wait: float = MAX_WAIT,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(rate=rate, window=window, max_wait=max_wait, clock=clock, sleep=sleep)
        self._sent: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def try_take(self, receiver: str, now: float) -> float | None:
        with self._lock:
            if len(self._sent) > 10_000:  # forget idle receivers
                self._sent = {k: q for k, q in self._sent.items() if q and q[-1] > now - self.window}
            sent = self._sent.setdefault(receiver, deque())
            while sent and sent[0] <= now - self.window:
                sent.popleft()
            if len(sent) < self.rate:
                sent.append(now)
                return None
            return sent[0] + self.window - now


class RedisPacer(_Waiting):
    """Sliding window per receiver shared by every process on one Redis; falls back to local pacing if Redis fails."""

    def __init__(self, redis: Any, *, prefix: str = "deputy:feishu:pace:", rate: int = RATE, window: float = WINDOW, max_wait: float = MAX_WAIT,
                 clock: Callable[[], float] = time.time, sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(rate=rate, window=window, max_wait=max_wait, clock=clock, sleep=sleep)
        self._redis, self._prefix = redis, prefix
        self._script = redis.register_script(_SLIDING_WINDOW)
        self._fallback = LocalPacer(rate=rate, window=window, max_wait=max_wait, clock=clock, sleep=sleep)
        self._down_until = float("-inf")

    def try_take(self, receiver: str, now: float) -> float | None:
        if now < self._down_until:
            return self._fallback.try_take(receiver, now)
        now_ms, window_ms = int(now * 1000), int(self.window * 1000)
        try:
            wait_ms = int(self._script(keys=[self._prefix + receiver], args=[now_ms, window_ms, self.rate, f"{now_ms}:{uuid.uuid4().hex}"]))
        except Exception as exc:  # Redis is coordination, not truth: pace locally for a while, then try Redis again
            log.warning("feishu pacing falls back to this process for %ss: %s", REDIS_RETRY_AFTER, exc)
            self._down_until = now + REDIS_RETRY_AFTER
            return self._fallback.try_take(receiver, now)
        return None if wait_ms < 0 else wait_ms / 1000
