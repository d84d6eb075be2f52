"""Append to and query the fact log. There is deliberately no update or delete."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, true
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased
from sqlalchemy.sql import Select

from fact import one_statement, search
from fact.models import Fact, FactOut, FactPersonRef, FactSource, FactType
from kernel.context import UnitOfWork
from kernel.ids import allocate, allocate_many
from kernel.limits import bad_text, storable_data
from kernel.pagination import page_by_key

log = logging.getLogger("deputy.fact")

MAX_LIMIT = 500
_INSERT_FACT = insert(Fact.__table__).returning(Fact.__table__.c.pk)
_INSERT_REF = insert(FactPersonRef.__table__)
_INSERT_KEYED = {
    dialect: module.insert(Fact.__table__)
    .on_conflict_do_nothing(index_elements=["dedup_key"])
    .returning(Fact.__table__.c.pk)
    for dialect, module in (("postgresql", postgresql), ("sqlite", sqlite))
}


def _insert_keyed(postgres: bool) -> Any:
    """`INSERT … ON CONFLICT (dedup_key) DO NOTHING RETURNING pk` in the database's dialect."""
    return _INSERT_KEYED["postgresql" if postgres else "sqlite"]


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
    fresh_key: bool = False,
) -> tuple[Fact, bool]:
    """Append one fact in the caller's transaction; returns (fact, created).

    With `dedup_key`, a fact already recorded under that key is returned instead
    (created=False), also when a concurrent writer wins the race. `fresh_key`: the key names an id allocated in
    this transaction, so nothing can be recorded under it yet and it is not looked up first.
    """
    fact_type, source = FactType(fact_type).value, FactSource(source).value
    content = _storable(fact_type, source, content)
    refs = list(dict.fromkeys(person_refs))
    if dedup_key is not None and not fresh_key:
        existing = get_by_dedup_key(uow, dedup_key=dedup_key)
        if existing is not None:
            return existing, False
    if dedup_key is None:
        return _insert(uow, fact_type, source, content, refs, causation_id, None, timestamp), True
    # A concurrent writer may record the key between the read and this insert: ON CONFLICT DO NOTHING returns no
    # row then, and the fact it wrote is returned (no savepoint: two statements fewer per keyed fact; the race
    # costs one seq of the day, which SPEC §3.1 allows).
    fact = _insert(uow, fact_type, source, content, refs, causation_id, dedup_key, timestamp)
    if fact is not None:
        return fact, True
    existing = get_by_dedup_key(uow, dedup_key=dedup_key)
    if existing is None:
        raise RuntimeError(f"fact {dedup_key!r} conflicted but cannot be read")
    return existing, False


def _storable(fact_type: str, source: str, content: dict[str, Any]) -> dict[str, Any]:
    if (found := bad_text(content)) is not None:
        # Every door screens (kernel.limits); text reaching the log unscreened is kept, made storable, not lost
        # to a DataError on PostgreSQL (or stored with a NUL on SQLite), and the door that missed it is named.
        log.warning("unstorable text in a %s fact from %s at %s: %s", fact_type, source, *found)
        return storable_data(content)
    return content


@dataclass(frozen=True)
class NewFact:
    """One fact for `append_many` (the arguments of `append`)."""

    fact_type: FactType | str
    source: FactSource | str
    content: dict[str, Any]
    person_refs: tuple[str, ...] = ()
    dedup_key: str | None = None
    timestamp: datetime | None = None
    causation_id: str | None = None


def append_many(uow: UnitOfWork, *, facts: list[NewFact]) -> list[tuple[Fact, bool]]:
    """Append facts in the caller's transaction, a statement per table for the lot (one in all on PostgreSQL);
    (fact, created) each, in order.

    As `append` one at a time: a keyed fact already recorded (earlier, by a concurrent writer, or earlier in
    `facts`) is returned with created=False.
    """
    keys = [f.dedup_key for f in facts if f.dedup_key is not None]
    # SQLite reads the keys first (its inserts are three statements anyway); PostgreSQL's one statement skips a
    # taken key itself, and reads back only the keys it did not write (a repeat is rare: the ack de-duplicates).
    read_first = bool(keys) and not uow.postgres
    known = (
        {f.dedup_key: f for f in uow.session.scalars(select(Fact).where(Fact.dedup_key.in_(keys)))}
        if read_first
        else {}
    )
    fresh: dict[int, dict[str, Any]] = {}  # position in `facts` → the row to insert
    taken = set(known)
    for i, new in enumerate(facts):
        if new.dedup_key is not None and new.dedup_key in taken:
            continue
        taken.add(new.dedup_key)
        fact_type, source = FactType(new.fact_type).value, FactSource(new.source).value
        fresh[i] = {
            "fact_type": fact_type,
            "source": source,
            "person_refs": list(dict.fromkeys(new.person_refs)),
            "content": _storable(fact_type, source, new.content),
            "timestamp": new.timestamp or uow.now,
            "causation_id": new.causation_id,
            "dedup_key": new.dedup_key,
        }
    ids = allocate_many(uow.session, "fact", len(fresh), now=uow.now, tz=uow.tz)
    for values, fact_id in zip(fresh.values(), ids, strict=True):
        values["fact_id"] = fact_id
    written = _insert_rows(uow, list(fresh.values())) if fresh else {}
    if keys and not read_first:  # PostgreSQL: the keys its statement did not write, read once
        missing = [
            k for i, f in enumerate(facts) if (k := f.dedup_key) and fresh.get(i, {}).get("fact_id") not in written
        ]
        if missing:
            known = {f.dedup_key: f for f in uow.session.scalars(select(Fact).where(Fact.dedup_key.in_(missing)))}
    out: list[tuple[Fact, bool]] = []
    for i, new in enumerate(facts):
        if i in fresh and fresh[i]["fact_id"] in written:
            out.append((written[fresh[i]["fact_id"]], True))
            continue
        found = known.get(new.dedup_key) if new.dedup_key is not None else None
        found = found or (get_by_dedup_key(uow, dedup_key=new.dedup_key) if new.dedup_key is not None else None)
        if found is None:  # a concurrent writer's fact under the key (ON CONFLICT), read now
            raise RuntimeError(f"fact {new.dedup_key!r} conflicted but cannot be read")
        out.append((found, False))
    return out


def _insert_rows(uow: UnitOfWork, rows: list[dict[str, Any]]) -> dict[str, Fact]:
    """Insert fact rows (keyed ones once), their person refs and search rows: one statement each (one in all on
    PostgreSQL); by fact id."""
    if uow.postgres:
        bodies = {r["fact_id"]: body for r in rows if (body := search.body_of(r["fact_type"], r["content"]))}
        pks = one_statement.append_many(uow.session, rows, bodies=bodies)
        return {row["fact_id"]: Fact(pk=pks[row["fact_id"]], **row) for row in rows if row["fact_id"] in pks}
    stmt = _insert_keyed(uow.postgres).returning(Fact.__table__.c.fact_id)
    by_id = {row["fact_id"]: row for row in rows}
    written = {fact_id: Fact(pk=pk, **by_id[fact_id]) for pk, fact_id in uow.session.execute(stmt, rows)}
    refs = [{"fact_pk": f.pk, "person_id": p} for f in written.values() for p in f.person_refs]
    if refs:
        uow.session.execute(_INSERT_REF, refs)
    search.index(uow.session.connection(), [(f.pk, f.fact_type, f.content) for f in written.values()])
    return written


def _insert(
    uow: UnitOfWork,
    fact_type: str,
    source: str,
    content: dict[str, Any],
    refs: list[str],
    causation_id: str | None,
    dedup_key: str | None,
    timestamp: datetime | None,
) -> Fact | None:
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
    if uow.postgres:  # one round trip for the fact, its refs and its search row
        pk = one_statement.append(uow.session, values, refs=refs, body=search.body_of(fact_type, content))
        return None if pk is None else Fact(pk=pk, **values)
    stmt = _INSERT_FACT if dedup_key is None else _insert_keyed(uow.postgres)
    pk = uow.session.execute(stmt, values).scalar_one_or_none()
    if pk is None:  # only a keyed insert can find its key taken
        return None
    if refs:
        uow.session.execute(_INSERT_REF, [{"fact_pk": pk, "person_id": p} for p in refs])
    search.index(uow.session.connection(), [(pk, fact_type, content)])
    return Fact(pk=pk, **values)


_BY_ID = select(Fact).where(Fact.fact_id == bindparam("fact_id"))


def get(uow: UnitOfWork, *, fact_id: str) -> Fact | None:
    """The fact with this id, or None."""
    return uow.session.scalars(_BY_ID, {"fact_id": fact_id}).first()


def get_many(uow: UnitOfWork, *, fact_ids: list[str]) -> dict[str, Fact]:
    """The facts with these ids that exist, by id (one statement)."""
    if not fact_ids:
        return {}
    return {f.fact_id: f for f in uow.session.scalars(select(Fact).where(Fact.fact_id.in_(fact_ids)))}


def get_by_dedup_key(uow: UnitOfWork, *, dedup_key: str) -> Fact | None:
    """The fact recorded under an idempotency key, or None."""
    return uow.session.scalars(select(Fact).where(Fact.dedup_key == dedup_key)).first()


def id_by_dedup_key(uow: UnitOfWork, *, dedup_key: str) -> str | None:
    """The id of the fact recorded under an idempotency key, or None (the row itself is not read)."""
    return uow.session.scalars(select(Fact.fact_id).where(Fact.dedup_key == dedup_key)).first()


def list_(
    uow: UnitOfWork, *, filters: FactFilter, limit: int = 50, cursor: str | None = None
) -> tuple[list[Fact], str | None]:
    """Facts matching `filters`, newest first, and the cursor of the next page (or None).

    One index drives the walk, newest first, until the page is full, and the other filters check each row it
    yields: the person's `(person_id, fact_pk)` index for `person_id` (so the cost is the person's facts, never
    everyone's traffic), else the search index for `q`, else the facts themselves.
    """
    limit = max(1, min(limit, MAX_LIMIT))
    checks = []
    if filters.fact_type:
        checks.append(Fact.fact_type == filters.fact_type)
    if filters.since:
        checks.append(Fact.timestamp >= filters.since)
    if filters.until:
        checks.append(Fact.timestamp < filters.until)
    if filters.causation_id:
        checks.append(Fact.causation_id == filters.causation_id)
    if filters.person_id:
        if filters.q:
            checks.append(search.contains(filters.q))
        stmt, key = _by_person(filters.person_id, checks, postgres=uow.postgres), FactPersonRef.fact_pk
    elif filters.q and uow.postgres:
        return search.page_postgres(uow.session, select(Fact).where(*checks), filters.q, limit=limit, cursor=cursor)
    else:
        stmt, key = select(Fact).where(*checks), Fact.pk
        if filters.q:
            stmt, key = search.narrow(stmt, filters.q, postgres=False)
    return page_by_key(uow.session, stmt, key, limit=limit, cursor=cursor, attr="pk")


def _by_person(person_id: str, checks: list[Any], *, postgres: bool) -> Select:
    """The person's facts, to be walked in `(person_id, fact_pk)` index order, each row checked against `checks`."""
    mine = FactPersonRef.person_id == person_id
    if not postgres:  # SQLite's planner walks the index for the ORDER BY and looks each fact up by pk
        return select(Fact).join(FactPersonRef, FactPersonRef.fact_pk == Fact.pk).where(mine, *checks)
    # PostgreSQL cannot see that pk order is time order: for a time window it would hash-join the whole window.
    # A LATERAL subquery with OFFSET 0 is not flattened, so it runs per index entry, and the LIMIT stops the walk.
    fact = select(Fact).where(Fact.pk == FactPersonRef.fact_pk, *checks).offset(0).lateral("fact")
    return select(aliased(Fact, fact)).select_from(FactPersonRef).join(fact, true()).where(mine)


def to_out(fact: Fact, *, uow: UnitOfWork) -> FactOut:
    """The API shape of a fact, its timestamp in the deployment timezone."""
    out = FactOut.model_validate(fact)
    out.timestamp = fact.timestamp.astimezone(uow.tz)
    return out
