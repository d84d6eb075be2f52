"""Append to and query the fact log. There is deliberately no update or delete."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import String, cast, insert, select
from sqlalchemy.exc import IntegrityError

from fact.models import Fact, FactOut, FactPersonRef, FactSource, FactType
from kernel.context import UnitOfWork
from kernel.ids import allocate
from kernel.pagination import like_pattern, page_by_key

MAX_LIMIT = 500
_INSERT_FACT = insert(Fact.__table__).returning(Fact.__table__.c.pk)
_INSERT_REF = insert(FactPersonRef.__table__)


@dataclass(frozen=True)
class FactFilter:
    """Query parameters of `GET /v1/facts`."""

    fact_type: str | None = None
    person_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    causation_id: str | None = None
    q: str | None = None


def append(
    uow: UnitOfWork,
    *,
    fact_type: FactType | str,
    source: FactSource | str,
    content: dict[str, Any],
    person_refs: Iterable[str] = (),
    causation_id: str | None = None,
    dedup_key: str | None = None,
    timestamp: datetime | None = None,
) -> tuple[Fact, bool]:
    """Append one fact in the caller's transaction; returns (fact, created).

    With `dedup_key`, a fact already recorded under that key is returned instead
    (created=False), also when a concurrent writer wins the race.
    """
    fact_type, source = FactType(fact_type).value, FactSource(source).value
    refs = list(dict.fromkeys(person_refs))
    if dedup_key is not None:
        existing = get_by_dedup_key(uow, dedup_key=dedup_key)
        if existing is not None:
            return existing, False
    if dedup_key is None:
        return _insert(uow, fact_type, source, content, refs, causation_id, None, timestamp), True
    try:
        # The savepoint also rolls back the id counter, keeping each day's seq contiguous.
        with uow.session.begin_nested():
            fact = _insert(uow, fact_type, source, content, refs, causation_id, dedup_key, timestamp)
    except IntegrityError:
        existing = get_by_dedup_key(uow, dedup_key=dedup_key)
        if existing is None:
            raise
        return existing, False
    return fact, True


def _insert(
    uow: UnitOfWork,
    fact_type: str,
    source: str,
    content: dict[str, Any],
    refs: list[str],
    causation_id: str | None,
    dedup_key: str | None,
    timestamp: datetime | None,
) -> Fact:
    # Core inserts: the log is write-heavy and never updated, so the ORM unit of work buys nothing here.
    values = {
        "fact_id": allocate(uow.session, "fact", now=uow.now, tz=uow.tz),
        "fact_type": fact_type,
        "source": source,
        "person_refs": refs,
        "content": content,
        "timestamp": timestamp or uow.now,
        "causation_id": causation_id,
        "dedup_key": dedup_key,
    }
    pk = uow.session.execute(_INSERT_FACT, values).scalar_one()
    if refs:
        uow.session.execute(_INSERT_REF, [{"fact_pk": pk, "person_id": p} for p in refs])
    return Fact(pk=pk, **values)


def get(uow: UnitOfWork, *, fact_id: str) -> Fact | None:
    """The fact with this id, or None."""
    return uow.session.scalars(select(Fact).where(Fact.fact_id == fact_id)).first()


def get_by_dedup_key(uow: UnitOfWork, *, dedup_key: str) -> Fact | None:
    """The fact recorded under an idempotency key, or None."""
    return uow.session.scalars(select(Fact).where(Fact.dedup_key == dedup_key)).first()


def list_(
    uow: UnitOfWork, *, filters: FactFilter, limit: int = 50, cursor: str | None = None
) -> tuple[list[Fact], str | None]:
    """Facts matching `filters`, newest first, and the cursor of the next page (or None)."""
    limit = max(1, min(limit, MAX_LIMIT))
    stmt = select(Fact)
    if filters.person_id:
        stmt = stmt.join(FactPersonRef, FactPersonRef.fact_pk == Fact.pk).where(
            FactPersonRef.person_id == filters.person_id
        )
    if filters.fact_type:
        stmt = stmt.where(Fact.fact_type == filters.fact_type)
    if filters.since:
        stmt = stmt.where(Fact.timestamp >= filters.since)
    if filters.until:
        stmt = stmt.where(Fact.timestamp < filters.until)
    if filters.causation_id:
        stmt = stmt.where(Fact.causation_id == filters.causation_id)
    if filters.q:
        stmt = stmt.where(cast(Fact.content, String).ilike(like_pattern(filters.q), escape="\\"))
    return page_by_key(uow.session, stmt, Fact.pk, limit=limit, cursor=cursor)


def to_out(fact: Fact, *, uow: UnitOfWork) -> FactOut:
    """The API shape of a fact, its timestamp in the deployment timezone."""
    out = FactOut.model_validate(fact)
    out.timestamp = fact.timestamp.astimezone(uow.tz)
    return out
