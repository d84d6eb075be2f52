"""The inbound queue (`inbound_events`): webhooks append platform events as they arrived; the processor takes them.

The ack appends and answers; nothing else happens before the answer. The processor reads pending events in arrival
order, records their facts, marks them done and deletes them `KEEP_DONE` later: an event is the signal's durable
record until its fact exists, then the fact log is.

Where it lives (`kernel.db.Database.queue_*`): on PostgreSQL, tables of the service's database, so an event's facts
and its `done_at` commit together, and one processor at a time records (a transaction-scoped advisory lock,
waited for). On SQLite, a database file of its own beside the service's, so that a webhook's append never waits
for the processor's transactions on the service's one write lock; there the facts commit first and `done_at`
after, under the service's writer lock held across both (one ingester at a time). A crash between the two leaves
the event pending, and recording it again writes nothing: every fact an event leads to has its dedup key.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import DateTime, Integer, LargeBinary, String, bindparam, delete, func, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from kernel.context import AppContext, UnitOfWork
from kernel.db import Database
from kernel.wakeups import WAKE_CHANNEL
from perception.models import InboundEvent

# Long enough for a platform's retry of an event it thinks unanswered to find its row (Feishu retries for about
# an hour, Telegram at once); a later repeat is still one fact, since the fact log's dedup key is the truth.
KEEP_DONE = timedelta(hours=1)
_TABLE = InboundEvent.__table__
_APPEND = (
    sqlite.insert(_TABLE)
    .on_conflict_do_nothing(index_elements=["channel", "event_id"])
    .returning(_TABLE.c.channel, _TABLE.c.event_id)
)
# PostgreSQL: the batch as arrays in one prepared statement that also wakes every replica's processor when an event
# was new (a pg_notify per new row; PostgreSQL delivers one per transaction, at its commit): one round trip.
_APPEND_AND_WAKE = text(
    "WITH appended AS (INSERT INTO inbound_events (channel, event_id, kind, body, received_at)"
    " SELECT * FROM unnest(:channels, :event_ids, :kinds, :bodies, :received)"
    " ON CONFLICT (channel, event_id) DO NOTHING RETURNING channel, event_id)"
    " SELECT channel, event_id, pg_notify(:wake, '')::text FROM appended"
).bindparams(
    bindparam("channels", type_=postgresql.ARRAY(String)),
    bindparam("event_ids", type_=postgresql.ARRAY(String)),
    bindparam("kinds", type_=postgresql.ARRAY(String)),
    bindparam("bodies", type_=postgresql.ARRAY(LargeBinary)),
    bindparam("received", type_=postgresql.ARRAY(DateTime(timezone=True))),
)
_INGEST_LOCK = text("SELECT pg_advisory_xact_lock(7251047395520651)")  # one ingester at a time, any replica
_READY: weakref.WeakSet[Engine] = weakref.WeakSet()


@dataclass(frozen=True)
class Arrived:
    """One authenticated webhook event to append: its key, what to keep of it, and when it arrived."""

    channel: str
    event_id: str
    kind: str  # event | press
    body: bytes
    received_at: datetime

    @property
    def key(self) -> tuple[str, str]:
        """The queue's unique key."""
        return self.channel, self.event_id


def _ready(db: Database) -> None:
    """A queue of its own (SQLite) creates its one table on first use (the service's migrations are not its)."""
    if db.queue_apart and db.queue_engine not in _READY:
        _TABLE.create(db.queue_engine, checkfirst=True)
        _READY.add(db.queue_engine)


def append(db: Database, session: Session, *, events: list[Arrived]) -> set[tuple[str, str]]:
    """Append events in a `db.queue_write()` transaction (one statement for the lot); the keys that were new.

    `events` must hold each key once: the caller answers a repeat inside one batch as a repeat. On PostgreSQL a
    new event also wakes every replica's processor when the transaction commits (`kernel.wakeups`).
    """
    if not events:
        return set()
    if session.get_bind().dialect.name == "postgresql":
        result = session.execute(_APPEND_AND_WAKE, {**_arrays(events), "wake": WAKE_CHANNEL})
        return {(channel, event_id) for channel, event_id, _ in result}
    rows = [
        {"channel": e.channel, "event_id": e.event_id, "kind": e.kind, "body": e.body, "received_at": e.received_at}
        for e in events
    ]
    result = session.execute(_APPEND, rows)
    return {(channel, event_id) for channel, event_id in result}


def append_autocommitted(connection: Connection, *, events: list[Arrived]) -> set[tuple[str, str]]:
    """PostgreSQL: append events with the one statement on an autocommit `connection`, which is the transaction
    (one round trip, no BEGIN and COMMIT of their own; durable and notified when it returns); the keys that were
    new. `events` as for `append`."""
    if not events:
        return set()
    result = connection.execute(_APPEND_AND_WAKE, {**_arrays(events), "wake": WAKE_CHANNEL})
    return {(channel, event_id) for channel, event_id, _ in result}


def _arrays(events: list[Arrived]) -> dict[str, list]:
    return {
        "channels": [e.channel for e in events],
        "event_ids": [e.event_id for e in events],
        "kinds": [e.kind for e in events],
        "bodies": [e.body for e in events],
        "received": [e.received_at for e in events],
    }


def writing(db: Database):
    """A write transaction on the queue, its table there (the ack's writer and the tests append through it)."""
    _ready(db)
    return db.queue_write()


_PENDING = select(InboundEvent).where(InboundEvent.done_at.is_(None)).order_by(InboundEvent.pk)
_PENDING = _PENDING.limit(bindparam("limit", type_=Integer))
_STILL_PENDING_OF = (_TABLE.c.pk.in_(bindparam("pks", expanding=True)), _TABLE.c.done_at.is_(None))
_TAKE = (  # built once: a statement made per call costs its construction and its cache key
    update(_TABLE)
    .where(*_STILL_PENDING_OF)
    .values(done_at=bindparam("at", type_=_TABLE.c.done_at.type))
    .returning(_TABLE.c.pk)
)


def pending(db: Database, *, limit: int) -> list[InboundEvent]:
    """The oldest events not yet turned into facts, in arrival order (read: parse them outside the write)."""
    _ready(db)
    with db.queue_read() as session:
        return list(session.scalars(_PENDING, {"limit": limit}))


_STILL_PENDING = select(_TABLE.c.pk).where(*_STILL_PENDING_OF)
_MARK_DONE = (
    update(_TABLE)
    .where(_TABLE.c.pk.in_(bindparam("pks", expanding=True)))
    .values(done_at=bindparam("at", type_=_TABLE.c.done_at.type))
)


def _still_pending(session: Session, pks: list[int]) -> set[int]:
    return set(session.connection().execute(_STILL_PENDING, {"pks": pks}).scalars())


def _mark_done(session: Session, pks: list[int], at: datetime) -> None:
    if pks:
        session.connection().execute(_MARK_DONE, {"pks": pks, "at": at})


def _take(session: Session, pks: list[int], at: datetime) -> set[int]:
    """Mark the still-pending ones of `pks` done in the caller's transaction (one statement); which they were."""
    stmt = (
        update(_TABLE).where(_TABLE.c.pk.in_(pks), _TABLE.c.done_at.is_(None)).values(done_at=at).returning(_TABLE.c.pk)
    )
    return set(session.scalars(stmt))


def record(ctx: AppContext, *, pks: list[int], write: Callable[[UnitOfWork, set[int]], None]) -> None:
    """Record the still-pending events of `pks` with `write(uow, pending)` in one unit of work and mark them done,
    one ingester at a time; events another processor recorded meanwhile are skipped."""
    db = ctx.db
    if not db.queue_apart:
        with ctx.uow(actor="perception") as uow:
            if uow.postgres:
                uow.session.execute(_INGEST_LOCK)
            # Marked done first, in the transaction that writes their facts: one statement instead of a read and
            # an update; a failure rolls both back, and the ingest lock keeps anyone else from taking them between.
            write(uow, _take(uow.session, sorted(pks), uow.now))
        return
    with db.exclusive():  # the service's writer lock across the facts' transaction and the queue's
        with db.queue_read() as session:
            mine = _still_pending(session, pks)
        with ctx.uow(actor="perception") as uow:
            write(uow, mine)
            done_at = uow.now
        with db.queue_write() as session:
            _mark_done(session, sorted(mine), done_at)


def purge(db: Database, *, now: datetime) -> int:
    """Delete events done more than KEEP_DONE before `now`; how many."""
    _ready(db)
    with db.queue_write() as session:
        result = session.execute(delete(_TABLE).where(_TABLE.c.done_at < now - KEEP_DONE))
        return result.rowcount or 0


def waiting(db: Database) -> tuple[int, datetime | None]:
    """Events not yet turned into facts, and when the oldest arrived."""
    _ready(db)
    with db.queue_read() as session:
        count, oldest = session.execute(
            select(func.count(), func.min(InboundEvent.received_at)).where(InboundEvent.done_at.is_(None))
        ).one()
    return int(count or 0), oldest
