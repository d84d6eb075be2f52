"""The ack's writer: webhook events from every request of this process appended in group-committed batches.

A request hands its event over and awaits the commit on its own event loop; no thread of the server's pool is taken.
The writer thread takes everything queued so far (at most MAX_BATCH), appends it with one statement in one
transaction (on SQLite in the queue's own database, after its writer lock: `kernel.db`, `perception.inbound_queue`),
and answers every waiter at once: a burst pays one commit per batch, not per request. On PostgreSQL the batch's
statement also NOTIFYs every replica's processor (`kernel.wakeups`); `committed` wakes this host's. A key repeated
inside one batch is appended once and answered as a repeat to all but the first. One thread: a second one on PostgreSQL,
committing while the first writes, measured no faster (the commit's wait for the disk bounds both;
docs/PERFORMANCE.md). A failed batch fails every waiter with the database's error (the ack answers 503 and the
platform retries): nobody is answered before their event is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kernel.db import Database
from perception import inbound_queue
from perception.inbound_queue import Arrived

log = logging.getLogger("deputy.perception")

MAX_BATCH = 256


@dataclass
class _Waiter:
    event: Arrived
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future

    def settle(self, *, new: bool = False, error: BaseException | None = None) -> None:
        """Answer the waiting request on its own loop (nothing when it has gone: its client hung up)."""
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
            self.loop.call_soon_threadsafe(_settle, self.future, new, error)


def _settle(future: asyncio.Future, new: bool, error: BaseException | None) -> None:
    if future.done():
        return
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
            with inbound_queue.writing(self._db) as session:
                new = inbound_queue.append(self._db, session, events=[w.event for w in first.values()])
        except Exception as exc:  # every waiter gets the error; this thread goes on
            for waiter in batch:
                waiter.settle(error=exc)
            return
        with self._cond:
            self.batches += 1
        for waiter in batch:
            waiter.settle(new=first[waiter.event.key] is waiter and waiter.event.key in new)
        if new and self.committed is not None:
            try:
                self.committed()
            except Exception:  # a wake-up that fails must not stop the writer: the interval still runs the pass
                log.exception("waking the processor after an ack failed")


def writer(ctx: Any) -> AckWriter:
    """This process's writer over `ctx`'s database, created on first use."""
    found = ctx.shared.get("perception.ack_writer")
    if found is None:
        found = ctx.shared.setdefault("perception.ack_writer", AckWriter(ctx.db))
    return found
