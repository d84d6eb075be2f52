"""One holder at a time across replicas (e.g. the Telegram poller): a lock held as long as its holder lives.

PostgreSQL: a session advisory lock taken on a connection of its own. The server releases it the moment
that connection ends — the process exited or was killed (its socket closes), or its host vanished (the
session's TCP keepalives, tuned from the lease time, give up). The holder checks its connection every
`lease / 3` and stops as soon as it is gone. SQLite (the embedded, single-process default): a file lock
next to the database file, which the operating system releases when the process dies; `:memory:`
databases use a lock in this process.

The lock only elects who works; correctness never depends on it alone (what the holder writes is
idempotent), so a holder that lost its lock and has not noticed yet does no harm beyond a wasted call.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import math
import os
import threading
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

log = logging.getLogger("deputy.lease")
LOCK_CLASS = 74202  # first key of every lease's advisory lock (two-key form: apart from the one-key xact locks)


class Lease(Protocol):
    """A named lock across processes; `lease` (seconds) is how long a vanished holder may keep it."""

    name: str
    lease: float

    def acquire(self) -> bool:
        """Take the lock if it is free (never waits); True if this process holds it now."""
        ...

    def held(self) -> bool:
        """Whether this process still holds it (checks the connection); False after a loss."""
        ...

    def release(self) -> None:
        """Give it up (idempotent)."""
        ...

    def close(self) -> None:
        """Give it up and free what the lease holds open."""
        ...


class AdvisoryLease:
    """A PostgreSQL session advisory lock on a dedicated connection."""

    def __init__(self, url: str, name: str, *, lease: float) -> None:
        self.name, self.lease = name, lease
        idle = max(1, math.ceil(lease / 3))
        interval, count = max(1, math.ceil(lease / 9)), 3
        # Client side: our end notices a dead server or network within about the lease too.
        keepalives = {"keepalives": 1, "keepalives_idle": idle, "keepalives_interval": interval}
        keepalives |= {"keepalives_count": count, "connect_timeout": max(2, idle)}
        self._engine = create_engine(url, poolclass=NullPool, connect_args=keepalives)
        self._settings = {"idle": idle, "interval": interval, "count": count, "user_timeout": int(lease * 1000)}
        self._conn: Any = None
        self._mutex = threading.RLock()  # one connection, used by the holder's loop and its watchdog

    def acquire(self) -> bool:
        """Take the lock if it is free; True if this process holds it now."""
        with self._mutex:
            if self._conn is not None:
                return self.held()
            return self._try_lock()

    def _try_lock(self) -> bool:
        conn = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            # Server side: a holder whose host vanished (no FIN) is dropped, and its lock freed, within ~the lease.
            for setting, value in (
                ("tcp_keepalives_idle", self._settings["idle"]),
                ("tcp_keepalives_interval", self._settings["interval"]),
                ("tcp_keepalives_count", self._settings["count"]),
                ("tcp_user_timeout", self._settings["user_timeout"]),
                ("application_name", f"deputy lease {self.name}"[:63]),
            ):
                try:
                    conn.execute(text("SELECT set_config(:k, :v, false)"), {"k": setting, "v": str(value)})
                except Exception:  # an older server without the setting: the lock works, dead hosts take longer
                    log.debug("lease %s: %s not set", self.name, setting)
            taken = conn.execute(
                text("SELECT pg_try_advisory_lock(:cls, hashtext(:name))"), {"cls": LOCK_CLASS, "name": self.name}
            ).scalar()
        except Exception:
            conn.close()
            raise
        if not taken:
            conn.close()
            return False
        self._conn = conn
        return True

    def held(self) -> bool:
        """True while the lock's connection answers (a session lock lives exactly as long as its session)."""
        with self._mutex:
            if self._conn is None:
                return False
            try:
                self._conn.execute(text("SELECT 1"))
            except Exception as exc:  # the session is gone, and with it the lock
                log.warning("lease %s lost: its database connection failed (%s)", self.name, type(exc).__name__)
                self._drop()
                return False
            return True

    def release(self) -> None:
        """Unlock and close the connection (closing alone would free it too)."""
        with self._mutex:
            if self._conn is None:
                return
            with contextlib.suppress(Exception):
                self._conn.execute(
                    text("SELECT pg_advisory_unlock(:cls, hashtext(:name))"), {"cls": LOCK_CLASS, "name": self.name}
                )
            self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        with contextlib.suppress(Exception):
            conn.invalidate()
        with contextlib.suppress(Exception):
            conn.close()

    def close(self) -> None:
        """Release and dispose of the dedicated engine."""
        self.release()
        self._engine.dispose()


_LOCAL: dict[str, threading.Lock] = {}
_LOCAL_GUARD = threading.Lock()


class FileLease:
    """An exclusive `flock` on `<database>.<name>.lock`; for `:memory:` databases, a lock in this process."""

    def __init__(self, path: Path | None, name: str, *, lease: float) -> None:
        self.name, self.lease, self.path = name, lease, path
        self._fd: int | None = None
        self._local: threading.Lock | None = None

    def acquire(self) -> bool:
        """Take the lock if it is free; True if this process holds it now."""
        if self.held():
            return True
        if self.path is None:
            with _LOCAL_GUARD:
                lock = _LOCAL.setdefault(self.name, threading.Lock())
            if not lock.acquire(blocking=False):
                return False
            self._local = lock
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # per open file: exclusive even within one process
        except BlockingIOError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def held(self) -> bool:
        """True while the lock file is open and locked by this object."""
        return self._fd is not None or self._local is not None

    def release(self) -> None:
        """Unlock (closing the file unlocks it)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
        if self._local is not None:
            lock, self._local = self._local, None
            lock.release()

    def close(self) -> None:
        """Release."""
        self.release()


def for_database(url: str, name: str, *, lease: float) -> AdvisoryLease | FileLease:
    """The lease that fits the database: an advisory lock on PostgreSQL, a file lock next to a SQLite file."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return AdvisoryLease(url, name, lease=lease)
    database = parsed.database
    if not database or database == ":memory:":
        return FileLease(None, name, lease=lease)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return FileLease(Path(database).expanduser().with_name(f"{Path(database).name}.{safe}.lock"), name, lease=lease)
