"""The ack's writer: webhook events from every request of this process appended in group-committed batches.

A request hands its event over and awaits the commit on its own event loop; no thread of the server's pool is taken.
The writer thread takes everything queued so far (at most MAX_BATCH), appends it with one statement, and answers
every waiter at once (one hand-over per event loop): a burst pays one commit per batch, not per request. On SQLite
that statement runs in a transaction on the queue's own database, after its writer lock (`kernel.db`,
`perception.inbound_queue`). On PostgreSQL it runs alone on a connection the writer keeps in autocommit, so the
statement is its transaction: one round trip instead of three (BEGIN, the statement, COMMIT; measured in
docs/PERFORMANCE.md), durable when it returns, and it NOTIFYs every replica's processor (`kernel.wakeups`). A lost
connection is replaced and the batch tried once more (a repeat writes nothing). `committed` wakes this host's
processor. A key repeated inside one batch is appended once and answered as a repeat to all but the first. One
thread: a second one on PostgreSQL, committing while the first writes, measured no faster. A failed batch fails every
waiter with the database's error (the ack answers 503 and the platform retries): nobody is answered before their
event is durable."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, OperationalError

from kernel.db import Database
from perception import inbound_queue
from perception.inbound_queue import Arrived

log = logging.getLogger("deputy.perception")

MAX_BATCH = 256
RECYCLE_AFTER = 1800.0  # seconds a kept connection serves (PostgreSQL), as `kernel.db`'s pool_recycle


@dataclass
class _Waiter:
    event: Arrived
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future


def _answer(answers: list[tuple[_Waiter, bool, BaseException | None]]) -> None:
    """Settle each waiter on its own loop: one hand-over per loop for the whole batch, not one per request (each
    wakes the loop with a system call)."""
    by_loop: dict[asyncio.AbstractEventLoop, list] = {}
    for waiter, new, error in answers:
        by_loop.setdefault(waiter.loop, []).append((waiter.future, new, error))
    for loop, settled in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_settle, settled)


def _settle(settled: list[tuple[asyncio.Future, bool, BaseException | None]]) -> None:
    for future, new, error in settled:
        if future.done():  # its client hung up
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(new)


class AckWriter:
    """Appends events for the whole process on one thread; `committed` (settable: the web app wires the wake-up)
    runs there after each batch that appended a new event."""

    def __init__(self, db: Database, *, committed: Callable[[], None] | None = None) -> None:
        self._db, self.committed = db, committed
        self._cond = threading.Condition()
        self._queue: list[_Waiter] = []
        self._thread: threading.Thread | None = None
        self._closed = False
        self.batches = 0  # committed transactions, for tests and the benchmark
        self._connection: Connection | None = None  # PostgreSQL: the writer thread's own, in autocommit
        self._connected_at = 0.0
        self.recycle_after = RECYCLE_AFTER

    async def append(self, event: Arrived) -> bool:
        """Return once `event` is durable: True when it was new, False for a repeat; raises the database's error."""
        loop = asyncio.get_running_loop()
        waiter = _Waiter(event, loop, loop.create_future())
        with self._cond:
            if self._closed:
                raise RuntimeError("the ack writer is closed")
            self._queue.append(waiter)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="deputy-ack-writer", daemon=True)
                self._thread.start()
            self._cond.notify()
        return await waiter.future

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then stop the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join(timeout)
        if thread is None or not thread.is_alive():
            self._forget_connection()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                batch, self._queue = self._queue[:MAX_BATCH], self._queue[MAX_BATCH:]
            self._write(batch)

    def _write(self, batch: list[_Waiter]) -> None:
        first: dict[tuple[str, str], _Waiter] = {}
        for waiter in batch:
            first.setdefault(waiter.event.key, waiter)
        try:
            new = self._append([w.event for w in first.values()])
        except Exception as exc:  # every waiter gets the error; this thread goes on
            _answer([(waiter, False, exc) for waiter in batch])
            return
        with self._cond:
            self.batches += 1
        _answer([(w, first[w.event.key] is w and w.event.key in new, None) for w in batch])
        if new and self.committed is not None:
            try:
                self.committed()
            except Exception:  # a wake-up that fails must not stop the writer: the interval still runs the pass
                log.exception("waking the processor after an ack failed")

    def _append(self, events: list[Arrived]) -> set[tuple[str, str]]:
        if self._db.is_sqlite:
            with inbound_queue.writing(self._db) as session:
                return inbound_queue.append(self._db, session, events=events)
        try:
            try:
                new = inbound_queue.append_autocommitted(self._connected(), events=events)
            except DBAPIError as exc:
                if not exc.connection_invalidated:
                    raise
                # The kept connection was lost (a database restart, an idle timeout): once more on a fresh one.
                # Safe even if the lost statement committed: a repeat writes nothing (then answered as a repeat).
                self._forget_connection()
                new = inbound_queue.append_autocommitted(self._connected(), events=events)
        except Exception as exc:
            self._forget_connection()  # the next batch starts on a fresh one (this one may be broken)
            if isinstance(exc, OperationalError):  # the database refused the write itself: /readyz says so
                self._db.writes.failed()
            raise
        self._db.writes.succeeded()
        return new

    def _connected(self) -> Connection:
        if self._connection is not None and time.monotonic() - self._connected_at >= self.recycle_after:
            self._forget_connection()  # as the pool recycles its own: before a server or proxy drops it
        if self._connection is None:
            self._connection = self._db.queue_engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            self._connected_at = time.monotonic()
        return self._connection

    def _forget_connection(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.invalidate()
                self._connection.close()
            self._connection = None


def writer(ctx: Any) -> AckWriter:
    """This process's writer over `ctx`'s database, created on first use."""
    found = ctx.shared.get("perception.ack_writer")
    if found is None:
        found = ctx.shared.setdefault("perception.ack_writer", AckWriter(ctx.db))
    return found
