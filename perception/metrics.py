"""The inbox backlog an on-call engineer watches: signals received and not yet processed by the core."""

from __future__ import annotations

from sqlalchemy import func, select

from kernel.context import UnitOfWork
from kernel.metrics import Backlog
from perception.models import InboundEvent, InboxEntry


def inbox_backlog(uow: UnitOfWork) -> Backlog:
    """Pending inbox rows and webhook events not yet turned into facts, and when the oldest of them was received
    (a signal set aside as failed is not pending)."""
    count, oldest = uow.session.execute(
        select(func.count(), func.min(InboxEntry.received_at)).where(InboxEntry.state == "pending")
    ).one()
    queued, first = uow.session.execute(
        select(func.count(), func.min(InboundEvent.received_at)).where(InboundEvent.done_at.is_(None))
    ).one()
    return Backlog((count or 0) + (queued or 0), min((t for t in (oldest, first) if t is not None), default=None))
