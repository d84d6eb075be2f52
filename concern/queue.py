"""The action outbox as a queue: what a decision asked to send, written in its transaction, claimed by one drainer.

Every entry names its `Purpose`: what its result means for its loop (`concern.outbox.results` declares, per
purpose, the handler applied once the action has a result, and whether the entry was decided for one version of
its loop). Claims are leases (`claimed_by`, `available_at`): PostgreSQL skips rows another transaction holds, and
SQLite has one writer at a time, so exactly one drainer owns an entry at a time.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import Integer, bindparam, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm.attributes import set_committed_value

from action.models import ActionRequest
from concern.models import Concern, OutboxEntry
from kernel.context import UnitOfWork

_TABLE = OutboxEntry.__table__
# Built once: a statement made per call costs its construction and cache key (a third of a millisecond each here).
_ENQUEUE = {
    dialect: insert(_TABLE).on_conflict_do_nothing(index_elements=["request_key"]).returning(_TABLE.c.id)
    for dialect, insert in (("postgresql", pg_insert), ("sqlite", sqlite_insert))
}
_CLOSE = (
    update(_TABLE)
    .where(_TABLE.c.id == bindparam("entry_id"), _TABLE.c.state == "open")
    .values(state=bindparam("new_state"), action_id=bindparam("new_action_id"))
)
_AVAILABLE = (_TABLE.c.state == "open", _TABLE.c.available_at <= bindparam("now", type_=_TABLE.c.available_at.type))
_OLDEST_FIRST = (_TABLE.c.available_at, _TABLE.c.id)
# PostgreSQL's claim in one round trip: the rows chosen (skipping held ones), updated and answered with the time
# they were available (the order they were chosen in).
_CHOSEN = (
    select(_TABLE.c.id, _TABLE.c.available_at.label("was"))
    .where(*_AVAILABLE)
    .order_by(*_OLDEST_FIRST)
    .limit(bindparam("limit", type_=Integer))
    .with_for_update(skip_locked=True)
    .cte("chosen")
)
_CLAIM = (
    update(OutboxEntry)
    .where(OutboxEntry.id == _CHOSEN.c.id)
    .values(claimed_by=bindparam("owner"), available_at=bindparam("until", type_=_TABLE.c.available_at.type))
    .returning(OutboxEntry, _CHOSEN.c.was)
)
_CLAIMABLE = select(OutboxEntry).where(*_AVAILABLE).order_by(*_OLDEST_FIRST).limit(bindparam("limit", type_=Integer))

# How long a claim holds: longer than any send can take (channel timeouts are far shorter); a dead owner's entry is
# free after it. An entry queued already owned by the request that runs it (the API's question) has it too.
LEASE = timedelta(seconds=60)


class Purpose(StrEnum):
    """Why an action was queued (stored with its entry and with a held delivery)."""

    question = "question"  # a loop's question
    follow_up = "follow_up"  # a scheduled follow-up
    bundle = "bundle"  # follow-ups to one person falling due together, in one message (`concern.bundles`)
    nudge = "nudge"  # a follow-up someone asked for now ("Nudge now", an operator's nudge)
    escalation = "escalation"  # to the target's manager (a repeat, a climb)
    backflow = "backflow"  # the answer, back to the originator
    outcome = "outcome"  # how a loop ended, held, stalled … (a notice to the originator or a recipient)
    tell = "tell"  # a relayed message ("告诉张三…"), confirmed to its sender
    policy = "policy"  # a self-service policy change, confirmed to its person
    reminder = "reminder"  # a reminder the person set
    digest = "digest"  # one message carrying held items
    reply = "reply"  # a reactive reply to what someone just wrote or pressed
    brief = "brief"  # the daily brief or weekly review on schedule
    notice = "notice"  # a signal route's notice
    notification = "notification"  # `POST /v1/notifications`


def enqueue(
    uow: UnitOfWork,
    *,
    request: ActionRequest,
    purpose: Purpose,
    concern: Concern | None = None,
    ack_person_id: str | None = None,
    ack_channel: str | None = None,
    ack_chat_id: str | None = None,
    claimed_by: str | None = None,
    lease: timedelta = timedelta(0),
    available_at: datetime | None = None,
) -> bool:
    """Queue an action in the caller's transaction, for a drainer after commit; False if its key is queued already.

    `claimed_by` queues it already owned (its caller runs it at once): no one else takes it before the lease ends.
    """
    values = {
        "request_key": request.request_key,
        "request": request.model_dump(mode="json"),
        "purpose": Purpose(purpose).value,
        "concern_id": concern.concern_id if concern else None,
        "concern_version": concern.version if concern else None,
        "ack_person_id": ack_person_id,
        "ack_channel": ack_channel,
        "ack_chat_id": ack_chat_id,
        "state": "open",
        "created_at": uow.now,
        "claimed_by": claimed_by,
        "available_at": available_at or uow.now + lease,
    }
    stmt = _ENQUEUE["postgresql" if uow.postgres else "sqlite"]
    # RETURNING, not rowcount: PostgreSQL's driver reports -1 rows for this statement.
    queued = uow.session.connection().execute(stmt, values).first() is not None
    if queued:
        _enqueued[0] += 1
    return queued


_enqueued = [0]  # entries this process queued (rolled back ones too): a drainer looks again when it moved


def enqueued() -> int:
    """How many entries this process has queued so far (a counter to compare, not a figure of the queue)."""
    return _enqueued[0]


def claim_many(uow: UnitOfWork, *, owner: str, lease: timedelta, limit: int) -> list[OutboxEntry]:
    """Take up to `limit` of the oldest available entries, oldest first, for `owner` until the lease ends.

    Exactly one drainer owns an entry at a time: PostgreSQL skips rows another transaction holds, and
    SQLite has one writer at a time. A lease that ends (its owner died) makes the entry available again.
    """
    until = uow.now + lease
    if uow.postgres:
        params = {"now": uow.now, "limit": limit, "owner": owner, "until": until}
        rows = uow.session.execute(_CLAIM, params, execution_options={"synchronize_session": False}).all()
        return [entry for entry, _ in sorted(rows, key=lambda row: (row[1], row[0].id))]  # as chosen: oldest first
    # SQLite cannot return the FROM clause's columns, and its statements do not leave the process anyway.
    entries = list(uow.session.scalars(_CLAIMABLE, {"now": uow.now, "limit": limit}))
    if entries:
        uow.session.execute(
            update(OutboxEntry)
            .where(OutboxEntry.id.in_([e.id for e in entries]))
            .values(claimed_by=owner, available_at=until)
            .execution_options(synchronize_session=False)
        )
        for entry in entries:  # as stored now: no second UPDATE at the flush, no read again
            set_committed_value(entry, "claimed_by", owner)
            set_committed_value(entry, "available_at", until)
    return entries


def release(uow: UnitOfWork, *, entry_id: int, available_at: datetime) -> None:
    """Give an entry back until `available_at` (a send deferred to its pacing slot)."""
    uow.session.execute(
        update(OutboxEntry)
        .where(OutboxEntry.id == entry_id, OutboxEntry.state == "open")
        .values(claimed_by=None, available_at=available_at)
    )


def next_available(uow: UnitOfWork) -> datetime | None:
    """When the earliest open entry becomes available (a drainer wakes then)."""
    return uow.session.scalar(select(func.min(OutboxEntry.available_at)).where(OutboxEntry.state == "open"))


def open_entry(uow: UnitOfWork, *, request_key: str) -> OutboxEntry | None:
    """The open entry with this key, or None."""
    stmt = select(OutboxEntry).where(OutboxEntry.request_key == request_key, OutboxEntry.state == "open")
    return uow.session.scalars(stmt).first()


def queued(uow: UnitOfWork, *, request_key: str) -> bool:
    """True when an action with this key was ever queued."""
    return (
        uow.session.scalar(select(func.count()).select_from(OutboxEntry).where(OutboxEntry.request_key == request_key))
        > 0
    )


def close_entry(uow: UnitOfWork, *, entry_id: int, state: str, action_id: str | None) -> bool:
    """Mark an entry done/superseded; False when another drainer already did (its result is handled once)."""
    params = {"entry_id": entry_id, "new_state": state, "new_action_id": action_id}
    return uow.session.connection().execute(_CLOSE, params).rowcount == 1
