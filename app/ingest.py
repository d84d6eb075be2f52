"""The processor's first stage: webhook events the ack appended become facts, in arrival order, in batches.

Each batch: read the oldest pending events, parse them with their platform's webhook (outside any transaction: a
Telegram parse may ask getMe once), then in one transaction record what they hold — the messages' facts and inbox
rows a statement per table, presses and read receipts as the live paths record them, an unreadable event as a
`system` fact saying why it was set aside — and mark them done. A crash before the commit leaves them pending for
the next pass; a repeat of an event already recorded is one fact (the fact log's dedup key). A batch that raises is
rolled back and its events recorded one per transaction, so only a failing one is set aside; a database that
refuses (unreachable, full) sets nothing aside: the pass fails and every event stays pending for the next.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.exc import OperationalError

from action import buttons
from app.inbound import record_receipt
from channels.inbound import InboundMessage
from channels.plugin import Parsed, Webhook
from cognitive_core.presses import door as presses
from fact import service as facts
from kernel.context import AppContext, UnitOfWork
from kernel.redaction import error_text
from perception import inbound_queue
from perception import service as perception
from perception.models import InboundEvent

log = logging.getLogger("deputy.perception")

BATCH = 64
PURGE_EVERY = 60.0  # seconds between deletions of done events, per process


@dataclass(frozen=True)
class _Event:
    pk: int
    channel: str
    event_id: str
    received_at: datetime
    parsed: Parsed


def ingest(ctx: AppContext, *, webhooks: dict[str, Webhook], limit: int = 512) -> int:
    """Turn up to `limit` pending events into facts; how many events were taken."""
    taken = 0
    while taken < limit:
        rows = inbound_queue.pending(ctx.db, limit=min(BATCH, limit - taken))
        if not rows:
            break
        events = [_Event(r.pk, r.channel, r.event_id, r.received_at, _parse(webhooks, r)) for r in rows]
        try:
            _record(ctx, events)
        except OperationalError:  # the database refused (unreachable, full): nothing is set aside, all stay pending
            raise
        except Exception:
            log.exception("a batch of %d inbound events failed; recording them one by one", len(events))
            for event in events:
                _record_alone(ctx, event)
        taken += len(rows)
        if len(rows) < BATCH:
            break
    _purge(ctx)
    return taken


def _parse(webhooks: dict[str, Webhook], row: InboundEvent) -> Parsed:
    webhook = webhooks.get(row.channel)
    if webhook is None:  # a platform removed since the event arrived
        return Parsed(set_aside=f"no webhook for channel {row.channel!r} any more")
    try:
        return webhook.parse(kind=row.kind, body=row.body, received_at=row.received_at)
    except Exception as exc:  # a parser's bug must not block the queue: the event is set aside, saying why
        log.exception("parsing a %s event failed", row.channel)
        return Parsed(set_aside=f"{type(exc).__name__}: {error_text(str(exc))}")


def _record(ctx: AppContext, events: list[_Event]) -> None:
    """Record the pending ones of `events` (another processor may have taken some); the queue marks them done."""

    def write(uow: UnitOfWork, pending: set[int]) -> None:
        mine = [e for e in events if e.pk in pending]
        arrived: list[tuple[InboundMessage, datetime]] = [(m, e.received_at) for e in mine for m in e.parsed.messages]
        if arrived:
            perception.record_messages(uow, arrived=arrived)
        for event in mine:
            _record_others(uow, event)

    inbound_queue.record(ctx, pks=[e.pk for e in events], write=write)


def _record_others(uow: UnitOfWork, event: _Event) -> None:
    """A press, read receipts, or the reason an event is set aside (messages go in the batch's one statement)."""
    parsed = event.parsed
    if parsed.press is not None:
        about = presses.about(buttons.get(uow, token=parsed.press.token))
        perception.record_press_in(uow, press=parsed.press, about=about, received_at=event.received_at)
    for receipt in parsed.reads:
        record_receipt(uow, receipt)
    if parsed.set_aside is not None:
        _set_aside(uow, event, parsed.set_aside)


def _set_aside(uow: UnitOfWork, event: _Event, reason: str) -> None:
    facts.append(
        uow,
        fact_type="system",
        source="perception",
        dedup_key=f"{event.channel}:set_aside:{event.event_id}",
        timestamp=event.received_at,
        content={
            "event": "inbound_event_set_aside",
            "channel": event.channel,
            "event_id": event.event_id,
            "reason": error_text(reason),
        },
    )


def _record_alone(ctx: AppContext, event: _Event) -> None:
    try:
        _record(ctx, [event])
    except OperationalError:
        raise  # not this event's fault: it stays pending for the next pass
    except Exception as exc:
        log.exception("inbound event %s:%s could not be recorded", event.channel, event.event_id)
        reason = f"{type(exc).__name__}: {error_text(str(exc))}"
        inbound_queue.record(
            ctx, pks=[event.pk], write=lambda uow, pending: _set_aside(uow, event, reason) if pending else None
        )


def _purge(ctx: AppContext) -> None:
    """Delete done events past KEEP_DONE, at most every PURGE_EVERY seconds per process."""
    last: dict[str, Any] = ctx.shared.setdefault("perception.purged", {"at": 0.0})
    if time.monotonic() - last["at"] < PURGE_EVERY:
        return
    last["at"] = time.monotonic()
    inbound_queue.purge(ctx.db, now=ctx.clock.now())
