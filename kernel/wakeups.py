"""Cross-replica scheduler wake-ups over Redis pub/sub (an optimisation: the database stays the truth)."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("deputy.wakeups")
WAKE_CHANNEL = "deputy:scheduler:wake"


def wake(ctx: Any) -> None:
    """Ask every replica's scheduler to tick now; without Redis the interval alone drives ticks."""
    if ctx.redis is None:
        return
    try:
        ctx.redis.publish(WAKE_CHANNEL, "1")
    except Exception as exc:  # a lost wake-up only delays work until the next interval
        # Debug only: the Redis client's breaker says once that Redis is away, not once per request.
        log.debug("scheduler wake-up not published: %s", type(exc).__name__)
