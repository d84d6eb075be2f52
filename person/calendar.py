"""People's busy time from a platform's calendar: read outside every transaction, kept a few minutes per process.

The reachability model runs inside transactions (the gate before a loop's contact holds the loop's row), where
nothing may wait on the network. There it asks `Calendar.seen`, which answers from this process's copy of the
person's busy blocks or raises `CalendarNeeded`; the caller lets the transaction roll back, reads that calendar
outside any transaction (`read_needed`) and runs its work again (`with_calendar`, or the pipeline's own loops).
A read that fails is kept, as failed, as long as a good one, and logged once: the person counts as free and the
answer says why (`calendar_unavailable`). A timeout or a rate limit pauses every read for a while, so an outage
costs one slow request, not one per person.

Per process, not in Redis: the model reads the copy inside a transaction, where a memory lookup costs nothing and
a Redis call would be network I/O under the loop's lock; and one read per person per `FRESH` per replica stays far
below Feishu's 1,000 requests a minute for any team Deputy serves.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol, TypeVar

from kernel.context import AppContext
from kernel.redaction import error_text
from person.reachability.models import Busy

log = logging.getLogger("deputy.person.calendar")
T = TypeVar("T")

FRESH = timedelta(minutes=5)  # a person's calendar is read at most once per this (per process)
# How far one read looks ahead. The gate only acts on busy time it meets before any hard hold (a meeting now and
# up to MAX_BUSY_WAIT after); later blocks are looked at again when the loop next comes due.
HORIZON = timedelta(hours=24)
PAUSE = timedelta(minutes=1)  # after a timeout or a rate limit without a reset time, nobody's calendar is read
MAX_READS = 32  # reads for one piece of work before the rest of its misses count as unreadable


class BusySource(Protocol):
    """One platform's free/busy, one user per request: their busy blocks over [start, end), or CalendarFailed."""

    channel: str

    def busy(self, *, external_id: str, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]: ...


class CalendarFailed(Exception):
    """The platform could not say; `everyone` when no other person's calendar would answer now either."""

    def __init__(self, why: str, *, everyone: bool = False, retry_after: float | None = None) -> None:
        super().__init__(why)
        self.why, self.everyone, self.retry_after = why, everyone, retry_after


class CalendarNeeded(Exception):
    """A person's calendar is not in this process's copy: read it outside the transaction, then try again."""

    def __init__(self, *, channel: str, external_id: str) -> None:
        super().__init__(f"calendar of {channel}:{external_id} not read yet")
        self.channel, self.external_id = channel, external_id


@dataclass(frozen=True)
class BusyRead:
    """What one read of a person's calendar said: busy blocks (UTC, by start) from `read_at`, or why it failed."""

    state: Literal["ok", "failed"]
    read_at: datetime
    busy: tuple[Busy, ...] = ()
    why: str | None = None


class Calendar:
    """This process's copy of busy time, per (channel, external id), over the platforms' BusySources."""

    def __init__(self, sources: Iterable[BusySource]) -> None:
        self._sources = {source.channel: source for source in sources}
        self._reads: dict[tuple[str, str], BusyRead] = {}
        self._paused: tuple[datetime, BusyRead] | None = None  # until when, and the failure that stands for all
        self._lock = threading.Lock()
        self._local = threading.local()

    @property
    def channels(self) -> tuple[str, ...]:
        """The platforms whose calendars are read."""
        return tuple(self._sources)

    def seen(self, bindings: Iterable[tuple[str, str]], *, now: datetime) -> BusyRead | None:
        """From memory: the busy time of the person with these (channel, external id) bindings.

        None when none of them is on a platform whose calendar is read; CalendarNeeded when it is not read yet.
        """
        key = next(((channel, ext) for channel, ext in bindings if channel in self._sources), None)
        if key is None:
            return None
        with self._lock:
            if self._paused is not None and now < self._paused[0]:
                return self._paused[1]
            read = self._reads.get(key)
        if read is not None and now - read.read_at < FRESH:
            return read
        if getattr(self._local, "lenient", False):
            return BusyRead("failed", now, why="not read in time")
        raise CalendarNeeded(channel=key[0], external_id=key[1])

    def read(self, need: CalendarNeeded, *, now: datetime) -> BusyRead:
        """Read one person's calendar from `now` to HORIZON and keep it; call it outside transactions. Never raises."""
        key = (need.channel, need.external_id)
        with self._lock:
            if self._paused is not None and now < self._paused[0]:
                return self._paused[1]
        try:
            blocks = self._sources[need.channel].busy(external_id=need.external_id, start=now, end=now + HORIZON)
            busy = sorted((Busy(a.astimezone(UTC), b.astimezone(UTC)) for a, b in blocks if b > a), key=_start)
            read = BusyRead("ok", now, busy=tuple(busy))
        except CalendarFailed as exc:
            read = self._failed(key, exc.why, now=now, pause=_pause(exc))
        except Exception as exc:  # a broken calendar must never stop a send: it counts as unreadable
            log.exception("calendar of %s:%s could not be read", *key)
            read = self._failed(key, f"{type(exc).__name__}: {error_text(exc)}", now=now, pause=None)
        with self._lock:  # keep only what is still fresh: the copy never outgrows the people contacted lately
            self._reads = {k: v for k, v in self._reads.items() if now - v.read_at < FRESH}
            self._reads[key] = read
        return read

    def _failed(self, key: tuple[str, str], why: str, *, now: datetime, pause: timedelta | None) -> BusyRead:
        read = BusyRead("failed", now, why=why)
        if pause is None:
            log.warning("calendar of %s:%s unreadable, treated as free for %s: %s", *key, FRESH, why)
            return read
        with self._lock:
            self._paused = (now + pause, read)
        log.warning("calendars unreadable, every person treated as free for %s: %s", pause, why)
        return read

    @contextmanager
    def lenient(self) -> Iterator[None]:
        """Inside this block a person not read yet counts as unreadable instead of raising CalendarNeeded."""
        before = getattr(self._local, "lenient", False)
        self._local.lenient = True
        try:
            yield
        finally:
            self._local.lenient = before


def _start(block: Busy) -> datetime:
    return block.start


def _pause(exc: CalendarFailed) -> timedelta | None:
    """How long nobody's calendar is read after this failure: none for one person's, else the platform's reset."""
    if not exc.everyone:
        return None
    if exc.retry_after is not None and exc.retry_after > 0:
        return min(timedelta(seconds=exc.retry_after), FRESH)
    return PAUSE


def read_needed(ctx: AppContext, need: CalendarNeeded) -> None:
    """Read the calendar `need` names (outside any transaction), so the work that needed it can run again."""
    ctx.calendar.read(need, now=ctx.clock.now())


def with_calendar(ctx: AppContext, work: Callable[[], T]) -> T:
    """Run `work` (it opens its own transactions); each time it needs a calendar not read yet, read it and rerun."""
    for _ in range(MAX_READS):
        try:
            return work()
        except CalendarNeeded as need:
            read_needed(ctx, need)
    with ctx.calendar.lenient():
        return work()
