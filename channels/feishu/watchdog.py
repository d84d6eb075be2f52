"""A watchdog on the long connection: a socket Feishu has stopped answering on is closed, so lark reconnects.

lark-oapi's ws.Client sends a ping frame every `PingInterval` (Feishu's production ClientConfig says 120 s) and
Feishu answers every ping with a pong frame, but the SDK never checks that one came: its receive loop ends only
when the socket itself reports an error. Two layers find a dead connection:
- the websockets library's keepalive (RFC 6455 ping/pong). The SDK passes no ping arguments, so websockets'
  defaults hold: a transport ping every 20 s, the socket failed when no pong comes within 20 s. A peer that
  vanished (a half-open TCP connection) is found in at most ~40 s.
- this watchdog: no frame at all from Feishu for `SILENCE_PINGS` ping intervals (300 s in production). Every ping
  is answered, so that silence means Feishu's application is gone even where the socket still answers transport
  pings (a gateway holding the socket with nothing behind it), and it still holds if a later SDK turns the
  library's keepalive off. It aborts the transport; the SDK's receive loop then ends and the SDK's own reconnect
  runs (its random `ReconnectNonce` delay, then every `ReconnectInterval`), so the backoff stays Feishu's.

The subclass reaches into three private members of lark_oapi.ws.Client (`_connect`, `_handle_message`, `_conn`,
plus `_ping_interval`); tests/integration/test_feishu_reconnect.py runs the real client, so an SDK release that
renames them fails there rather than in production.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from functools import cache
from typing import Any

log = logging.getLogger("deputy.channels.feishu.longconn")

SILENCE_PINGS = 2.5  # a ping is answered within one interval; two and a half leave room for a late pong
MAX_CHECK_PERIOD = 5.0  # how often, at most, the watchdog looks (seconds)


def silent_too_long(*, heard: float, now: float, ping_interval: float) -> bool:
    """True when nothing came from Feishu for longer than SILENCE_PINGS ping intervals."""
    return now - heard > SILENCE_PINGS * max(ping_interval, 1)


def check_period(ping_interval: float) -> float:
    """How long the watchdog sleeps between looks: a tenth of the silence limit, at most MAX_CHECK_PERIOD."""
    return min(SILENCE_PINGS * max(ping_interval, 1) / 10, MAX_CHECK_PERIOD)


@cache
def watched_client_class() -> type:
    """lark_oapi.ws.Client with the time of the last frame kept and a `watch()` task (lark imported on first use)."""
    import lark_oapi as lark

    class WatchedClient(lark.ws.Client):  # type: ignore[misc, name-defined]
        """Records when Feishu was last heard from; `watch()` closes a socket that went silent."""

        def __init__(self, *args: Any, clock: Callable[[], float] = time.monotonic, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.clock = clock
            self.heard = clock()
            self.silences = 0  # sockets the watchdog closed

        async def _connect(self) -> None:
            await super()._connect()
            self.heard = self.clock()

        async def _handle_message(self, msg: bytes) -> None:
            self.heard = self.clock()
            await super()._handle_message(msg)

        async def watch(self) -> None:
            """Run for ever in the client's loop, aborting any socket that stays silent too long."""
            while True:
                await asyncio.sleep(check_period(self._ping_interval))
                conn = self._conn
                if conn is None or not silent_too_long(
                    heard=self.heard, now=self.clock(), ping_interval=self._ping_interval
                ):
                    continue
                self.silences += 1
                log.warning(
                    "feishu long connection silent for %.0fs (ping interval %ss): closing it to reconnect",
                    self.clock() - self.heard,
                    self._ping_interval,
                )
                self.heard = self.clock()  # one abort per silence; the reconnect resets it again
                conn.transport.abort()  # the SDK's recv() raises at once and its reconnect begins

    return WatchedClient
