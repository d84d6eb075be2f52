"""One sender's signals in order, one at a time, however many processors share the inbox (PostgreSQL).

Processors claim the oldest pending rows with SKIP LOCKED, so two of them could hold one sender's `/ask` and
`/cancel` at once. Before processing, a batch takes a transaction-scoped advisory lock per sender (in one sorted
order, so two batches never wait on each other in a cycle); holding it, it sets aside any of its signals that
have an earlier pending signal of the same sender held by another processor. That signal's processor holds or
waits for the same lock, so the earlier one is processed first, and the later one in a following batch.
SQLite has one processor and one writer at a time: nothing to order there.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import bindparam, select, text

from fact.models import Fact
from kernel.context import UnitOfWork
from perception.models import InboxEntry

_ELSEWHERE = (
    select(InboxEntry.fact_pk, Fact.content)
    .join(Fact, Fact.pk == InboxEntry.fact_pk)
    .where(
        InboxEntry.state == "pending",
        InboxEntry.fact_pk < bindparam("last"),
        InboxEntry.fact_pk.not_in(bindparam("pks", expanding=True)),
    )
    .order_by(InboxEntry.fact_pk)
)
_LOCKS = text("SELECT pg_advisory_xact_lock(k) FROM unnest(CAST(:keys AS bigint[])) AS k")


def sender_of(content: dict) -> str | None:
    """Whose signal this is: the person when known, else the platform identity; None for a signal of nobody's."""
    if content.get("person_id"):
        return f"person:{content['person_id']}"
    if content.get("channel") and content.get("external_user_id"):
        return f"{content['channel']}:{content['external_user_id']}"
    return None


def lock_key(sender: str) -> int:
    """A stable signed 64-bit advisory lock key for a sender (the same in every process)."""
    digest = hashlib.blake2b(f"deputy-sender:{sender}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def in_turn(uow: UnitOfWork, entries: list[InboxEntry], contents: dict[int, dict]) -> tuple[list[InboxEntry], int]:
    """The claimed entries this batch may process now, in order, and how many wait for an earlier one.

    `contents` are the entries' signal facts' contents by fact pk (the batch reads them anyway).
    """
    if not uow.postgres or not entries:
        return entries, 0
    pks = [entry.fact_pk for entry in entries]
    senders = {pk: sender_of(contents.get(pk) or {}) for pk in pks}
    keys = sorted({lock_key(s) for s in senders.values() if s is not None})
    if keys:  # one statement, the locks taken in the array's (sorted) order
        uow.session.execute(_LOCKS, {"keys": keys})
    earlier = _earliest_elsewhere(uow, pks)
    now = [entry for entry in entries if not _waits(entry, senders, earlier)]
    return now, len(entries) - len(now)


def _earliest_elsewhere(uow: UnitOfWork, pks: list[int]) -> dict[str, int]:
    """Per sender, the earliest pending signal before the batch's last one that another processor holds."""
    rows = uow.session.execute(_ELSEWHERE, {"last": max(pks), "pks": pks})
    earliest: dict[str, int] = {}
    for pk, content in rows:
        sender = sender_of(content)
        if sender is not None:
            earliest.setdefault(sender, pk)
    return earliest


def _waits(entry: InboxEntry, senders: dict[int, str | None], earlier: dict[str, int]) -> bool:
    sender = senders.get(entry.fact_pk)
    held = earlier.get(sender) if sender is not None else None
    return held is not None and held < entry.fact_pk
