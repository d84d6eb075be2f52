"""Start-up against a database that may not answer yet (a container starting beside it): retry with backoff."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from kernel.db import Database

log = logging.getLogger("deputy.startup")
FIRST_DELAY = 0.5
MAX_DELAY = 10.0
CONNECT_TIMEOUT = 5  # seconds: a host that drops packets must not hold one attempt forever


class DatabaseUnavailable(RuntimeError):
    """The database did not answer within the start-up timeout."""


def _reason(exc: Exception) -> str:
    """The driver's first line (psycopg's says which host refused), without the SQLAlchemy boilerplate."""
    origin = getattr(exc, "orig", None) or exc
    return f"{type(origin).__name__}: {str(origin).strip().splitlines()[0] if str(origin).strip() else ''}"


def ping(url: str) -> None:
    """Connect once and run `SELECT 1` (SQLite: create the file's folder, as the service would)."""
    if make_url(url).get_backend_name() == "sqlite":
        db = Database(url)
        try:
            db.ping()
        finally:
            db.dispose()
        return
    engine = create_engine(url, poolclass=NullPool, connect_args={"connect_timeout": CONNECT_TIMEOUT})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    finally:
        engine.dispose()


def wait_for_database(
    url: str,
    *,
    timeout: timedelta,
    sleep: Callable[[float], None] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> int:
    """Return once the database answers (the number of attempts it took); retry with doubling waits up to
    MAX_DELAY, and raise DatabaseUnavailable when `timeout` has passed."""
    deadline = monotonic() + timeout.total_seconds()
    delay, attempt = FIRST_DELAY, 0
    while True:
        attempt += 1
        try:
            ping(url)
            if attempt > 1:
                log.info("database answers after %d attempts", attempt)
            return attempt
        except Exception as exc:  # any driver error while it starts: refused, DNS not there yet, still recovering
            reason = _reason(exc)
            if monotonic() + delay > deadline:
                raise DatabaseUnavailable(
                    f"the database did not answer within {timeout.total_seconds():g}s ({attempt} attempts): {reason}"
                ) from exc
            log.warning("database does not answer yet (attempt %d, %s); retrying in %.1fs", attempt, reason, delay)
        sleep(delay)
        delay = min(delay * 2, MAX_DELAY)
