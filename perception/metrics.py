"""The inbox backlog an on-call engineer watches: signals recorded and not yet processed by the core."""

from __future__ import annotations

from sqlalchemy import func, select

from kernel.context import UnitOfWork
from kernel.metrics import Backlog
from perception.models import InboxEntry


def inbox_backlog(uow: UnitOfWork) -> Backlog:
    """Pending inbox rows and when the oldest was received (a signal set aside as failed is not pending)."""
    count, oldest = uow.session.execute(
        select(func.count(), func.min(InboxEntry.received_at)).where(InboxEntry.state == "pending")
    ).one()
    return Backlog(count or 0, oldest)
