"""Record inbound signals durably and idempotently; the core processes them afterwards from the inbox."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Select, bindparam, func, insert, select, tuple_

from channels.inbound import InboundMessage, InboundPress, InboundRead
from fact import service as facts
from fact.models import Fact
from kernel.context import AppContext, UnitOfWork
from kernel.wakeups import wake
from perception.group_commit import GroupCommit
from perception.models import ExternalSignal, InboxEntry
from person.models import ChannelBinding, Person


def _bound_active(*columns: Any) -> Select:
    """`columns` of the bindings whose person is active (the one rule of who a platform identity is)."""
    return select(*columns).join(Person, Person.person_id == ChannelBinding.person_id).where(Person.active.is_(True))


def _identity(channel: str, external_user_id: str) -> tuple[Any, Any]:
    return ChannelBinding.channel == channel, ChannelBinding.external_user_id == external_user_id


def resolve_sender(uow: UnitOfWork, *, channel: str, external_user_id: str) -> str | None:
    """The active person bound to this platform identity, or None (unknown sender)."""
    stmt = _bound_active(ChannelBinding.person_id).where(*_identity(channel, external_user_id))
    return uow.session.scalars(stmt).first()


def _enqueue(uow: UnitOfWork, fact: Fact, received_at: datetime | None = None) -> None:
    uow.session.add(
        InboxEntry(fact_pk=fact.pk, fact_id=fact.fact_id, state="pending", received_at=received_at or uow.now)
    )
    uow.session.flush()


def sender_and_locale(uow: UnitOfWork, *, channel: str, external_user_id: str) -> tuple[str | None, str]:
    """The active person bound to this identity and their language, in one query ((None, "zh") when unknown)."""
    stmt = _bound_active(ChannelBinding.person_id, Person.locale).where(*_identity(channel, external_user_id))
    row = uow.session.execute(stmt).first()
    return (row[0], row[1] or "zh") if row else (None, "zh")


_SENDERS = _bound_active(ChannelBinding.channel, ChannelBinding.external_user_id, ChannelBinding.person_id).where(
    tuple_(ChannelBinding.channel, ChannelBinding.external_user_id).in_(bindparam("identities", expanding=True))
)


def resolve_senders(uow: UnitOfWork, *, identities: set[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """The active person bound to each (channel, external user id) that has one: one query for the lot."""
    if not identities:
        return {}
    rows = uow.session.execute(_SENDERS, {"identities": sorted(identities)})
    return {(channel, user): person for channel, user, person in rows}


def record_messages(uow: UnitOfWork, *, arrived: list[tuple[InboundMessage, datetime]]) -> list[tuple[Fact, bool]]:
    """The `message_received` facts of messages that arrived (once per platform event) and the inbox rows of the
    new ones, in the caller's transaction: a statement per table for the lot. Each fact keeps the platform's time
    (`occurred_at`) and the time it arrived (its timestamp)."""
    senders = resolve_senders(uow, identities={(m.channel, m.external_user_id) for m, _ in arrived})
    new = []
    for message, received_at in arrived:
        person_id = senders.get((message.channel, message.external_user_id))
        new.append(
            facts.NewFact(
                "message_received",
                "perception",
                {**_dumped(message), "person_id": person_id},
                person_refs=(person_id,) if person_id else (),
                dedup_key=_message_key(message),
                timestamp=received_at,
            )
        )
    recorded = facts.append_many(uow, facts=new)
    queued = [
        {"fact_pk": fact.pk, "fact_id": fact.fact_id, "state": "pending", "received_at": fact.timestamp}
        for fact, created in recorded
        if created
    ]
    if queued:
        uow.session.execute(insert(InboxEntry.__table__), queued)
    return recorded


def record_message(ctx: AppContext, *, message: InboundMessage) -> tuple[Fact, bool]:
    """Write the `message_received` fact (once per platform event) and queue it for the core.

    Concurrent calls share a transaction (group commit); each returns once its own message is committed.
    """
    key = _message_key(message)
    if ctx.redis is not None and _seen_recently(ctx, key):
        with ctx.reader() as uow:
            existing = facts.get_by_dedup_key(uow, dedup_key=key)
        if existing is not None:
            return existing, False
    fact, created = _messages(ctx).submit(message)
    if created:
        wake(ctx)  # any replica may take it now, not only this one
    return fact, created


def _dumped(signal: InboundMessage | InboundPress) -> dict[str, Any]:
    """The signal as its fact's content: `sandbox: true` only on what the console's sandbox typed or pressed."""
    return signal.model_dump(mode="json", exclude=None if signal.sandbox else {"sandbox"})


def _message_key(message: InboundMessage) -> str:
    return f"{message.channel}:event:{message.event_id}"


def _messages(ctx: AppContext) -> GroupCommit[InboundMessage, tuple[Fact, bool]]:
    group = ctx.shared.get("perception.messages")
    if group is None:
        group = ctx.shared.setdefault("perception.messages", GroupCommit(ctx, _record_in, actor="perception"))
    return group


def _record_in(uow: UnitOfWork, message: InboundMessage) -> tuple[Fact, bool]:
    return record_messages(uow, arrived=[(message, uow.now)])[0]


def _append_queued(
    uow: UnitOfWork,
    fact_type: str,
    content: dict[str, Any],
    *,
    person_id: str | None,
    dedup_key: str,
    source: str = "perception",
    received_at: datetime | None = None,
) -> tuple[Fact, bool]:
    """The signal's fact (once per dedup key) and, when it is new, its inbox row: in the caller's transaction."""
    fact, created = facts.append(
        uow,
        fact_type=fact_type,
        source=source,
        content=content,
        person_refs=[person_id] if person_id else [],
        dedup_key=dedup_key,
        timestamp=received_at,
    )
    if created:
        _enqueue(uow, fact, received_at)
    return fact, created


def queue_internal(
    uow: UnitOfWork, fact_type: str, content: dict[str, Any], *, person_id: str | None, dedup_key: str, source: str
) -> tuple[Fact, bool]:
    """An internal signal (the LLM's proposal) recorded and queued like an inbound one, in the caller's transaction."""
    return _append_queued(uow, fact_type, content, person_id=person_id, dedup_key=dedup_key, source=source)


def record_press(ctx: AppContext, *, press: InboundPress, about: dict[str, Any]) -> tuple[Fact, bool]:
    """Write the `button_pressed` fact (once per platform event) and queue it for the core.

    `about` is what the button means (its verb and concern), looked up by the caller so the fact reads on its own.
    """
    with ctx.uow(actor=f"{press.channel}_inbound") as uow:
        fact, created = record_press_in(uow, press=press, about=about)
    if created:
        wake(ctx)
    return fact, created


def press_key(press: InboundPress) -> str:
    """The press fact's dedup key: one fact per platform event."""
    return f"{press.channel}:press:{press.event_id}"


def record_press_in(
    uow: UnitOfWork, *, press: InboundPress, about: dict[str, Any], received_at: datetime | None = None
) -> tuple[Fact, bool]:
    """The `button_pressed` fact (once per platform event) and its inbox row, in the caller's transaction."""
    person_id = resolve_sender(uow, channel=press.channel, external_user_id=press.external_user_id)
    content = {**_dumped(press), **about, "person_id": person_id}
    return _append_queued(
        uow, "button_pressed", content, person_id=person_id, dedup_key=press_key(press), received_at=received_at
    )


def record_read(uow: UnitOfWork, *, receipt: InboundRead) -> tuple[Fact, bool]:
    """The `system` fact `message_read` (once per platform event, in the caller's transaction); not for the core."""
    person_id = resolve_sender(uow, channel=receipt.channel, external_user_id=receipt.external_user_id)
    return facts.append(
        uow,
        fact_type="system",
        source="perception",
        content={"event": "message_read", **receipt.model_dump(mode="json"), "person_id": person_id},
        person_refs=[person_id] if person_id else [],
        dedup_key=f"{receipt.channel}:read:{receipt.event_id}",
    )


def record_signal(ctx: AppContext, *, signal: ExternalSignal, actor: str) -> tuple[Fact, bool]:
    """Write the `external_signal` fact (once per source + external_id) and queue it for the core."""
    key = f"signal:{signal.source}:{signal.external_id}"
    with ctx.uow(actor=actor) as uow:
        person_id = signal.person_id
        if person_id is None and signal.channel and signal.external_user_id:
            person_id = resolve_sender(uow, channel=signal.channel, external_user_id=signal.external_user_id)
        content = {**signal.model_dump(mode="json"), "person_id": person_id}
        fact, created = _append_queued(uow, "external_signal", content, person_id=person_id, dedup_key=key)
    if created:
        wake(ctx)  # any replica may take it now, not only this one
    return fact, created


def _seen_recently(ctx: AppContext, key: str) -> bool:
    """Redis fast path: True if another replica already took this key (the database stays the truth)."""
    try:
        return not ctx.redis.set(f"deputy:dedup:{key}", "1", nx=True, ex=86400)
    except Exception:  # Redis is an optimisation; on error fall back to the database
        return False


def inbox_backlog(uow: UnitOfWork) -> dict[str, Any]:
    """Signals waiting for the core (`pending`, with the oldest's arrival) and those set aside (`failed`)."""
    stmt = (
        select(InboxEntry.state, func.count(), func.min(InboxEntry.received_at))
        .where(InboxEntry.state.in_(("pending", "failed")))
        .group_by(InboxEntry.state)
    )
    counts = {state: (n, oldest) for state, n, oldest in uow.session.execute(stmt)}
    pending, oldest = counts.get("pending", (0, None))
    return {"pending": pending, "oldest_pending_at": oldest, "failed": counts.get("failed", (0, None))[0]}
