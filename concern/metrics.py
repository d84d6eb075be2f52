"""What an on-call engineer reads about the loops: counts by state and kind, stuck loops, the outbox backlog.

The reads run at scrape time against the database (the truth every replica shares); the histogram of
time to answer is observed by the process that resolves a loop.
"""

from __future__ import annotations

from prometheus_client import Histogram
from sqlalchemy import Text, and_, cast, exists, func, literal, select

from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from kernel.context import UnitOfWork
from kernel.metrics import PROCESS_REGISTRY, Backlog

# Answers take minutes to days: buckets from a minute to a week.
_ANSWER_BUCKETS = (60, 300, 900, 1800, 3600, 4 * 3600, 12 * 3600, 86400, 2 * 86400, 3 * 86400, 7 * 86400)
TIME_TO_ANSWER = Histogram(
    "deputy_time_to_answer_seconds",
    "Seconds from raising a concern to its answer, by priority",
    ["priority"],
    buckets=_ANSWER_BUCKETS,
    registry=PROCESS_REGISTRY,
)


def observe_answer(uow: UnitOfWork, concern: Concern) -> None:
    """Count the loop's time from raise to resolve once its transaction commits."""
    seconds = max((uow.now - concern.created_at).total_seconds(), 0.0)
    uow.after_commit(lambda: TIME_TO_ANSWER.labels(concern.priority).observe(seconds))


def stuck_clause():
    """The one definition of a stuck loop: active, with neither a timer, a held delivery, nor a queued send.

    `deputy_stuck_concerns` and the simulation's invariant both read it; it must always match nothing.
    """
    queued = exists().where(and_(OutboxEntry.concern_id == Concern.concern_id, OutboxEntry.state == "open"))
    # A bundle's entry names its first loop; the others are in its request's `concerns` (ids are quoted there).
    request_text = cast(OutboxEntry.request, Text)
    carried = exists().where(
        and_(
            OutboxEntry.purpose == "bundle",
            OutboxEntry.state == "open",
            request_text.like(literal('%"') + Concern.concern_id + literal('"%')),
        )
    )
    return and_(
        Concern.state.in_(ACTIVE_STATES),
        Concern.next_follow_up_at.is_(None),
        func.coalesce(func.json_array_length(Concern.pending_deliveries), 0) == 0,
        ~queued,
        ~carried,
    )


def stuck(uow: UnitOfWork) -> list[Concern]:
    """Stuck loops (see `stuck_clause`), oldest first."""
    return list(uow.session.scalars(select(Concern).where(stuck_clause()).order_by(Concern.concern_id)))


def count_by_state_and_kind(uow: UnitOfWork) -> dict[tuple[str, str], int]:
    """{(state, kind): number of concerns}."""
    stmt = select(Concern.state, Concern.kind, func.count()).group_by(Concern.state, Concern.kind)
    return {(state, kind): n for state, kind, n in uow.session.execute(stmt)}


def outbox_backlog(uow: UnitOfWork) -> Backlog:
    """Open outbox entries; the oldest is counted from when it became available to a drainer.

    An entry waiting for its pacing slot, a held /tell's moment or a live claim's lease is not late yet.
    """
    pending = uow.session.scalar(select(func.count()).where(OutboxEntry.state == "open")) or 0
    oldest = uow.session.scalar(
        select(func.min(OutboxEntry.available_at)).where(
            OutboxEntry.state == "open", OutboxEntry.available_at <= uow.now
        )
    )
    return Backlog(pending, oldest)
