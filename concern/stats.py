"""Read models of the loops for operators (the console's overview): open loops, held and stuck deliveries, backlog.

Reads only; every query is bounded by an index or by the active-loop limits (DEPUTY_MAX_ACTIVE_CONCERNS).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from concern import holds
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from kernel.context import UnitOfWork


@dataclass(frozen=True)
class Backlog:
    """Queued actions: ready now, waiting for a later moment (pacing slot, held tell), set aside as failed."""

    ready: int
    later: int
    failed: int
    oldest_ready_at: datetime | None


def count_open(uow: UnitOfWork) -> Counter[tuple[str, str]]:
    """Active loops by (state, kind)."""
    stmt = (
        select(Concern.state, Concern.kind, func.count())
        .where(Concern.state.in_(ACTIVE_STATES))
        .group_by(Concern.state, Concern.kind)
    )
    return Counter({(state, kind): n for state, kind, n in uow.session.execute(stmt)})


def with_timer(uow: UnitOfWork, *, limit: int = 500) -> list[Concern]:
    """Loops with a timer (a step to take or a held delivery), the most overdue first."""
    stmt = (
        select(Concern).where(Concern.next_follow_up_at.is_not(None)).order_by(Concern.next_follow_up_at).limit(limit)
    )
    return list(uow.session.scalars(stmt))


@dataclass(frozen=True)
class Held:
    """A delivery waiting for its moment on its loop: the question or follow-up itself, or a deferred one."""

    concern: Concern
    purpose: str
    target_person_id: str
    held_by: str | None  # quiet_hours | pause | cap | away | busy (None: a refusal retried later)
    until: datetime


def held_on(concern: Concern) -> list[Held]:
    """What waits on one loop, earliest first."""
    found = []
    own_until = concern.held_until or concern.step_at  # open-ended (leave with no end): when it is looked at again
    if concern.held_by and own_until is not None:
        purpose = "question" if concern.follow_up_count == 0 and not concern.message_refs else "follow_up"
        found.append(Held(concern, purpose, concern.target_person_id, concern.held_by, own_until))
    for item in concern.pending_deliveries:
        target = (item.get("request") or {}).get("target_person_id") or concern.originator_id
        until = datetime.fromisoformat(item["not_before"])
        found.append(Held(concern, item["purpose"], target, holds.held_by(item.get("blocked_by")), until))
    return sorted(found, key=lambda h: h.until)


def held(uow: UnitOfWork, *, limit: int = 500) -> list[Held]:
    """Deliveries held back on their loops (questions and follow-ups included), earliest first."""
    return sorted((h for c in with_timer(uow, limit=limit) for h in held_on(c)), key=lambda h: h.until)


def overdue(uow: UnitOfWork, *, now: datetime, grace: timedelta) -> list[Concern]:
    """Loops whose timer passed more than `grace` ago: no processor is taking them (stuck)."""
    stmt = (
        select(Concern)
        .where(Concern.next_follow_up_at.is_not(None), Concern.next_follow_up_at < now - grace)
        .order_by(Concern.next_follow_up_at)
        .limit(100)
    )
    return list(uow.session.scalars(stmt))


def answer_times(uow: UnitOfWork, *, since: datetime) -> list[timedelta]:
    """How long each loop answered since `since` waited for its answer."""
    stmt = select(Concern.created_at, Concern.resolved_at).where(
        Concern.state == "resolved", Concern.resolved_at.is_not(None), Concern.resolved_at >= since
    )
    return [resolved - created for created, resolved in uow.session.execute(stmt)]


def backlog(uow: UnitOfWork, *, now: datetime) -> Backlog:
    """The action outbox: open entries ready now or later, and the ones set aside as failed."""

    def count(*where: Any) -> int:
        return uow.session.scalar(select(func.count()).select_from(OutboxEntry).where(*where)) or 0

    is_open, due = OutboxEntry.state == "open", OutboxEntry.available_at <= now
    oldest = uow.session.scalar(select(func.min(OutboxEntry.available_at)).where(is_open, due))
    return Backlog(
        ready=count(is_open, due),
        later=count(is_open, OutboxEntry.available_at > now),
        failed=count(OutboxEntry.state == "failed"),
        oldest_ready_at=oldest,
    )


def opened(uow: UnitOfWork, *, since: datetime) -> int:
    """How many loops were opened since `since`."""
    return uow.session.scalar(select(func.count()).select_from(Concern).where(Concern.created_at >= since)) or 0
