"""The process's Redis client behind short timeouts and a circuit breaker, so a Redis that hangs costs little.

Every Redis use in Deputy is an optimisation or coordination whose truth is the database (de-duplication
fast path, send pacing, wake-ups), and each caller already falls back when a call fails. What a hung Redis
must not do is make every request wait: each call has a short socket timeout and is never retried, and
after a few failures in a row the breaker skips Redis altogether for a while (`kernel.breaker`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from kernel.breaker import CircuitBreaker

log = logging.getLogger("deputy.redis")
THRESHOLD = 3  # consecutive failures that open the breaker


def connect(url: str, *, timeout: float) -> Any:
    """A redis-py client whose every command waits at most `timeout` s (connect or read) and is never retried."""
    import redis
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    # redis-py retries a timed-out command with backoff by default: seconds per call on a silent socket.
    return redis.Redis.from_url(
        url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0)
    )


def redis_breaker(*, cooldown: float, threshold: int = THRESHOLD, **kwargs: Any) -> CircuitBreaker:
    """A breaker that counts Redis's connection errors and timeouts (not its error answers) as failures."""
    import redis

    failures = (redis.ConnectionError, redis.TimeoutError, OSError)
    return CircuitBreaker("redis", failures=failures, threshold=threshold, cooldown=cooldown, log=log, **kwargs)


class GuardedScript:
    """A registered Lua script whose calls go through the breaker (a NOSCRIPT reload included)."""

    def __init__(self, script: Any, breaker: CircuitBreaker) -> None:
        self._script, self._breaker = script, breaker

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._breaker.call(self._script, *args, **kwargs)


class GuardedRedis:
    """Delegates to a redis-py client; every command goes through the breaker.

    `pubsub()` is handed out unguarded: a subscription is a long-lived background read with its own
    timeout (the processor's wake-up listener), never on a request path.
    """

    _UNGUARDED = frozenset({"pubsub", "close", "connection_pool", "get_connection_kwargs"})

    def __init__(self, client: Any, breaker: CircuitBreaker) -> None:
        self.client, self.breaker = client, breaker

    def register_script(self, script: str) -> GuardedScript:
        """The script registered on the client, called through the breaker."""
        return GuardedScript(self.client.register_script(script), self.breaker)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.client, name)
        if name in self._UNGUARDED or not callable(attribute):
            return attribute

        def guarded(*args: Any, **kwargs: Any) -> Any:
            return self.breaker.call(attribute, *args, **kwargs)

        guarded.__name__ = name
        return guarded


class LazyRedis:
    """The process's guarded client, made on first use: redis-py (6 MB resident) is imported only by a process
    whose work reaches Redis (sending, the health probes), not by a web process that only appends webhooks."""

    def __init__(self, make: Callable[[], GuardedRedis]) -> None:
        self._make, self._client, self._lock = make, None, threading.Lock()

    @property
    def made(self) -> bool:
        """True once the client exists (redis-py imported)."""
        return self._client is not None

    def client_(self) -> GuardedRedis:
        """The guarded client, made now if it was not yet."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._make()
        return self._client

    def register_script(self, script: str) -> _LazyScript:
        """A script registered with the client's first call (a pacer is built long before it paces anything)."""
        return _LazyScript(self, script)

    def close(self) -> None:
        """Close the client's connections, if it was ever made."""
        if self._client is not None:
            self._client.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client_(), name)


class _LazyScript:
    def __init__(self, redis: LazyRedis, script: str) -> None:
        self._redis, self._source, self._script = redis, script, None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._script is None:
            self._script = self._redis.client_().register_script(self._source)
        return self._script(*args, **kwargs)


def guarded_client(url: str, *, timeout: float, cooldown: float) -> LazyRedis:
    """The one Redis client of a process: short timeouts, no retries, a breaker; made on first use."""
    return LazyRedis(lambda: GuardedRedis(connect(url, timeout=timeout), redis_breaker(cooldown=cooldown)))
