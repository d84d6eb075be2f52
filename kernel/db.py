"""Engines and units of work for SQLite (embedded default) and PostgreSQL (scale-out)."""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, create_engine, event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.types import TypeDecorator
from sqlmodel import Session


def dumps(value: Any) -> str:
    """JSON as stored: UTF-8 text, so `q=提测` finds Chinese by substring."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


class UTCDateTime(TypeDecorator):
    """A timestamp stored as UTC and always returned timezone-aware."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored: attach a timezone")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# TCP keepalives let the kernel notice a vanished server or a dropped NAT entry on an idle pooled connection.
PG_KEEPALIVE = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}


WAL_SWITCH_WAIT = 30.0  # seconds a connection waits for another process to finish opening a new database


def _wal(cur: Any) -> None:
    """Put the database in WAL mode (kept in the file: usually it is already).

    Switching a new file needs a lock SQLite does not wait for (its busy handler is not asked): two processes opening
    a new database at once (the web process and the processor, each making the inbound queue's file) were refused
    with "database is locked". Tried again until the other is done.
    """
    deadline = time.monotonic() + WAL_SWITCH_WAIT
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)


def _sqlite_engine(url: str, *, begin: str) -> Engine:
    engine = create_engine(url, json_serializer=dumps, connect_args={"timeout": 60, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite's own is deferred and late).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        _wal(cur)
        cur.execute("PRAGMA busy_timeout=60000")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        conn.exec_driver_sql(begin)

    return engine


class _SqliteWriters:
    """One writer at a time across this process's threads (a lock) and across processes (`flock` on a file beside
    the database), taken before BEGIN IMMEDIATE. A waiting writer is woken by the kernel the moment the lock is
    released, instead of polling in SQLite's busy handler, which sleeps up to 100 ms between tries. Reentrant."""

    def __init__(self, path: Path | None) -> None:
        self._threads = threading.RLock()
        self._path = path
        self._depth = 0
        self._fd: int | None = None
        self._pid = 0

    def _file(self) -> int:
        if self._fd is None or self._pid != os.getpid():  # a forked child opens its own (flock is per open file)
            self._fd, self._pid = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600), os.getpid()
        return self._fd

    def __enter__(self) -> None:
        self._threads.acquire()
        if self._depth == 0 and self._path is not None:
            try:
                fcntl.flock(self._file(), fcntl.LOCK_EX)
            except BaseException:
                self._threads.release()
                raise
        self._depth += 1

    def __exit__(self, *_: Any) -> None:
        self._depth -= 1
        try:
            if self._depth == 0 and self._path is not None:
                fcntl.flock(self._file(), fcntl.LOCK_UN)
        finally:
            self._threads.release()

    def close(self) -> None:
        """Close the lock file (a writer that comes later opens it again)."""
        if self._fd is not None and self._pid == os.getpid():
            os.close(self._fd)
        self._fd = None


class WriteHealth:
    """Whether writes currently fail: the last write the database refused came after the last one it took.

    /readyz reads it (a replica whose writes fail is taken out of rotation although SELECT 1 still answers, as on a
    full disk); the next write that succeeds, any unit of work's, puts it back. `RECOVER_AFTER` seconds after the
    last refusal it is believed healthy again even if nothing was written, so an idle replica comes back.
    """

    RECOVER_AFTER = 30.0

    def __init__(self) -> None:
        self._failed_at: float | None = None

    def failed(self) -> None:
        """A write was refused (connection lost, disk or database full)."""
        self._failed_at = time.monotonic()

    def succeeded(self) -> None:
        """A write committed."""
        self._failed_at = None

    def failing(self) -> bool:
        """True while the last write was refused, less than RECOVER_AFTER seconds ago."""
        failed_at = self._failed_at
        return failed_at is not None and time.monotonic() - failed_at < self.RECOVER_AFTER


class Database:
    """The service's database: a writer and a reader engine over one URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        lock: Path | None = None
        if self.dialect == "sqlite":
            if parsed.database and parsed.database != ":memory:":
                Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
                lock = Path(f"{Path(parsed.database).expanduser()}-writer.lock")
            # One writer at a time: BEGIN IMMEDIATE takes the write lock at the start, so a
            # check-then-write transaction can never be interleaved by another process.
            self.engine = _sqlite_engine(url, begin="BEGIN IMMEDIATE")
            self.read_engine = _sqlite_engine(url, begin="BEGIN")
        else:
            # No pre-ping (a round trip per checkout): connections are recycled before servers or proxies drop
            # them, and a connection found dead invalidates the pool, so the next checkout gets a fresh one.
            self.engine = create_engine(
                url, json_serializer=dumps, pool_size=10, pool_recycle=1800, connect_args=PG_KEEPALIVE
            )
            # Reads run in autocommit: one round trip per statement, no BEGIN and COMMIT around it. Under READ
            # COMMITTED (the default, which the service keeps) each statement sees its own snapshot either way.
            self.read_engine = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        # SQLite's busy handler sleeps up to 100 ms between retries; writers of every process (the web process,
        # the processor, a CLI command) queue here instead, so a short write follows the one ahead of it at once.
        self._writers = _SqliteWriters(lock) if self.is_sqlite else None
        self.writes = WriteHealth()
        # The inbound queue (perception.inbound_queue): on a SQLite file a database of its own beside this one,
        # with its own write lock, so a webhook's append never waits for the processor's transactions (one
        # SQLite file has one writer at a time); on PostgreSQL (and in memory) these same tables. `queue_apart`
        # says which.
        self.queue_engine, self.queue_read_engine, self._queue_writers = self.engine, self.read_engine, self._writers
        self.queue_apart = lock is not None
        if self.queue_apart:
            queue = Path(f"{Path(parsed.database).expanduser()}-inbound.sqlite")
            self.queue_engine = _sqlite_engine(f"sqlite:///{queue}", begin="BEGIN IMMEDIATE")
            self.queue_read_engine = _sqlite_engine(f"sqlite:///{queue}", begin="BEGIN")
            self._queue_writers = _SqliteWriters(Path(f"{queue}-writer.lock"))

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold this database's writer lock across several transactions (SQLite; nothing on PostgreSQL)."""
        if self._writers is None:
            yield
            return
        with self._writers:
            yield

    @contextmanager
    def queue_write(self) -> Iterator[Session]:
        """One read-write transaction on the inbound queue's database."""
        if not self.queue_apart:
            with self.write() as session:
                yield session
            return
        try:
            with self._queue_writers, Session(self.queue_engine, expire_on_commit=False) as session, session.begin():
                yield session
        except OperationalError:
            self.writes.failed()
            raise

    @contextmanager
    def queue_read(self) -> Iterator[Session]:
        """One read-only transaction on the inbound queue's database."""
        with Session(self.queue_read_engine, expire_on_commit=False) as session, session.begin():
            yield session

    @property
    def engines(self) -> tuple[Engine, ...]:
        """Each engine with a pool of its own, once (PostgreSQL's reader is the writer's pool in autocommit, and
        the writer's events cover it): what a listener for every statement listens on."""
        by_pool: dict[int, Engine] = {}
        for engine in (self.engine, self.read_engine, self.queue_engine, self.queue_read_engine):
            by_pool.setdefault(id(engine.pool), engine)
        return tuple(by_pool.values())

    @property
    def is_sqlite(self) -> bool:
        """True for the embedded SQLite backend."""
        return self.dialect == "sqlite"

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One read-write transaction (a unit of work): commit on success, roll back on error."""
        try:
            if self._writers is None:
                with Session(self.engine, expire_on_commit=False) as session, session.begin():
                    yield session
            else:
                with self._writers, Session(self.engine, expire_on_commit=False) as session, session.begin():
                    yield session
        except OperationalError:  # unreachable, disk full, read-only: the database refused the write itself
            self.writes.failed()
            raise
        self.writes.succeeded()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """One read-only transaction."""
        with Session(self.read_engine, expire_on_commit=False) as session, session.begin():
            yield session

    def ping(self) -> bool:
        """True when the database answers a trivial query."""
        with self.read_engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return True

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
        if self.read_engine is not self.engine:
            self.read_engine.dispose()
        if self._writers is not None:
            self._writers.close()
        if self.queue_apart:
            self.queue_engine.dispose()
            self.queue_read_engine.dispose()
            self._queue_writers.close()  # type: ignore[union-attr]
