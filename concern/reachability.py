"""What the reachability model reads about one person, gathered in one read (no writes), and its answer.

The pure model is `person.reachability.rules`; this collects its inputs: the person's policy, work state and
stand-in, their reachable channels (the preferred one first), today's proactive contacts (L1's cap, from the action
ledger) and the rhythm of their own answers (resolved loops of the last weeks).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action import ledger
from concern.models import Concern
from kernel.context import UnitOfWork
from person import service as persons
from person import work_state
from person.models import Person
from person.reachability.learning import LOOKBACK, Answered, Rhythm, learn
from person.reachability.models import LastContact, Reach, Situation
from person.reachability.rules import reach
from person.rules import local_day_bounds


@dataclass(frozen=True)
class Answer:
    """The model's answer about a person, with what it rests on."""

    person: Person
    tz: ZoneInfo
    reach: Reach
    rhythm: Rhythm


def rhythm_of(uow: UnitOfWork, *, person_id: str, tz: ZoneInfo, now: datetime) -> Rhythm:
    """The person's answering rhythm: their own answers to loops resolved in the last four weeks."""
    stmt = select(Concern.created_at, Concern.resolved_at).where(
        Concern.answered_by == person_id,
        Concern.target_person_id == person_id,
        Concern.resolved_at >= now - LOOKBACK,
        Concern.resolved_at <= now,
    )
    answers = [Answered(asked_at=asked, answered_at=done) for asked, done in uow.session.execute(stmt)]
    return learn(answers, tz=tz, now=now)


def channels_of(uow: UnitOfWork, *, person: Person) -> tuple[str, ...]:
    """The person's reachable bound channels, the preferred one first; none for a deactivated person."""
    if not person.active:
        return ()
    found: list[str] = []
    for binding in persons.bindings_of(uow, person_id=person.person_id):
        if binding.reachable and binding.channel not in found:
            found.append(binding.channel)
    preferred = persons.policy_of(person).preferred_channel
    return tuple(sorted(found, key=lambda c: c != preferred))


def situation(
    uow: UnitOfWork,
    *,
    person: Person,
    priority: str,
    kind: str,
    rhythm: Rhythm,
    last_contact: LastContact | None = None,
    latest: datetime | None = None,
) -> Situation:
    """The model's inputs about `person` now."""
    tz, state = ZoneInfo(person.timezone), work_state.read(person.work_state)
    stand_in = persons.get(uow, person_id=state.stand_in_id) if state.stand_in_id else None
    start, end = local_day_bounds(uow.now, tz)
    return Situation(
        now=uow.now,
        priority=priority,
        kind=kind,
        policy=persons.policy_of(person),
        tz=tz,
        channels=channels_of(uow, person=person),
        work_state=state,
        stand_in_name=stand_in.display_name if stand_in is not None else None,
        contacts_today=ledger.count_proactive(uow, person_id=person.person_id, start=start, end=end),
        answering_hours=rhythm.hours,
        last_contact=last_contact,
        latest=latest,
    )


def answer(uow: UnitOfWork, *, person_id: str, priority: str = "P2", kind: str = "follow_up") -> Answer:
    """Now or when, how and why a message of `priority` and `kind` would reach the person; NotFound if unknown."""
    person = persons.get_or_404(uow, person_id=person_id)
    tz = ZoneInfo(person.timezone)
    rhythm = rhythm_of(uow, person_id=person_id, tz=tz, now=uow.now)
    seen = situation(uow, person=person, priority=priority, kind=kind, rhythm=rhythm)
    return Answer(person=person, tz=tz, reach=reach(seen), rhythm=rhythm)
