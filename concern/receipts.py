"""Whether a loop's person read its latest message: learned from a read event or by asking the platform (the poller).

A loop remembers the latest question or follow-up that reached its person (`contact_ref`, `contact_at`); a read
event naming that message, or the platform's list of readers, sets `read_at` once (a `read` change that does not
supersede the loop: what is queued for it still goes). A new message to the person is unread again. The poller
asks only about open loops whose latest message is unread, on a platform with read receipts, younger than 7 days,
each at most once per interval; a loop is claimed for asking in its own short transaction (`SKIP LOCKED` on
PostgreSQL), so several processors never ask about the same message in the same interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy import func, or_, select

from action.models import ActionRecord
from concern import service
from concern.models import Concern
from kernel import channel_names
from kernel.context import AppContext, UnitOfWork
from person import service as persons

LOOKUP_AGE = timedelta(days=7)  # Feishu answers read_users only for messages younger than this
POLL_BATCH = 20  # messages looked up per pass at most: far inside Feishu's 50 calls a second


@dataclass(frozen=True)
class Polled:
    """What a platform said about who read one message."""

    readers: dict[str, datetime] = field(default_factory=dict)  # platform user id → when they read it
    error: str | None = None  # why it could not say
    throttled: bool = False  # it asked us to slow down: no more lookups this pass
    final: bool = False  # it will never say (not the bot's message, too old): stop asking about it


class ReadReceipts(Protocol):
    """Asks a platform who read a message the bot sent (the composition root wires it to the channels)."""

    def readers(self, channel: str, message_id: str) -> Polled: ...


def contacted(record: ActionRecord, *, at: datetime) -> dict[str, object]:
    """The fields that make the message `record` sent the loop's latest: unread, first looked up one interval on.

    A send whose answer was lost has no id, and a dry-run stand-in's message nobody reads: their read state is
    unknown (no ref), so nothing is looked up or decided on it.
    """
    detail = record.result_detail
    sent = next(
        (a for a in reversed(detail.get("attempts", [])) if a.get("result") == "success" and "call" not in a), {}
    )
    message_id = detail.get("message_id") if record.result == "success" and not sent.get("dry_run") else None
    return {
        "contact_ref": f"{record.channel}:{message_id}" if message_id else None,
        "contact_at": at,
        "read_at": None,
        "read_polled_at": at,
    }


def _is_reader(uow: UnitOfWork, concern: Concern, *, channel: str, reader: str) -> bool:
    """The reader is the loop's person on that platform (a group's other members reading it say nothing)."""
    return any(
        b.channel == channel and b.external_user_id == reader
        for b in persons.bindings_of(uow, person_id=concern.target_person_id)
    )


def record_read(
    uow: UnitOfWork,
    *,
    channel: str,
    reader: str,
    message_ids: list[str],
    read_at: datetime,
    via: str,
    causation_id: str | None = None,
) -> list[str]:
    """Set `read_at` on the loops whose latest message is among `message_ids` and that `reader` owes; their ids."""
    refs = [f"{channel}:{m}" for m in message_ids]
    stmt = select(Concern).where(Concern.contact_ref.in_(refs), Concern.read_at.is_(None)).order_by(Concern.concern_id)
    if uow.postgres:
        stmt = stmt.with_for_update()
    marked = []
    for concern in uow.session.scalars(stmt):
        if not _is_reader(uow, concern, channel=channel, reader=reader):
            continue
        service.change(
            uow,
            concern,
            change="read",
            causation_id=causation_id,
            supersedes=False,  # a follow-up already queued still goes; the read changes how, not whether
            read_at=min(max(read_at, concern.contact_at or read_at), uow.now),
            extra={"via": via, "message_ref": concern.contact_ref},
        )
        marked.append(concern.concern_id)
    return marked


def still_unread(uow: UnitOfWork, *, concern_id: str) -> bool:
    """The loop's latest message is not known to be read (an urgent follow-up decided earlier may still be urgent)."""
    concern = service.get(uow, concern_id=concern_id)
    return concern is not None and concern.read_at is None


def _due(now: datetime, *, channels: list[str], interval: timedelta, limit: int):
    """Open loops whose latest message is unread, on a platform with read receipts, and due a lookup."""
    return (
        select(Concern)
        .where(
            Concern.state == "waiting_reply",
            Concern.sandbox.is_(False),
            Concern.read_at.is_(None),
            Concern.contact_at > now - LOOKUP_AGE,
            or_(*[Concern.contact_ref.like(f"{name}:%") for name in channels]),
            or_(Concern.read_polled_at.is_(None), Concern.read_polled_at <= now - interval),
        )
        .order_by(func.coalesce(Concern.read_polled_at, Concern.contact_at), Concern.concern_id)
        .limit(limit)
    )


def _claim(uow: UnitOfWork, *, channels: list[str], interval: timedelta, limit: int) -> list[Concern]:
    """The loops due a lookup, marked as looked up now (claimed: another processor skips them)."""
    stmt = _due(uow.now, channels=channels, interval=interval, limit=limit)
    if uow.postgres:
        stmt = stmt.with_for_update(skip_locked=True)
    claimed = list(uow.session.scalars(stmt))
    for concern in claimed:
        concern.read_polled_at = uow.now
    uow.session.flush()
    return claimed


def _apply(uow: UnitOfWork, *, concern_id: str, ref: str, polled: Polled) -> bool:
    """What the platform said about one loop's latest message: read by its person (True), or never to be said."""
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None or concern.contact_ref != ref:  # a newer message went meanwhile: this answer is stale
        return False
    if polled.final and concern.contact_at is not None:  # never due again: past the age lookups stop at
        concern.read_polled_at = concern.contact_at + LOOKUP_AGE
    channel, _, message_id = ref.partition(":")
    for binding in persons.bindings_of(uow, person_id=concern.target_person_id):
        when = polled.readers.get(binding.external_user_id) if binding.channel == channel else None
        if when is not None:
            reader = binding.external_user_id
            marked = record_read(
                uow, channel=channel, reader=reader, message_ids=[message_id], read_at=when, via="read_users"
            )
            return bool(marked)
    return False


def poll(ctx: AppContext, port: ReadReceipts, *, interval: timedelta, limit: int = POLL_BATCH) -> int:
    """Ask the platforms about the unread latest messages due a lookup; how many were found read.

    A read first: most passes find nothing due and take no write lock for it.
    """
    channels = [p.name for p in channel_names.platforms() if p.read_receipts]
    if not channels:
        return 0
    with ctx.reader() as uow:
        if uow.session.scalars(_due(uow.now, channels=channels, interval=interval, limit=1)).first() is None:
            return 0
    with ctx.uow(actor="read_poller") as uow:
        claimed = _claim(uow, channels=channels, interval=interval, limit=limit)
        due = [(c.concern_id, c.contact_ref or "") for c in claimed]
    found = 0
    for concern_id, ref in due:
        channel, _, message_id = ref.partition(":")
        polled = port.readers(channel, message_id)
        if polled.throttled:  # Feishu asked us to slow down: the rest wait for their next interval
            break
        with ctx.uow(actor="read_poller") as uow:
            found += _apply(uow, concern_id=concern_id, ref=ref, polled=polled)
    return found
