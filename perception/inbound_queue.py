"""The inbound queue (`inbound_events`): webhooks append platform events as they arrived; the processor takes them.

The ack appends and answers; nothing else happens before the answer. The processor claims pending rows in arrival
order, turns each into its facts in the same transaction that marks it done, and deletes done rows `KEEP_DONE`
later: the row is the signal's durable record until its fact exists, then the fact log is. On PostgreSQL one
processor at a time takes rows (a transaction-scoped advisory lock, waited for): the facts are then recorded in
arrival order, which is the order the core processes them in, whoever processes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from kernel.context import UnitOfWork
from perception.models import InboundEvent

# Long enough for a platform's retry of an event it thinks unanswered to find its row (Feishu retries for about
# an hour, Telegram at once); a later repeat is still one fact, since the fact log's dedup key is the truth.
KEEP_DONE = timedelta(hours=1)
_TABLE = InboundEvent.__table__
_APPEND = {
    name: dialect.insert(_TABLE)
    .on_conflict_do_nothing(index_elements=["channel", "event_id"])
    .returning(_TABLE.c.channel, _TABLE.c.event_id)
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}
_INGEST_LOCK = text("SELECT pg_advisory_xact_lock(7251047395520651)")  # one ingester at a time, any replica


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


def append(session: Session, *, events: list[Arrived]) -> set[tuple[str, str]]:
    """Append events in the caller's transaction (one statement for the lot); the keys that were new.

    `events` must hold each key once: the caller answers a repeat inside one batch as a repeat.
    """
    if not events:
        return set()
    rows = [
        {"channel": e.channel, "event_id": e.event_id, "kind": e.kind, "body": e.body, "received_at": e.received_at}
        for e in events
    ]
    result = session.execute(_APPEND[session.get_bind().dialect.name], rows)
    return {(channel, event_id) for channel, event_id in result}


def pending(uow: UnitOfWork, *, limit: int) -> list[InboundEvent]:
    """The oldest events not yet turned into facts, in arrival order (read: parse them outside the write)."""
    stmt = select(InboundEvent).where(InboundEvent.done_at.is_(None)).order_by(InboundEvent.pk).limit(limit)
    return list(uow.session.scalars(stmt))


def claim(uow: UnitOfWork, *, pks: list[int]) -> set[int]:
    """Of `pks`, those still pending, in the transaction that will record them (on PostgreSQL after waiting for
    any other ingester, so events are recorded in arrival order whichever processor takes them)."""
    if uow.postgres:
        uow.session.execute(_INGEST_LOCK)
    stmt = select(InboundEvent.pk).where(InboundEvent.pk.in_(pks), InboundEvent.done_at.is_(None))
    return set(uow.session.scalars(stmt))


def done(uow: UnitOfWork, *, pks: list[int]) -> None:
    """Mark events turned into facts (in the transaction that wrote the facts)."""
    if pks:
        uow.session.execute(update(_TABLE).where(_TABLE.c.pk.in_(pks)).values(done_at=uow.now))


def purge(uow: UnitOfWork) -> int:
    """Delete events done more than KEEP_DONE ago; how many."""
    result = uow.session.execute(delete(_TABLE).where(_TABLE.c.done_at < uow.now - KEEP_DONE))
    return result.rowcount or 0
