"""Handlers of the commands that start something: ask, escalate, tell, remind, commit, bind, set a policy."""

from __future__ import annotations

from datetime import datetime

from concern import commands as c
from concern import flows, outbound, relays
from concern.handlers.origin import Origin, at
from concern.kinds import commitments, reminders
from concern.outcomes import Done, Outcome, Unchanged
from concern.queue import Purpose
from kernel.context import UnitOfWork
from kernel.errors import Conflict
from person import bind_codes, work_state
from person import service as persons


def ask(uow: UnitOfWork, command: c.Ask, origin: Origin) -> Outcome:
    return flows.raise_(
        uow,
        originator_id=origin.actor_id or "",
        target_person_id=command.target_person_id,
        question=command.question,
        priority=command.priority,
        decision_id=origin.decision_id,
        origin_channel=origin.channel,
        origin_chat_id=origin.chat_id,
        source_fact_id=origin.fact_id,
        deadline=at(command.deadline),
        claimed_by=origin.claimed_by,
    )


def escalate(uow: UnitOfWork, command: c.Escalate, origin: Origin) -> Outcome:
    return flows.raise_(
        uow,
        originator_id=origin.actor_id or "",
        target_person_id=command.decision_maker_id,
        question=command.question,
        priority="P1",
        decision_id=origin.decision_id,
        origin_channel=origin.channel,
        approval=True,
        source_fact_id=origin.fact_id,
    )


def tell(uow: UnitOfWork, command: c.Tell, origin: Origin) -> Outcome:
    relays.relay(
        uow,
        sender_id=origin.actor_id or "",
        target_id=command.target_person_id,
        text=command.text,
        priority=command.priority,
        decision_id=origin.decision_id,
        fact_id=origin.fact_id or origin.decision_id,
        channel=origin.channel,
        chat_id=origin.chat_id,
    )
    return Done("tell_queued")


def remind(uow: UnitOfWork, command: c.Remind, origin: Origin) -> Outcome:
    reminder = reminders.set_(
        uow,
        person_id=origin.actor_id or "",
        text=command.text,
        due_at=datetime.fromisoformat(command.due_at),
        decision_id=origin.decision_id,
        origin_channel=origin.channel,
        source_fact_id=origin.fact_id,
    )
    return Done("reminder_set", concern_id=reminder.concern_id)


def commit(uow: UnitOfWork, command: c.Commit, origin: Origin) -> Outcome:
    opened = commitments.open_(
        uow,
        parent_id=command.parent_id,
        due_at=datetime.fromisoformat(command.due_at),
        words=command.words,
        decision_id=origin.decision_id,
    )
    return Done("commitment_opened", concern_id=opened.concern_id) if opened else Unchanged("nothing")


_BIND_OUTCOMES = {"bound": "bound", "used": "bind_used", "too_many_attempts": "bind_too_many"}


def bind(uow: UnitOfWork, command: c.Bind, origin: Origin) -> Outcome:
    account = origin.content
    try:
        with uow.session.begin_nested():
            person_id, result = bind_codes.redeem(
                uow,
                code=command.code,
                channel=account["channel"],
                external_user_id=account["external_user_id"],
                chat_id=account.get("chat_id"),
            )
    except Conflict:
        person_id, result = None, "conflict"
    code = _BIND_OUTCOMES.get(result, "bind_failed")
    # Who hears it: the person just bound, else the sender when they are someone already (a wrong code).
    values = {"person_id": person_id or origin.actor_id}
    return Done(code, values) if code == "bound" else Unchanged(code, values)


def set_policy(uow: UnitOfWork, command: c.SetPolicy, origin: Origin) -> Outcome:
    """The sender's own policy change; "resume" (`我回来了`, `/back`) from someone away also ends their absence."""
    person_id = origin.actor_id or ""
    back = command.patch == {"paused_until": None} and _away(uow, person_id)
    if back:
        relays.work(uow, person_id=person_id, state={"status": "available"}, **_relayed(origin))
    if not back or _paused(uow, person_id):  # back and not paused: nothing to resume, one confirmation only
        relays.policy(uow, person_id=person_id, patch=command.patch, acked=not back, **_relayed(origin))
    return Done("policy_queued")


def set_away(uow: UnitOfWork, command: c.SetAway, origin: Origin) -> Outcome:
    """The sender is away or on leave from now (until `until`, open-ended without): an internal update, confirmed."""
    state = {"status": command.status, "until": command.until, "note": command.note[:500]}
    helper = persons.get(uow, person_id=command.stand_in_id) if command.stand_in_id else None
    if helper is not None and helper.active and helper.person_id != origin.actor_id:
        state["stand_in_id"] = helper.person_id
    relays.work(uow, person_id=origin.actor_id or "", state=state, **_relayed(origin))
    return Done("policy_queued")


def _relayed(origin: Origin) -> dict:
    return {
        "decision_id": origin.decision_id,
        "fact_id": origin.fact_id or origin.decision_id,
        "channel": origin.channel,
        "chat_id": origin.chat_id,
    }


def _away(uow: UnitOfWork, person_id: str) -> bool:
    person = persons.get(uow, person_id=person_id)
    return person is not None and work_state.read(person.work_state).away_at(uow.now)


def _paused(uow: UnitOfWork, person_id: str) -> bool:
    person = persons.get(uow, person_id=person_id)
    until = persons.policy_of(person).paused_until if person is not None else None
    return until is not None and until > uow.now


def notify(uow: UnitOfWork, command: c.Notify, origin: Origin) -> Outcome:
    """An operator's notice, queued for the request that runs it at once (its record is the answer)."""
    persons.get_or_404(uow, person_id=command.target_person_id)
    key = f"{origin.decision_id}:notify"
    outbound.notify(
        uow, to=command.target_person_id, text=command.text, decision_id=origin.decision_id, key=key,
        notification_type=command.notification_type, purpose=Purpose.notification, priority=command.priority,
        claimed_by=origin.claimed_by,
    )  # fmt: skip
    return Done("notify_queued", {"request_key": key})
