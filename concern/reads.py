"""What the core reads of the loops when it decides about someone's message (one read, plain records).

`waiting`: what the person owes an answer to (asked and reached, or escalated to them); `open_asks`: the open
questions a principal asked; `awaiting_name`: loops whose originator pressed "Ask someone else".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, literal_column, select, union_all

from action.models import ButtonRow
from concern import outbound, press_flows
from concern.models import ACTIVE_STATES, Concern
from concern.queries import reached
from kernel.context import UnitOfWork

AWAITING_NAME_FOR = timedelta(days=1)  # an unanswered "Ask someone else" prompt stands this long
MAX_OPEN_ASKS = 50


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
    """Everything the rules read about the loops of the person who wrote (two statements)."""
    waiting = []
    declined = press_flows.declined_by(uow, person_id=person_id)
    roles = _involving(uow, person_id=person_id, principal=principal)
    for c in roles["target"]:
        if c.concern_id in declined:  # they pressed "Not me": their next text answers another question
            continue
        _, last = outbound.contact_times(uow, concern_id=c.concern_id, person_id=c.target_person_id)
        if last is None or c.kind == "reminder":  # held back, or their own reminder: nothing they say answers it
            continue
        waiting.append(Waiting(c.concern_id, c.originator_id, c.question, tuple(c.message_refs), last, kind=c.kind))
    for c in roles["escalation"]:  # their answer resolves the escalation
        refs = tuple(c.message_refs)
        waiting.append(Waiting(c.concern_id, c.originator_id, c.question, refs, c.escalated_at, role="escalation"))
    if not principal:
        return Loops(waiting=tuple(waiting))
    awaiting = tuple((c.concern_id, c.question) for c in roles["awaiting"])
    asks = tuple((c.concern_id, c.target_person_id, c.question) for c in roles["asker"][:MAX_OPEN_ASKS])
    return Loops(waiting=tuple(waiting), awaiting_name=awaiting, open_asks=asks)


def _involving_statement(*, principal: bool) -> Any:
    """The statement `_involving` runs, built once per shape (building it is most of its cost)."""
    person, since = bindparam("person_id"), bindparam("since")
    active = Concern.state.in_(ACTIVE_STATES)
    parts: list[Any] = [
        select(Concern.concern_id, literal_column("'target'").label("role"), Concern.created_at.label("at")).where(
            Concern.target_person_id == person, active
        ),
        select(Concern.concern_id, literal_column("'escalation'"), Concern.created_at).where(
            Concern.state == "escalated",
            (Concern.escalated_to == person) | Concern.concern_id.in_(reached(person)),
        ),
    ]
    if principal:
        parts.append(
            select(Concern.concern_id, literal_column("'asker'"), Concern.created_at).where(
                Concern.originator_id == person, Concern.kind == "question", active
            )
        )
        parts.append(
            select(ButtonRow.concern_id, literal_column("'awaiting'"), ButtonRow.created_at).where(
                ButtonRow.verb == press_flows.AWAIT_NAME,
                ButtonRow.addressee_id == person,
                ButtonRow.pressed_at.is_(None),
                ButtonRow.created_at > since,
            )
        )
    part = union_all(*parts).subquery()
    return (
        select(Concern, part.c.role)
        .join(part, part.c.concern_id == Concern.concern_id)
        .where(active)
        .order_by(part.c.at, Concern.concern_id)
    )


_INVOLVING = {principal: _involving_statement(principal=principal) for principal in (False, True)}


def _involving(uow: UnitOfWork, *, person_id: str, principal: bool) -> dict[str, list[Concern]]:
    """The open loops by the person's part in them, in one statement, each part oldest first: `target` (they owe
    the answer), `escalation` (it reached them), and for a principal `asker` (their open questions) and `awaiting`
    (they pressed "Ask someone else" within a day and named nobody yet; ordered by that prompt)."""
    roles: dict[str, list[Concern]] = {"target": [], "escalation": [], "asker": [], "awaiting": []}
    params = {"person_id": person_id, "since": uow.now - AWAITING_NAME_FOR}
    for concern, role in uow.session.execute(_INVOLVING[principal], params):
        roles[role].append(concern)
    return roles
