"""Cross-replica processor wake-ups over PostgreSQL's LISTEN/NOTIFY (an optimisation: the database stays the truth).

Whatever records work for a processor wakes every replica's: a NOTIFY on `WAKE_CHANNEL`, which PostgreSQL delivers
when the transaction that sent it commits (so nobody is woken for work that was rolled back), to every processor
that LISTENs on a connection of its own. The webhook's writer sends it inside its batch's transaction: no round trip
of its own, and no Redis client in the web process for it. On SQLite there is one processor, on this host, woken
over its local socket (`app.processes`); there is nothing further to reach. A lost wake-up only delays work until
the processor's interval.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import text

from kernel.db import PG_KEEPALIVE

log = logging.getLogger("deputy.wakeups")
WAKE_CHANNEL = "deputy_wake"
_NOTIFY = text(f"NOTIFY {WAKE_CHANNEL}")
RETRY_AFTER = 5.0  # seconds between attempts to listen again after the connection was lost


def notify(session: Any) -> None:
    """Wake every replica's processor once the caller's PostgreSQL transaction commits."""
    session.execute(_NOTIFY)


def wake(ctx: Any) -> None:
    """Wake every replica's processor now (a statement of its own); nothing on SQLite."""
    if ctx.db.is_sqlite:
        return
    try:
        with ctx.db.engine.connect() as conn:
            notify(conn)
            conn.commit()
    except Exception as exc:  # a lost wake-up only delays work until the next interval
        # Debug only: a database that is away is reported by the requests that need it, not once per wake-up.
        log.debug("processor wake-up not sent: %s", type(exc).__name__)


def conninfo(db: Any) -> str:
    """libpq's form of the database's URL, for a connection outside the pool."""
    return db.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """LISTENs on a connection of its own in a daemon thread and calls `on_wake` for each notification.

    A lost connection is reported once, then tried again every RETRY_AFTER seconds until it is back.
    """

    def __init__(self, db: Any, on_wake: Callable[[], None]) -> None:
        self._conninfo, self.on_wake = conninfo(db), on_wake
        self._stop = threading.Event()
        self.listening = threading.Event()  # set while subscribed (tests wait for it)
        self._thread = threading.Thread(target=self._run, name="deputy-processor-wake", daemon=True)

    def start(self) -> Listener:
        """Listen in the background."""
        self._thread.start()
        return self

    def stop(self, timeout: float = 10) -> None:
        """Stop listening (within a second)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        import psycopg

        failing = False
        while not self._stop.is_set():
            try:
                # Keepalives, as the pool's connections have: a peer gone silently is noticed, and listened for again.
                with psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5, **PG_KEEPALIVE) as conn:
                    conn.execute(f"LISTEN {WAKE_CHANNEL}")
                    self.listening.set()
                    if failing:
                        failing = False
                        log.info("processor wake-up listener listening again")
                    while not self._stop.is_set():
                        for _ in conn.notifies(timeout=1.0, stop_after=1):
                            self.on_wake()
            except Exception as exc:  # the database away: passes still come from the interval
                self.listening.clear()
                if not failing:  # once per outage, not every retry
                    log.warning("processor wake-up listener: %s; retrying every %gs", type(exc).__name__, RETRY_AFTER)
                failing = True
                self._stop.wait(RETRY_AFTER)
