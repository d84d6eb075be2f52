"""The recipient's side of a proactive message: "why am I getting this?", read from the fact log's causal chain and
the loop, never changing anything; and "too many messages", one step less of the person's own interaction policy,
recorded as their own change and named for the brief of whoever asked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action.ledger import contacts
from concern import commands as c
from concern import schedule, service
from concern.models import ACTIVE_STATES, Concern
from concern.outcomes import Done, Outcome, Unchanged
from concern.texts import why as texts
from fact import trace
from kernel.context import UnitOfWork
from person import service as persons
from person.models import InteractionPolicyPatch
from person.rules import eased


@dataclass(frozen=True)
class Asked:
    """Who asked for a message and when."""

    by: str | None
    at: datetime


def asked(uow: UnitOfWork, *, concern_id: str | None, decision_id: str | None) -> Asked:
    """Who asked and when: the loop's originator (a promise's: its question's), at the signal its chain of causes
    starts from (`fact.trace`: the message or press that asked, or the external signal); a loop raised through the
    API has no signal and dates from its own record."""
    concern = service.get(uow, concern_id=concern_id) if concern_id else None
    if concern is not None and concern.kind == "commitment" and concern.parent_id:
        concern = service.get(uow, concern_id=concern.parent_id) or concern
    ref = concern.concern_id if concern is not None else decision_id
    chain = trace.causes(uow, refs=[ref]) if ref else []
    signals = [step["fact"] for step in chain if step["kind"] == "signal"]
    root = signals[-1] if signals else (chain[-1]["fact"] if chain else None)
    if concern is not None:
        return Asked(concern.originator_id, root.timestamp if root is not None else concern.created_at)
    return Asked(signals[-1].content.get("person_id") if signals else None, root.timestamp if root else uow.now)


def _name(uow: UnitOfWork, person_id: str | None) -> str:
    person = persons.get(uow, person_id=person_id) if person_id else None
    return person.display_name if person is not None else "-"


def _next(uow: UnitOfWork, concern: Concern, kind: str, reader_id: str) -> dict[str, Any]:
    """What comes next for the reader: a reminder, the escalation (to whom), a repeat of the escalation, or nothing."""
    if concern.state not in ACTIVE_STATES:
        return {"closed": True}
    if kind == "escalation":
        mine = concern.state == "escalated" and concern.escalated_to == reader_id and concern.acknowledged_at is None
        if mine and concern.escalation_repeats < 1 and concern.step_at is not None:
            return {"next_kind": "repeat", "next_at": concern.step_at}
        return {}
    if concern.state != "waiting_reply" or concern.target_person_id != reader_id:
        return {}  # escalated: the person asked gets no more reminders about it
    step = schedule.planned(uow, concern)
    at = concern.step_at or step.at  # the timer as it stands (a snooze or a hold moved it)
    if step.kind != "escalate":
        return {"next_kind": "follow_up", "next_at": at}
    target = persons.get(uow, person_id=concern.target_person_id)
    manager = target.manager_id if target is not None else None
    return {"next_kind": "escalation", "next_at": at, "manager": _name(uow, manager)} if manager else {}


def explain(uow: UnitOfWork, *, command: c.Explain, reader: Any, minted_at: datetime) -> str:
    """The answer to "why this?" for `reader`, in their language and timezone; `minted_at`: when the message's
    buttons were made, so the loop's contacts before it say which follow-up it is."""
    concern = service.get(uow, concern_id=command.concern_id) if command.concern_id else None
    origin = asked(uow, concern_id=command.concern_id, decision_id=command.decision_id)
    kind, values = command.purpose, {}
    if concern is not None:
        earlier = contacts(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
        number = sum(1 for t in earlier if t < minted_at)
        if kind == "follow_up" and number == 0:
            kind = "question"
        values = {"text": concern.question, "number": number, "target": _name(uow, concern.target_person_id)}
        values |= _next(uow, concern, kind, reader.person_id)
    why = texts.Why(kind=kind, asker=_name(uow, origin.by), asked_at=origin.at, **values)
    return texts.explain(why, reader.locale, tz=ZoneInfo(reader.timezone), now=uow.now)


def fewer(uow: UnitOfWork, *, command: c.FewerMessages, person_id: str, decision_id: str) -> Outcome:
    """ "Too many messages": the person's own daily cap one lower, or (at its floor) their follow-ups spaced further
    (`person.rules.eased`); a `person_changed` fact whose actor is the person, naming the principal who asked, whose
    next brief says so. At both limits nothing changes and the person hears how to pause instead."""
    person = persons.get_or_404(uow, person_id=person_id)
    step = eased(persons.policy_of(person))
    if step is None:
        return Unchanged("fewer_at_most", concern_id=command.concern_id, text=texts.fewer(None, None, person.locale))
    origin = asked(uow, concern_id=command.concern_id, decision_id=command.decision_id)
    asker = persons.get(uow, person_id=origin.by) if origin.by and origin.by != person_id else None
    tell = asker if asker is not None and asker.role == "principal" and asker.active else None
    value = int(step.after) if step.field == "max_proactive_contacts_per_day" else step.after
    about = {"concern_id": command.concern_id, "message": command.message, "decision_id": decision_id}
    persons.patch_policy(
        uow,
        person_id=person_id,
        patch=InteractionPolicyPatch.model_validate({step.field: value}),
        source="person",
        actor=person_id,
        extra={"reason": "too_many_messages", "field": step.field, "tell": tell.person_id if tell else None, **about},
        refs=(tell.person_id,) if tell else (),
    )
    if step.field == "follow_up_stretch":
        _replan(uow, person_id=person_id, decision_id=decision_id)
    briefed = tell is not None and persons.policy_of(tell).daily_brief_at is not None
    said = texts.fewer(step.field, value, person.locale, told=tell.display_name if briefed else None)
    return Done("fewer", {"field": step.field, "after": value}, concern_id=command.concern_id, text=said)


def _replan(uow: UnitOfWork, *, person_id: str, decision_id: str) -> None:
    """The loops waiting on the person take their longer waits now, not at their next timer (never sooner)."""
    waiting = select(Concern).where(Concern.target_person_id == person_id, Concern.state == "waiting_reply")
    for concern in uow.session.scalars(waiting.order_by(Concern.created_at, Concern.concern_id)):
        if concern.kind == "reminder" or concern.step_at is None:
            continue
        step = schedule.planned(uow, concern)
        if step.kind != "question" and step.at > concern.step_at:
            extra = {"reason": "follow_up_stretch"}
            service.change(uow, concern, change="rescheduled", causation_id=decision_id, step_at=step.at, extra=extra)
