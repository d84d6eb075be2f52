"""A principal's learned phrasings: `phrasing` facts (learned, confirmed, removed) and the set read back from them.

A phrasing is the fact that taught it (`event: phrasing_learned`; its fact id is the phrasing's id): the principal,
the shape (`language.shapes`), the intent, the example (the message that was missed), how it was taught (`press`: a
did-you-mean button; `reword`: the request worded again and understood) and by which fact. A contact confirmed
through it adds `phrasing_confirmed`; removing it (the console) adds the tombstone `phrasing_removed`. Nothing else
is stored. The facts are read per process into a `Book` whose version is their count — facts are never deleted, so
every one appended moves it — and a copy read inside a transaction is kept only once that transaction commits.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select

from cognitive_core.language import learned, understood
from cognitive_core.situation import Missed, PersonView, Phrasing
from fact import service as facts
from fact.models import Fact, FactPersonRef
from kernel.context import AppContext, UnitOfWork

LEARNED, CONFIRMED, REMOVED = "phrasing_learned", "phrasing_confirmed", "phrasing_removed"
_COUNT = select(func.count()).select_from(Fact).where(Fact.fact_type == "phrasing")
_SEEN = "cognitive_core.phrasings.seen"  # this transaction's read, in its session's info
_ROWS = select(Fact.fact_id, Fact.timestamp, Fact.content).where(Fact.fact_type == "phrasing").order_by(Fact.pk)
LOOK_BACK = 40  # a principal's newest decisions searched for a miss (a minute's burst at most)
_NEWEST_DECISIONS = (  # built once: this runs for every message of a principal
    select(Fact.timestamp, Fact.content)
    .join(FactPersonRef, FactPersonRef.fact_pk == Fact.pk)
    .where(FactPersonRef.person_id == bindparam("person_id"), Fact.fact_type == "decision")
    .order_by(FactPersonRef.fact_pk.desc())
    .limit(LOOK_BACK)
)


@dataclass(frozen=True)
class Learned:
    """One of a principal's current phrasings: what `decide` reads, and what the console lists."""

    phrasing_id: str
    principal_id: str
    shape: str
    intent: str
    example: str
    how: str  # press | reword
    taught_at: datetime
    confirmed: bool = False

    @property
    def view(self) -> Phrasing:
        """The phrasing as the rules read it."""
        return Phrasing(self.phrasing_id, self.shape, self.intent, self.confirmed)


@dataclass(frozen=True)
class Read:
    """What the `phrasing` facts say: each principal's current phrasings (newest first), and the misses that taught."""

    current: dict[str, tuple[Learned, ...]]
    taught: frozenset[str]


def _read(uow: UnitOfWork) -> Read:
    rows = tuple(tuple(row) for row in uow.session.execute(_ROWS))
    taught = frozenset(content.get("missed") for _, _, content in rows if content.get("event") == LEARNED)
    return Read(current(rows), taught)


def current(rows: tuple) -> dict[str, tuple[Learned, ...]]:
    """Each principal's phrasings, newest first, from the `phrasing` facts in order (the removed left out)."""
    found: dict[str, Learned] = {}
    for fact_id, at, content in rows:
        event, phrasing_id = content.get("event"), content.get("phrasing_id")
        if event == LEARNED:
            found[fact_id] = Learned(
                fact_id, content["principal_id"], content["shape"], content["intent"], content.get("example", ""),
                content.get("how", ""), at,
            )  # fmt: skip
        elif event == CONFIRMED and phrasing_id in found:
            found[phrasing_id] = Learned(**{**found[phrasing_id].__dict__, "confirmed": True})
        elif event == REMOVED:
            found.pop(phrasing_id, None)
    by_principal: dict[str, list[Learned]] = {}
    for phrasing in reversed(found.values()):
        by_principal.setdefault(phrasing.principal_id, []).append(phrasing)
    return {principal: tuple(phrasings) for principal, phrasings in by_principal.items()}


class Book:
    """This process's copy of the `phrasing` facts, versioned by their count, and what they say."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count: int | None = None
        self._read = Read({}, frozenset())

    def read(self, uow: UnitOfWork) -> Read:
        """The phrasings as this transaction sees them (the copy when it is current, else read now); checked once
        per transaction until it writes a phrasing (a batch of signals is one transaction)."""
        if (seen := uow.session.info.get(_SEEN)) is not None:
            return seen
        count = uow.session.scalar(_COUNT)
        with self._lock:
            found = self._read if count == self._count else None
        if found is None:
            found = _read(uow)
            uow.after_commit(lambda: self._keep(count, found))  # a rolled-back read may have seen its own writes
        uow.session.info[_SEEN] = found
        return found

    def _keep(self, count: int, found: Read) -> None:
        with self._lock:
            self._count, self._read = count, found


def book(ctx: AppContext) -> Book:
    """This process's book over ctx's database (created on first use)."""
    with _create_lock:
        return ctx.shared.setdefault("cognitive_core.phrasings", Book())


_create_lock = threading.Lock()


def of(uow: UnitOfWork, *, principal_id: str, book: Book | None = None) -> tuple[Learned, ...]:
    """A principal's current phrasings, newest first."""
    return (book.read(uow) if book is not None else _read(uow)).current.get(principal_id, ())


def for_situation(
    uow: UnitOfWork, *, principal_id: str, book: Book | None = None
) -> tuple[tuple[Phrasing, ...], tuple[Missed, ...]]:
    """What `decide` reads for a principal's message: their phrasings, and their messages missed lately."""
    found = book.read(uow) if book is not None else _read(uow)
    phrasings = tuple(p.view for p in found.current.get(principal_id, ()))
    return phrasings, missed(uow, principal_id=principal_id, taught=found.taught)


def missed(uow: UnitOfWork, *, principal_id: str, taught: frozenset[str]) -> tuple[Missed, ...]:
    """The principal's messages the rules did not understand within `learned.WINDOW`, that taught nothing yet."""
    since = uow.now - learned.WINDOW
    decided: list[tuple[str, datetime, dict]] = []
    for at, content in uow.session.connection().execute(
        _NEWEST_DECISIONS, {"person_id": principal_id}
    ):  # unbuffered: the walk stops at the first older one
        if at < since:
            break
        inputs = content.get("inputs") or []
        if content.get("rule") in learned.MISSES and inputs and inputs[0] not in taught:
            decided.append((inputs[0], at, (content.get("requested") or [{}])[0]))
    if not decided:
        return ()
    said = {
        f.fact_id: f.content for f in uow.session.scalars(select(Fact).where(Fact.fact_id.in_([d[0] for d in decided])))
    }
    out = []
    for fact_id, at, requested in decided:
        content = said.get(fact_id) or {}
        text = content.get("text", "")
        hint = requested.get("hint") if requested.get("template") == "did_you_mean" else understood.hinted(text)
        mentions = tuple((m.get("external_user_id"), m.get("name", "")) for m in content.get("mentions", []))
        out.append(Missed(fact_id, text, at, hint, mentions))
    return tuple(out)


def learn(
    uow: UnitOfWork, *, principal_id: str, lesson: dict[str, Any], how: str, taught_by: str, causation_id: str
) -> str | None:
    """Record what a correction taught (once per missed message; not again while the same shape is current)."""
    if any(p.shape == lesson["shape"] for p in of(uow, principal_id=principal_id)):
        return None
    fact, created = facts.append(
        uow,
        fact_type="phrasing",
        source="cognitive_core",
        person_refs=[principal_id],
        causation_id=causation_id,
        dedup_key=f"phrasing:learned:{lesson['missed']}",
        content={"event": LEARNED, "principal_id": principal_id, **lesson, "how": how, "taught_by": taught_by},
    )
    uow.session.info.pop(_SEEN, None)  # the next read in this transaction sees it
    return fact.fact_id if created else None


def _tombstone(uow: UnitOfWork, event: str, *, principal_id: str, phrasing_id: str, **content: Any) -> bool:
    if not any(p.phrasing_id == phrasing_id for p in of(uow, principal_id=principal_id)):
        return False
    _, created = facts.append(
        uow,
        fact_type="phrasing",
        source="cognitive_core",
        person_refs=[principal_id],
        causation_id=phrasing_id,
        dedup_key=f"phrasing:{event.removeprefix('phrasing_')}:{phrasing_id}",
        content={"event": event, "principal_id": principal_id, "phrasing_id": phrasing_id, **content},
    )
    uow.session.info.pop(_SEEN, None)
    return created


def confirm(uow: UnitOfWork, *, principal_id: str, phrasing_id: str, press_fact_id: str) -> bool:
    """The first contact through a phrasing was confirmed: the next ones are carried out directly."""
    return _tombstone(uow, CONFIRMED, principal_id=principal_id, phrasing_id=phrasing_id, taught_by=press_fact_id)


def remove(uow: UnitOfWork, *, principal_id: str, phrasing_id: str) -> bool:
    """Forget one phrasing (its tombstone, by the unit of work's actor); False when it is not a current one."""
    return _tombstone(uow, REMOVED, principal_id=principal_id, phrasing_id=phrasing_id, actor=uow.actor)


def after_press(uow: UnitOfWork, *, button: Any, press: Fact, decision_id: str, people: tuple[PersonView, ...]) -> None:
    """A pressed did-you-mean teaches its message's phrasing; a confirmation's press confirms its phrasing."""
    args, presser_id = dict(button.args or {}), press.content.get("person_id")
    presser = next((p for p in people if p.person_id == presser_id), None)
    if presser is None or presser.role != "principal":
        return
    if args.get("phrasing_id"):
        confirm(uow, principal_id=presser.person_id, phrasing_id=args["phrasing_id"], press_fact_id=press.fact_id)
    message = facts.get(uow, fact_id=args["missed"]) if args.get("missed") else None
    if message is None or message.content.get("person_id") != presser.person_id:
        return
    content = message.content
    mentions = tuple((m.get("external_user_id"), m.get("name", "")) for m in content.get("mentions", []))
    lesson = learned.pressed(
        content.get("text", ""), verb=button.verb, args=args, people=people, speaker_id=presser.person_id,
        mentions=mentions,
    )  # fmt: skip
    if lesson is not None:
        lesson = {"missed": message.fact_id, **lesson}
        learn(
            uow,
            principal_id=presser.person_id,
            lesson=lesson,
            how="press",
            taught_by=press.fact_id,
            causation_id=decision_id,
        )
