"""The inbox backlog an on-call engineer watches: signals received and not yet processed by the core."""

from __future__ import annotations

from sqlalchemy import func, select

from kernel.context import UnitOfWork
from kernel.db import Database
from kernel.metrics import Backlog
from perception import inbound_queue
from perception.models import InboxEntry


def inbox_backlog(uow: UnitOfWork, db: Database) -> Backlog:
    """Pending inbox rows and webhook events not yet turned into facts (the queue in `db`), and when the oldest of
    them was received (a signal set aside as failed is not pending)."""
    count, oldest = uow.session.execute(
        select(func.count(), func.min(InboxEntry.received_at)).where(InboxEntry.state == "pending")
    ).one()
    queued, first = inbound_queue.waiting(db)
    return Backlog((count or 0) + queued, min((t for t in (oldest, first) if t is not None), default=None))
