"""Reads of the action ledger and concern table that build the layers' snapshot (inside the reserving transaction)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select, text

from action.models import ActionRow, ActionType, Result
from action.rules import ConcernView, Limits
from app.context import UnitOfWork
from concern.models import ACTIVE_STATES, Concern

COUNTED = (Result.success.value, Result.pending.value)  # in-flight reservations count, so limits hold under concurrency


def lock_person(uow: UnitOfWork, *, person_id: str) -> None:
    """Serialise check-and-reserve per target person (SQLite already holds the write lock: BEGIN IMMEDIATE)."""
    if uow.session.get_bind().dialect.name == "postgresql":
        uow.session.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": f"person:{person_id}"})


def count_proactive(uow: UnitOfWork, *, person_id: str, start: datetime, end: datetime) -> int:
    """Successful or in-flight proactive actions towards a person in [start, end)."""
    stmt = select(func.count()).select_from(ActionRow).where(
        ActionRow.target_person_id == person_id,
        ActionRow.proactive.is_(True),
        ActionRow.result.in_(COUNTED),
        ActionRow.created_at >= start,
        ActionRow.created_at < end,
    )
    return uow.session.scalar(stmt) or 0


def last_notification_at(uow: UnitOfWork, *, person_id: str, notification_type: str, since: datetime) -> datetime | None:
    """When a proactive notify of this type last went (or is going) to the person, after `since`."""
    stmt = select(func.max(ActionRow.created_at)).where(
        ActionRow.target_person_id == person_id,
        ActionRow.action_type == ActionType.notify.value,
        ActionRow.notification_type == notification_type,
        ActionRow.proactive.is_(True),
        ActionRow.result.in_(COUNTED),
        ActionRow.created_at > since,
    )
    return uow.session.scalar(stmt)  # max() keeps the column's UTC type


def concern_view(uow: UnitOfWork, *, concern_id: str, person_id: str, limits: Limits, now: datetime) -> ConcernView | None:
    """L2/L3 inputs for an action tied to `concern_id`, or None if the concern does not exist."""
    concern = uow.session.get(Concern, concern_id)
    if concern is None:
        return None
    contacts = list(
        uow.session.scalars(
            select(ActionRow.created_at)
            .where(
                ActionRow.concern_id == concern_id,
                ActionRow.target_person_id == person_id,
                ActionRow.action_type == ActionType.send_message.value,
                ActionRow.result.in_(COUNTED),
            )
            .order_by(ActionRow.created_at)
        )
    )
    active = select(func.count()).select_from(Concern).where(Concern.state.in_(ACTIVE_STATES), Concern.concern_id != concern_id)
    return ConcernView(
        concern_id=concern_id,
        priority=concern.priority,
        follow_up_count=concern.follow_up_count,
        last_contact_at=contacts[-1] if contacts else None,
        contacts_in_window=tuple(t for t in contacts if t > now - limits.concern_contact_window),
        active_global=uow.session.scalar(active) or 0,
        active_for_person=uow.session.scalar(active.where(Concern.target_person_id == concern.target_person_id)) or 0,
    )
