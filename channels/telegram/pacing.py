"""Send pacing (1 message/s per chat, 30/s per bot): reserve the next free slot, wait at most 1 s, else Paced.

A slot key holds the time it next frees. Taking it reserves `count` consecutive intervals from
max(now, free) and tells the caller how long to wait for the first; a slot further away than
`max_wait` is not taken, and its distance becomes the `retry_after` of a `Paced` error. With Redis the
key is updated by a script on Redis's own clock (so every process shares the pace and no host clock
matters); without it, or while Redis fails, a dict of free times in this process.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from channels.errors import Paced

log = logging.getLogger("deputy.channels.telegram")

MAX_WAIT = 1.0  # no single wait inside a send is longer than this

# KEYS[1] the slot; ARGV interval_ms, count, max_wait_ms. Returns {taken, wait_ms, start_ms, finish_ms}.
_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or 0))
if start - now > tonumber(ARGV[3]) then return {0, start - now, 0, 0} end
local finish = start + tonumber(ARGV[1]) * tonumber(ARGV[2])
redis.call('SET', KEYS[1], string.format('%d', finish), 'PX', finish - now)
return {1, start - now, string.format('%d', start), string.format('%d', finish)}
"""

# KEYS[1] the slot; ARGV finish_ms, start_ms. Gives a reservation back unless someone reserved after it.
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local left = tonumber(ARGV[2]) - (tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
if left > 0 then redis.call('SET', KEYS[1], ARGV[2], 'PX', left) else redis.call('DEL', KEYS[1]) end
return 1
"""


class Grant(NamedTuple):
    """One answer from `take`: `wait` seconds until the first reserved slot (or the earliest free one)."""

    taken: bool
    wait: float
    key: str = ""
    start: Any = None
    finish: Any = None
    local: bool = True


class LocalSlots:
    """Slots held in this process only, on the injected clock."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._free_at: dict[str, float] = {}

    def take(self, key: str, interval: float, *, count: int, max_wait: float) -> Grant:
        """Reserve `count` intervals from the slot's next free time, unless that is more than `max_wait` away."""
        now = self._clock()
        with self._lock:
            start = max(now, self._free_at.get(key, now))
            if start - now > max_wait:
                return Grant(False, start - now)
            self._free_at[key] = finish = start + interval * count
            if len(self._free_at) > 10_000:  # forget long-free chats
                self._free_at = {k: v for k, v in self._free_at.items() if v > now}
            return Grant(True, start - now, key, start, finish)

    def release(self, grant: Grant) -> None:
        """Give an unused reservation back if nobody reserved after it."""
        with self._lock:
            if self._free_at.get(grant.key) == grant.finish:
                self._free_at[grant.key] = grant.start


class RedisSlots:
    """Slots shared by every process using the same Redis; falls back to local slots if Redis fails."""

    def __init__(self, redis: Any, clock: Callable[[], float]) -> None:
        self._take = redis.register_script(_TAKE)
        self._release = redis.register_script(_RELEASE)
        self._local = LocalSlots(clock)

    def take(self, key: str, interval: float, *, count: int, max_wait: float) -> Grant:
        """Reserve `count` intervals from the slot's next free time, unless that is more than `max_wait` away."""
        args = [max(1, math.ceil(interval * 1000)), count, math.ceil(max_wait * 1000)]
        try:
            taken, wait_ms, start, finish = self._take(keys=[key], args=args)
        except Exception as exc:  # Redis is coordination, not truth: keep sending at the local pace
            # Debug only: the Redis client's breaker says once that Redis is away, not once per send.
            log.debug("redis pacing unavailable (%s); pacing in-process", type(exc).__name__)
            return self._local.take(key, interval, count=count, max_wait=max_wait)
        return Grant(bool(taken), wait_ms / 1000, key, start, finish, local=False)

    def release(self, grant: Grant) -> None:
        """Give an unused reservation back if nobody reserved after it."""
        if grant.local:
            self._local.release(grant)
            return
        try:
            self._release(keys=[grant.key], args=[grant.finish, grant.start])
        except Exception as exc:  # the reservation simply runs out
            log.debug("redis pacing unavailable (%s); a reservation was not given back", type(exc).__name__)


class Turns:
    """The slots of one message's parts: each part goes one chat interval after the one before it."""

    def __init__(self, pacer: Pacer, chat_id: str) -> None:
        self._pacer, self._chat_id, self._last = pacer, chat_id, pacer.clock()

    def wait(self, index: int) -> None:
        """Wait (at most a chat interval, then a bot slot) until part `index` may go; the chat is already ours."""
        pacer = self._pacer
        pacer.pause(self._last + pacer.chat_interval - pacer.clock())
        bot = pacer.take_bot(waited=0.0)
        if bot.taken:
            pacer.pause(bot.wait)
        else:  # cutting the message would be worse than one part over the bot-wide pace
            log.warning("telegram bot-wide pace full; part %d to %s goes anyway", index + 1, self._chat_id)
        self._last = pacer.clock()


class Pacer:
    """Grants send slots per chat and per bot, waiting at most `max_wait` (<= 1 s) for each, else `Paced`."""

    def __init__(
        self,
        *,
        namespace: str,
        redis: Any = None,
        chat_interval: float = 1.0,
        bot_rate: float = 30.0,
        max_wait: float = MAX_WAIT,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        if not 0 < chat_interval <= MAX_WAIT:  # a split message's parts wait one chat interval each
            raise ValueError(f"chat_interval must be within (0, {MAX_WAIT}] seconds")
        if not 0 <= max_wait <= MAX_WAIT:
            raise ValueError(f"max_wait must be within [0, {MAX_WAIT}] seconds")
        self.clock = clock or time.monotonic
        self._sleep = sleep
        self._slots: LocalSlots | RedisSlots = (
            RedisSlots(redis, self.clock) if redis is not None else LocalSlots(self.clock)
        )
        self._prefix = f"deputy:telegram:{namespace}:"
        self.chat_interval = chat_interval
        self.bot_interval = 1.0 / bot_rate
        self.max_wait = max_wait

    def pause(self, seconds: float) -> None:
        """Sleep through the injected sleep (time.sleep looked up at call time, so tests can watch it)."""
        if seconds > 0:
            (self._sleep or time.sleep)(seconds)

    def take_bot(self, *, waited: float) -> Grant:
        """The bot-wide slot for a part about to go, within what is left of `max_wait` (but at least one bot slot)."""
        # The bot slot is taken only once the chat slot has come: a bot slot reserved ahead would block every
        # other chat until it, as a slot key holds one free time.
        budget = min(MAX_WAIT, max(self.max_wait - waited, self.bot_interval))
        return self._slots.take(self._prefix + "bot", self.bot_interval, count=1, max_wait=budget)

    def reserve(self, chat_id: str, *, parts: int = 1) -> Turns:
        """Take the chat for `parts` consecutive slots and wait for the first; Paced (nothing sent) if it is too far."""
        chat = self._slots.take(
            self._prefix + f"chat:{chat_id}", self.chat_interval, count=parts, max_wait=self.max_wait
        )
        if not chat.taken:
            raise _paced(f"telegram chat {chat_id} send pace full", chat.wait, "chat")
        self.pause(chat.wait)
        bot = self.take_bot(waited=chat.wait)
        if not bot.taken:
            self._slots.release(chat)
            raise _paced("telegram bot-wide send pace full", bot.wait, "bot")
        self.pause(bot.wait)
        return Turns(self, chat_id)


def _paced(message: str, wait: float, scope: str) -> Paced:
    retry_after = max(0.001, round(wait, 3))
    return Paced(f"{message}; send again in {retry_after:.3f}s", retry_after=retry_after, detail={"scope": scope})
