"""Send pacing (1 message/s per chat, 30/s per bot): short bounded waits, else RateLimited, never a long sleep.

A slot is a key that exists for `interval` seconds after someone took it. With Redis the key is
`SET NX PX` (so every process shares the pace); without it a dict of deadlines in this process.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from channels.errors import RateLimited

log = logging.getLogger("deputy.channels.telegram")


class LocalSlots:
    """Slots held in this process only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free_at: dict[str, float] = {}

    def take(self, key: str, interval: float) -> float:
        """0 when the slot was free and is now ours for `interval` s, else the seconds until it frees."""
        now = time.monotonic()
        with self._lock:
            free_at = self._free_at.get(key, 0.0)
            if free_at > now:
                return free_at - now
            self._free_at[key] = now + interval
            if len(self._free_at) > 10_000:  # forget long-expired chats
                self._free_at = {k: v for k, v in self._free_at.items() if v > now}
            return 0.0


class RedisSlots:
    """Slots shared by every process using the same Redis; falls back to local slots if Redis fails."""

    def __init__(self, redis: Any) -> None:
        self._redis = redis
        self._local = LocalSlots()

    def take(self, key: str, interval: float) -> float:
        """0 when the slot was free and is now ours for `interval` s, else the seconds until it frees."""
        try:
            if self._redis.set(key, "1", nx=True, px=max(1, int(interval * 1000))):
                return 0.0
            ttl_ms = self._redis.pttl(key)
        except Exception:  # Redis is coordination, not truth: keep sending at the local pace
            log.warning("redis pacing unavailable; pacing in-process", exc_info=True)
            return self._local.take(key, interval)
        return ttl_ms / 1000 if ttl_ms > 0 else 0.001  # expired meanwhile: try again at once


class Pacer:
    """Grants send slots per chat and per bot, waiting at most `max_wait` seconds for one."""

    def __init__(self, *, namespace: str, redis: Any = None, chat_interval: float = 1.0, bot_rate: float = 30.0, max_wait: float = 1.0) -> None:
        self._slots: LocalSlots | RedisSlots = RedisSlots(redis) if redis is not None else LocalSlots()
        self._namespace = namespace
        self.chat_interval = chat_interval
        self.bot_interval = 1.0 / bot_rate
        self.max_wait = max_wait

    def _acquire(self, key: str, interval: float, max_wait: float, scope: str) -> None:
        deadline = time.monotonic() + max_wait
        while True:
            wait = self._slots.take(key, interval)
            if wait <= 0:
                return
            if time.monotonic() + wait > deadline:
                raise RateLimited(f"telegram {scope} send pace exceeded; retry later", code="pacing", retry_after=round(wait, 3), detail={"scope": scope})
            time.sleep(wait)

    def acquire(self, chat_id: str, *, continuation: bool = False) -> None:
        """Take this chat's and the bot's next slot; RateLimited if one is not free soon enough."""
        # A continuation (a later part of a split message) may wait a whole chat interval: the first
        # part is already out, and giving up then would deliver half a message.
        chat_wait = self.chat_interval + self.max_wait if continuation else self.max_wait
        self._acquire(f"deputy:telegram:{self._namespace}:chat:{chat_id}", self.chat_interval, chat_wait, "chat")
        self._acquire(f"deputy:telegram:{self._namespace}:bot", self.bot_interval, self.max_wait, "bot")
