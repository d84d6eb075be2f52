"""What the core reads of the loops when it decides about someone's message (one read, plain records).

`waiting_on`: what the person owes an answer to (asked and reached, or escalated to them); `asked_by`: the open
questions a principal asked; `awaiting_name`: loops whose originator pressed "Ask someone else".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from concern import outbound, press_flows, service
from kernel.context import UnitOfWork


@dataclass(frozen=True)
class Waiting:
    """A loop waiting for the person's answer: as the person asked, or as its escalation's recipient."""

    concern_id: str
    originator_id: str
    question: str
    message_refs: tuple[str, ...]
    last_contact_at: datetime | None
    role: str = "target"  # target | escalation
    kind: str = "question"  # question | commitment


@dataclass(frozen=True)
class Loops:
    """The loops a message may be about."""

    waiting: tuple[Waiting, ...] = ()
    awaiting_name: tuple[tuple[str, str], ...] = ()  # (concern_id, question), newest last
    open_asks: tuple[tuple[str, str, str], ...] = ()  # (concern_id, target_person_id, question), oldest first


def loops_of(uow: UnitOfWork, *, person_id: str, principal: bool) -> Loops:
    """Everything the rules read about the loops of the person who wrote."""
    waiting = []
    declined = press_flows.declined_by(uow, person_id=person_id)
    for c in service.waiting_on(uow, person_id=person_id):
        if c.concern_id in declined:  # they pressed "Not me": their next text answers another question
            continue
        _, last = outbound.contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
        if last is None or c.kind == "reminder":  # held back, or their own reminder: nothing they say answers it
            continue
        waiting.append(Waiting(c.concern_id, c.originator_id, c.question, tuple(c.message_refs), last, kind=c.kind))
    for c in service.escalated_to(uow, person_id=person_id):  # their answer resolves the escalation
        refs = tuple(c.message_refs)
        waiting.append(Waiting(c.concern_id, c.originator_id, c.question, refs, c.escalated_at, role="escalation"))
    if not principal:
        return Loops(waiting=tuple(waiting))
    awaiting = tuple((c.concern_id, c.question) for c in press_flows.awaiting_name(uow, person_id=person_id))
    asks = tuple((c.concern_id, c.target_person_id, c.question) for c in service.asked_by(uow, person_id=person_id))
    return Loops(waiting=tuple(waiting), awaiting_name=awaiting, open_asks=asks)
