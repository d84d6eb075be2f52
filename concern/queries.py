"""Reads of the loops: the L2 counts and a loop's state for the action layer, who owes whom, who an escalation
reached, the due timers, and the operators' list.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select

from action.models import ActionRow
from action.rules import ConcernState
from concern.models import ACTIVE_STATES, Concern
from kernel.context import UnitOfWork
from kernel.pagination import page_by_time


def active_counts(uow: UnitOfWork, *, target_person_id: str, excluding: str | None = None) -> tuple[int, int]:
    """(active questions overall, active questions waiting on this person), leaving out `excluding`.

    Only `question` concerns count (L2's 30 / 5): a reminder or a commitment never blocks an ask.
    """
    base = select(func.count()).select_from(Concern).where(Concern.state.in_(ACTIVE_STATES), Concern.kind == "question")
    if excluding is not None:
        base = base.where(Concern.concern_id != excluding)
    return uow.session.scalar(base) or 0, uow.session.scalar(
        base.where(Concern.target_person_id == target_person_id)
    ) or 0


def state_of(uow: UnitOfWork, *, concern_id: str) -> ConcernState | None:
    """What the action layer's L2 reads about a loop (None when it does not exist)."""
    concern = uow.session.get(Concern, concern_id)
    if concern is None:
        return None
    total, for_person = active_counts(uow, target_person_id=concern.target_person_id, excluding=concern_id)
    return ConcernState(
        priority=concern.priority,
        follow_up_count=concern.follow_up_count,
        active_global=total,
        active_for_person=for_person,
    )


def reached(person_id: str) -> Any:
    """The concerns whose escalation reached `person_id` (a counted escalate action: it went out)."""
    return select(ActionRow.concern_id).where(
        ActionRow.action_type == "escalate", ActionRow.target_person_id == person_id, ActionRow.counted.is_(True)
    )


def escalation_recipients(uow: UnitOfWork, *, concern_id: str) -> list[str]:
    """Everyone the concern's escalation reached, first reached first (the ledger is the truth of who got it)."""
    stmt = (
        select(ActionRow.target_person_id, func.min(ActionRow.pk))
        .where(ActionRow.concern_id == concern_id, ActionRow.action_type == "escalate", ActionRow.counted.is_(True))
        .group_by(ActionRow.target_person_id)
        .order_by(func.min(ActionRow.pk))
    )
    return [person_id for person_id, _ in uow.session.execute(stmt) if person_id]


def claim_due(uow: UnitOfWork, *, now: datetime, limit: int = 100, skip: Collection[str] = ()) -> list[Concern]:
    """Due timers (but `skip`), locked so another replica skips them (SKIP LOCKED); cost grows with due rows only."""
    stmt = (
        select(Concern)
        .where(Concern.next_follow_up_at.is_not(None), Concern.next_follow_up_at <= now)
        .order_by(Concern.next_follow_up_at)
        .limit(limit)
    )
    if skip:
        stmt = stmt.where(Concern.concern_id.not_in(list(skip)))
    if uow.postgres:
        stmt = stmt.with_for_update(skip_locked=True)
    return list(uow.session.scalars(stmt))


def list_(
    uow: UnitOfWork,
    *,
    state: str | None = None,
    originator_id: str | None = None,
    target_person_id: str | None = None,
    person_id: str | None = None,
    kind: str | None = None,
    priority: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> tuple[list[Concern], str | None]:
    """Concerns newest first (ids sort by creation), filtered."""
    stmt = select(Concern)
    if state:
        stmt = stmt.where(Concern.state == state)
    if kind:
        stmt = stmt.where(Concern.kind == kind)
    if priority:
        stmt = stmt.where(Concern.priority == priority)
    if originator_id:
        stmt = stmt.where(Concern.originator_id == originator_id)
    if target_person_id:
        stmt = stmt.where(Concern.target_person_id == target_person_id)
    if person_id:
        stmt = stmt.where(or_(Concern.originator_id == person_id, Concern.target_person_id == person_id))
    return page_by_time(
        uow.session,
        stmt,
        Concern.created_at,
        Concern.concern_id,
        limit=limit,
        cursor=cursor,
    )
