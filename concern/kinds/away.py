"""Nobody away gets a proactive message below P0: a passed-on message, a routed notice or an operator's
notification waits for their return.

Loops already ask the reachability model before contacting their target (concern/reachability.py `gate`); this is
the same rule for the outbox's other proactive messages. The drainer (or the request that queued an operator's
notification), having claimed such an entry, holds it instead of running it: the entry stays open with
`available_at` at the person's return (an open-ended absence is looked at again every RECHECK), an `away_held`
fact says so once, and whoever passed the message on hears that it waits (once); an operator's notification is
answered with its action, pending and `held_by` away, judged by L1-L4 when it goes. A P0, a reply and anything
solicited go as before. When the person is back (`back`), what was held is due at once.
"""

from __future__ import annotations

from datetime import timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import select

from action import service as actions
from action.models import ActionRequest
from concern import outbound, queue, reachability, service
from concern.models import ACTIVE_STATES, Concern, OutboxEntry
from concern.queue import Purpose
from concern.texts import reach as texts
from fact import service as facts
from kernel.context import UnitOfWork
from kernel.moments import when
from person import service as persons
from person import work_state

HELD_PURPOSES = frozenset({Purpose.tell.value, Purpose.notice.value, Purpose.notification.value})
RECHECK_HOURS = 6
RELEASE_SPACING = timedelta(minutes=10)  # between the questions that waited for someone, once they are back


def holds(request: ActionRequest, *, purpose: str) -> bool:
    """True when this kind of message waits for someone away (proactive, below P0, a tell or a notice)."""
    return purpose in HELD_PURPOSES and request.priority != "P0" and not (request.reactive or request.solicited)


def hold(uow: UnitOfWork, entry: OutboxEntry) -> bool:
    """Hold a claimed entry while its person is away (in the claim's transaction); False when it goes out now."""
    request = ActionRequest.model_validate(entry.request)
    if not holds(request, purpose=entry.purpose) or not request.target_person_id:
        return False
    person = persons.get(uow, person_id=request.target_person_id)
    state = work_state.read(person.work_state) if person is not None and person.active else None
    if state is None or not state.away_at(uow.now):
        return False
    entry.claimed_by = None
    entry.available_at = state.until or uow.now + timedelta(hours=RECHECK_HOURS)
    uow.session.flush()
    if entry.purpose == Purpose.notification.value:  # the operator was answered with an action: it says held
        returns = f"until {state.until.isoformat()}" if state.until else "with no return time set"
        reason = f"{person.person_id} is {state.status} {returns}: sent when they are back"
        actions.hold(uow, request=request, held_by="away", held_until=state.until, reason=reason)
    content = {"event": "away_held", "request_key": entry.request_key, "until": _iso(state.until)}
    _, first = facts.append(
        uow,
        fact_type="system",
        source="concern",
        person_refs=[person.person_id],
        causation_id=request.decision_ref,
        content=content,
        dedup_key=f"away_held:{entry.request_key}",
    )
    if first and entry.ack_person_id:  # once: the fact is keyed
        _tell_sender(uow, entry, request, person=person, until=state.until)
    return True


def _iso(value) -> str | None:
    return value.isoformat() if value is not None else None


def _tell_sender(uow: UnitOfWork, entry: OutboxEntry, request: ActionRequest, *, person, until) -> None:
    sender = persons.get(uow, person_id=entry.ack_person_id)
    if sender is None:
        return
    values = {"target": person.display_name}
    if until is None:
        text = texts.render("tell_held_open", sender.locale, **values)
    else:
        moment = when(until, ZoneInfo(sender.timezone), sender.locale, now=uow.now)
        text = texts.render("tell_held", sender.locale, until=moment, **values)
    outbound.reply(
        uow,
        to=sender.person_id,
        text=text,
        decision_id=request.decision_ref,
        channel=entry.ack_channel,
        chat_id=entry.ack_chat_id,
        key=f"{entry.request_key}:away",
        later=True,
    )


def back(uow: UnitOfWork, *, person_id: str) -> int:
    """The person is back: the loops held for them go, spaced (`release_loops`), and the messages
    held for them are due now; how many loops."""
    person = persons.get(uow, person_id=person_id)
    if person is None or work_state.read(person.work_state).away_at(uow.now):
        return 0  # still away (a new `until`, a changed note): nothing to release
    release(uow, person_id=person_id)
    return release_loops(uow, person_id=person_id)


def release(uow: UnitOfWork, *, person_id: str) -> int:
    """The person is back: their held messages are due now; how many."""
    stmt = select(OutboxEntry).where(
        OutboxEntry.state == "open", OutboxEntry.available_at > uow.now, OutboxEntry.purpose.in_(HELD_PURPOSES)
    )
    due = [e for e in uow.session.scalars(stmt) if (e.request or {}).get("target_person_id") == person_id]
    for entry in due:
        entry.available_at = uow.now
    uow.session.flush()
    return len(due)


def release_loops(uow: UnitOfWork, *, person_id: str) -> int:
    """The person is back: their loops held as away go, most urgent and oldest first, one every RELEASE_SPACING
    (L1-L4 still judge each send), so a return is not met by a burst of questions; how many."""
    person = persons.get(uow, person_id=person_id)
    if person is None or work_state.read(person.work_state).away_at(uow.now):
        return 0
    stmt = (
        select(Concern)
        .where(Concern.target_person_id == person_id, Concern.held_by == "away", Concern.state.in_(ACTIVE_STATES))
        .order_by(Concern.priority, Concern.created_at, Concern.concern_id)
    )
    held = list(uow.session.scalars(stmt))
    for n, concern in enumerate(held):
        at = uow.now + n * RELEASE_SPACING
        service.change(uow, concern, change="released", step_at=at, held_until=None, held_by=None)
    return len(held)


_LOOP_CONTACTS = {"question": "question", "follow_up": "follow_up"}  # outbox purpose → the model's kind


def hold_entry(uow: UnitOfWork, entry: OutboxEntry) -> bool:
    """A loop's question or follow-up claimed after its person went away: the model holds the loop instead (the
    entry is superseded, the loop records `held_by` away and asks again on the return); False when it goes now."""
    kind = _LOOP_CONTACTS.get(entry.purpose)
    if kind is None or not entry.concern_id:
        return False
    concern = service.get(uow, concern_id=entry.concern_id, lock=True)
    if concern is None or concern.state not in ACTIVE_STATES or concern.version != entry.concern_version:
        return False  # the drainer's guard supersedes it as before
    target = persons.get(uow, person_id=concern.target_person_id)
    if target is None or not work_state.read(target.work_state).away_at(uow.now):
        return False
    if not reachability.gate(uow, concern, kind=kind, step_at=uow.now):
        return False  # away but let through (a P0 with nobody standing in)
    queue.close_entry(uow, entry_id=entry.id, state="superseded", action_id=None)
    return True
