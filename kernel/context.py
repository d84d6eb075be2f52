"""The running service's shared parts and the unit of work every use case runs in."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from sqlalchemy import event
from sqlmodel import Session

from kernel.clock import Clock, SystemClock
from kernel.db import Database


class Senders(Protocol):
    """The outbound channels by name (the composition root fills it from the channel plugins)."""

    def get(self, name: str) -> Any: ...

    def names(self) -> list[str]: ...

    def close(self) -> None: ...


@dataclass
class UnitOfWork:
    """One transaction plus the one instant and actor the use case runs under."""

    session: Session
    now: datetime
    tz: ZoneInfo
    actor: str
    settings: Any  # the service's Settings (app.settings), read by attribute
    # The process's copy of people's busy time (person.calendar.Calendar), None without a calendar: read here
    # from memory only, never over the network (a miss raises CalendarNeeded for the caller to read outside).
    calendar: Any = None

    @property
    def postgres(self) -> bool:
        """True on PostgreSQL (row locks, SKIP LOCKED, advisory locks); SQLite has one writer at a time instead."""
        return self.session.get_bind().dialect.name == "postgresql"

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run `callback` once this transaction has committed, never if it rolls back (metrics of what happened)."""
        callbacks = self.session.info.setdefault("after_commit", [])
        if not callbacks:
            event.listen(self.session, "after_commit", _run_after_commit)
        callbacks.append(callback)


def _run_after_commit(session: Session) -> None:
    if session.in_nested_transaction():  # a savepoint's release fires the event too: wait for the outer commit
        return
    callbacks, session.info["after_commit"] = session.info.get("after_commit", []), []
    for callback in callbacks:
        callback()


@dataclass
class AppContext:
    """Settings, database, clock, optional Redis and the channels: built once per process by the composition root."""

    settings: Any
    db: Database
    channels: Senders
    clock: Clock = field(default_factory=SystemClock)
    redis: Any = None
    # Called (with this context) after a signal fact is durable: the composition root's processor subscribes here.
    signal_listeners: list[Callable[[AppContext], None]] = field(default_factory=list)
    classifier: Any = None  # the optional LLM (cognitive_core.llm), off unless DEPUTY_LLM_BASE_URL is set
    calendar: Any = None  # busy time (person.calendar.Calendar), off unless a platform's calendar is switched on
    # Per-process state the layers keep over this context's database, by name (person.cache's copy of the
    # people, perception's group commit): created on first use, gone with the context.
    shared: dict[str, Any] = field(default_factory=dict)
    # Set when the process begins a graceful stop: loops finish the send in flight and claim nothing new, so
    # every queued entry is handed back (still queued) and no action is left pending to be found interrupted.
    stopping: threading.Event = field(default_factory=threading.Event)

    @contextmanager
    def uow(self, *, actor: str = "system") -> Iterator[UnitOfWork]:
        """A write transaction: commits when the block ends, rolls back on error."""
        with self.db.write() as session:
            yield UnitOfWork(
                session=session,
                now=self.clock.now(),
                tz=self.settings.tz,
                actor=actor,
                settings=self.settings,
                calendar=self.calendar,
            )

    @contextmanager
    def reader(self) -> Iterator[UnitOfWork]:
        """A read-only transaction with the same shape as a unit of work."""
        with self.db.read() as session:
            yield UnitOfWork(
                session=session,
                now=self.clock.now(),
                tz=self.settings.tz,
                actor="reader",
                settings=self.settings,
                calendar=self.calendar,
            )

    def signal_recorded(self) -> None:
        """Tell subscribers that new signal facts wait in the inbox."""
        for listener in list(self.signal_listeners):
            listener(self)

    def close(self) -> None:
        """Release connections."""
        self.channels.close()
        if self.classifier is not None:
            self.classifier.close()
        for name, kept in list(self.shared.items()):  # a layer's threads kept here (the outbox's send lanes)
            if isinstance(kept, Executor):
                del self.shared[name]  # a use after this makes new ones rather than failing on a shut pool
                kept.shutdown(wait=False)
        self.db.dispose()
        if self.redis is not None:
            self.redis.close()
