"""The console's login limit: a guesser meets it, and the people who share the guesser's address still log in.

Buckets. A failed login is counted in its attempt's buckets, and an attempt is refused (429, its token not even
checked) while any of them is full:

- a known device, a browser carrying a valid device cookie (signed with the console's key, issued at each
  successful login: OWASP's "device cookies"), in its token holder's own bucket, and nowhere else;
- any other browser in its address's bucket (IPv6 by /64, app.console.clients) and in the one bucket every
  browser without a device cookie shares, so a guesser spread over many addresses still meets a limit.

Why. Behind a proxy nobody listed in DEPUTY_TRUSTED_PROXIES, or a shared NAT, everyone has one address: one
guesser fills its bucket, and every browser counted by that address alone would get 429. Browsers that logged in
before are counted apart, and a guesser holds none of their cookies (HttpOnly, signed), so it cannot lock them
out; a new browser behind a filled address waits, as the guesser must, for a 429 cannot tell them apart. The
device bucket is per token holder, not per cookie: whoever holds one token could log in again and again for fresh
cookies, and a bucket per cookie would give each a new budget to guess another token with. A success empties no
bucket, for the same reason (a viewer could interleave logins with guesses at the admin token).

Per guess. A bucket counts distinct wrong guesses (by their digest), not tries: a browser retrying a stale or
mistyped token spends one, however often it retries, and learns nothing new; each different guess costs one.

Shared. With Redis a bucket is a sorted set (member: a guess's digest; score: its latest try), so every replica
counts into it; when Redis does not answer, this process's own count still applies (never fewer checks than
without Redis). Keys and members are digests under the console's signing key: no address or guess is stored as
sent, and two deployments sharing a Redis count apart (rotating the key starts the counts again).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

log = logging.getLogger("deputy.console")
ADDRESS, DEVICE, NEW_DEVICES = "address", "device", "new_devices"
PREFIX = "deputy:console:login_failures:"
MAX_BUCKETS = 10_000  # this process forgets the buckets touched longest ago beyond this (bounded memory)

# KEYS: the buckets. ARGV: the guess, its instant, the window's start, the keys' lifetime (ms), each key's limit.
# A bucket keeps its newest `limit` guesses at most: the wait is read from those alone.
_RECORD = """
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[2], ARGV[1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[3])
  redis.call('ZREMRANGEBYRANK', key, 0, -(tonumber(ARGV[4 + i]) + 1))
  redis.call('PEXPIRE', key, ARGV[4])
end
return #KEYS
"""


@dataclass(frozen=True)
class Attempt:
    """Who is trying to log in: the address the limit counts, and the holder a valid device cookie names."""

    address: str
    device: str | None = None


@dataclass(frozen=True)
class Bucket:
    """One count: its kind (the 429 page says which limit was met), its name and how many guesses fill it."""

    kind: str
    name: str
    limit: int


@dataclass(frozen=True)
class Limited:
    """A refused attempt: the kind of bucket that is full, and how long until it takes one more guess."""

    kind: str
    wait: timedelta


def buckets(attempt: Attempt, *, attempts: int, new_device_attempts: int) -> tuple[Bucket, ...]:
    """Where an attempt is checked and counted: a known device in its holder's bucket; any other browser in two."""
    if attempt.device is not None:
        return (Bucket(DEVICE, f"device:{attempt.device}", attempts),)
    return Bucket(ADDRESS, f"address:{attempt.address}", attempts), Bucket(NEW_DEVICES, "new", new_device_attempts)


def wait(times: Sequence[datetime], *, limit: int, window: timedelta, now: datetime) -> timedelta | None:
    """How long until a bucket whose guesses were last tried at `times` takes another, or None: it takes one now."""
    recent = sorted(time for time in times if time > now - window)
    if len(recent) < limit:
        return None
    # One more fits once all but limit - 1 of them have left the window.
    return recent[len(recent) - limit] + window - now


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class LoginLimiter:
    """At most `attempts` distinct wrong guesses per address or known device, and `new_device_attempts` from every
    browser without a device cookie together, in a sliding `window` (the module's docstring says why)."""

    def __init__(
        self,
        *,
        attempts: int,
        window: timedelta,
        new_device_attempts: int,
        redis: Any = None,
        digest: Callable[[str], str] = _sha256,
    ) -> None:
        self.attempts, self.window, self.new_device_attempts = attempts, window, new_device_attempts
        self._redis, self._digest = redis, digest
        self._record = redis.register_script(_RECORD) if redis is not None else None
        self._local: OrderedDict[str, dict[str, datetime]] = OrderedDict()
        self._lock = threading.Lock()

    def _buckets(self, attempt: Attempt) -> list[tuple[Bucket, str]]:
        chosen = buckets(attempt, attempts=self.attempts, new_device_attempts=self.new_device_attempts)
        return [(bucket, self._digest(bucket.name)) for bucket in chosen]

    def retry_after(self, attempt: Attempt, *, now: datetime) -> Limited | None:
        """The full bucket that refuses `attempt` now, with the longest wait, or None: it may try now."""
        found: list[Limited] = []
        for bucket, key in self._buckets(attempt):
            with self._lock:
                local = list(self._local.get(key, {}).values())
            for times in (self._shared_times(key, now=now), local):
                if times is not None:
                    delay = wait(times, limit=bucket.limit, window=self.window, now=now)
                    if delay is not None:
                        found.append(Limited(bucket.kind, delay))
        return max(found, key=lambda limited: limited.wait, default=None)

    def failed(self, attempt: Attempt, guess: str, *, now: datetime) -> None:
        """Count the wrong `guess` (the token or code tried) in the attempt's buckets; a repeat is not counted again."""
        member = self._digest(f"guess:{guess}")
        chosen = self._buckets(attempt)
        with self._lock:
            for bucket, key in chosen:
                guesses = self._local.pop(key, {})  # re-inserted last: the most recently touched
                guesses[member] = now
                kept = sorted(((t, m) for m, t in guesses.items() if t > now - self.window), reverse=True)
                self._local[key] = {m: t for t, m in kept[: bucket.limit]}
            while len(self._local) > MAX_BUCKETS:
                self._local.popitem(last=False)
        if self._record is None:
            return
        lifetime = int(self.window.total_seconds() * 1000) + 1000
        try:
            self._record(
                keys=[PREFIX + key for _, key in chosen],
                args=[member, now.timestamp(), (now - self.window).timestamp(), lifetime]
                + [bucket.limit for bucket, _ in chosen],
            )
        except Exception as exc:  # Redis is an optimisation here: this process's count still holds
            log.warning("console login limit: redis unavailable (%s); counting in this process", exc)

    def _shared_times(self, key: str, *, now: datetime) -> list[datetime] | None:
        """When each guess every replica counted in the bucket was last tried; None without Redis."""
        if self._redis is None:
            return None
        try:
            since = f"({(now - self.window).timestamp()}"
            scores = self._redis.zrangebyscore(PREFIX + key, since, "+inf", withscores=True)
        except Exception as exc:
            log.warning("console login limit: redis unavailable (%s); counting in this process", exc)
            return None
        return [datetime.fromtimestamp(score, UTC) for _, score in scores]
