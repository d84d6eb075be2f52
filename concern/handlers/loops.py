"""Handlers of the commands on an open loop: answer, acknowledge, snooze, cancel, nudge, not me, reassign, take an
escalation, decide, done, extend.
"""

from __future__ import annotations

from datetime import timedelta

from concern import commands as c
from concern import flows, press_flows, service
from concern.escalation import handling as escalation
from concern.handlers.origin import Origin, names_of
from concern.kinds import commitments, reminders
from concern.media import forwardable
from concern.models import ACTIVE_STATES
from concern.outcomes import Done, Outcome, Unchanged
from kernel.context import UnitOfWork
from kernel.errors import Conflict, DeputyError, Forbidden, NotFound
from person import service as persons


def resolve(uow: UnitOfWork, command: c.Resolve, origin: Origin) -> Outcome:
    concern = service.get(uow, concern_id=command.concern_id)
    by = origin.actor_id or ""
    if concern is not None and concern.kind == "commitment":
        kept = commitments.complete_commitment(
            uow, concern_id=command.concern_id, by=by, decision_id=origin.decision_id, answer=command.answer
        )
        return Done("commitment_answered", concern_id=command.concern_id) if kept else Unchanged("nothing")
    resolved = flows.resolve(
        uow,
        concern_id=command.concern_id,
        answer=command.answer,
        answered_by=by,
        decision_id=origin.decision_id,
        media=forwardable(origin.content) if origin.content else None,
    )
    if resolved is None:
        return Unchanged("nothing", concern_id=command.concern_id)
    asker = persons.get_or_404(uow, person_id=resolved.originator_id)
    return Done("passed_on", {"asker": asker.display_name}, concern_id=command.concern_id)


def acknowledge(uow: UnitOfWork, command: c.Acknowledge, origin: Origin) -> Outcome:
    changed = flows.acknowledge(uow, concern_id=command.concern_id, decision_id=origin.decision_id)
    return Done("acknowledged", concern_id=command.concern_id) if changed else Unchanged("nothing")


def snooze(uow: UnitOfWork, command: c.Snooze, origin: Origin) -> Outcome:
    concern = service.get(uow, concern_id=command.concern_id)
    delay = timedelta(seconds=command.duration_s)
    if concern is not None and concern.kind == "reminder":  # 稍后 1小时: due again later, as a fresh reminder
        moved = reminders.later(
            uow, concern_id=command.concern_id, by=origin.actor_id or "", decision_id=origin.decision_id, delay=delay
        )
        return Done("reminder_later", {"until": moved.due_at}, moved.concern_id) if moved else Unchanged("nothing")
    if concern is not None and concern.state != "waiting_reply":  # told why, in the reader's words (said.py)
        return _not_snoozed(uow, concern)
    changed = flows.snooze(uow, concern_id=command.concern_id, duration=delay, decision_id=origin.decision_id)
    if changed is None:
        return Unchanged("nothing", concern_id=command.concern_id)
    values = {"until": changed.next_follow_up_at, "step_at": changed.step_at}
    return Done("snoozed", values, concern_id=command.concern_id)


def _not_snoozed(uow: UnitOfWork, concern) -> Outcome:
    """An escalated loop waits for no later: someone was already told; a closed one has nothing left to move."""
    if concern.state == "escalated":
        manager = persons.get(uow, person_id=concern.escalated_to) if concern.escalated_to else None
        values = {"manager": manager.display_name if manager else ""}
        return Unchanged("snooze_escalated", values, concern_id=concern.concern_id)
    return Unchanged("snooze_closed", {"state": concern.state}, concern_id=concern.concern_id)


def defer(uow: UnitOfWork, command: c.DeferToMorning, origin: Origin) -> Outcome:
    moment = press_flows.defer_to_morning(uow, concern_id=command.concern_id, decision_id=origin.decision_id)
    return Done("tomorrow", {"until": moment}, command.concern_id) if moment else Unchanged("nothing")


_CANNOT_CANCEL = {NotFound: "cancel_not_found", Forbidden: "cancel_not_yours"}


def cancel(uow: UnitOfWork, command: c.Cancel, origin: Origin) -> Outcome:
    names = names_of(uow, command.concern_id)
    try:
        with uow.session.begin_nested():
            flows.cancel(
                uow,
                concern_id=command.concern_id,
                by=origin.actor_id or uow.actor,
                is_admin=origin.as_admin,
                decision_id=origin.decision_id,
            )
    except DeputyError as exc:
        state = (exc.details or {}).get("state", "") if isinstance(exc.details, dict) else ""
        why = _CANNOT_CANCEL.get(type(exc), "cancel_closed")
        return Unchanged(why, {"state": state}, concern_id=command.concern_id, error=exc)
    return Done("cancelled", names, concern_id=command.concern_id)


def nudge(uow: UnitOfWork, command: c.Nudge, origin: Origin) -> Outcome:
    if origin.as_admin:
        try:
            key = escalation.queue_nudge(
                uow, concern_id=command.concern_id, decision_id=origin.decision_id, claimed_by=origin.claimed_by
            )
        except Conflict as exc:
            return Unchanged("not_waiting", concern_id=command.concern_id, error=exc)
        return Done("nudge_queued", {"request_key": key}, concern_id=command.concern_id)
    return escalation.nudge(
        uow, concern_id=command.concern_id, by=origin.actor_id or "", decision_id=origin.decision_id
    )


def not_me(uow: UnitOfWork, command: c.NotMe, origin: Origin) -> Outcome:
    names = names_of(uow, command.concern_id)
    done = press_flows.not_me(
        uow, concern_id=command.concern_id, by=origin.actor_id or "", decision_id=origin.decision_id
    )
    return Done("not_me", names, concern_id=command.concern_id) if done else Unchanged("nothing")


def ask_someone_else(uow: UnitOfWork, command: c.AskSomeoneElse, origin: Origin) -> Outcome:
    done = press_flows.ask_for_someone_else(uow, concern_id=command.concern_id, by=origin.actor_id or "")
    return Done("reassign", concern_id=command.concern_id) if done else Unchanged("nothing")


def reassign(uow: UnitOfWork, command: c.Reassign, origin: Origin) -> Outcome:
    return press_flows.reassign(
        uow,
        concern_id=command.concern_id,
        by=origin.actor_id or "",
        to=command.target_person_id,
        decision_id=origin.decision_id,
        origin_channel=origin.channel,
    )


def take(uow: UnitOfWork, command: c.TakeEscalation, origin: Origin) -> Outcome:
    by = origin.actor_id or ""
    return escalation.take_escalation(uow, concern_id=command.concern_id, by=by, decision_id=origin.decision_id)


def decide(uow: UnitOfWork, command: c.Decide, origin: Origin) -> Outcome:
    names = names_of(uow, command.concern_id)
    resolved = press_flows.decide(
        uow,
        concern_id=command.concern_id,
        by=origin.actor_id or "",
        approve=command.approve,
        decision_id=origin.decision_id,
    )
    if resolved is None:
        return Unchanged("nothing", concern_id=command.concern_id)
    return Done("decided", {**names, "answer": resolved.answer or ""}, concern_id=command.concern_id)


def done(uow: UnitOfWork, command: c.Done, origin: Origin) -> Outcome:
    concern = service.get(uow, concern_id=command.concern_id)
    by, decision_id = origin.actor_id or "", origin.decision_id
    if concern is not None and concern.kind == "reminder":
        closed = reminders.done(uow, concern_id=command.concern_id, by=by, decision_id=decision_id)
        return Done("reminder_done", concern_id=command.concern_id) if closed else Unchanged("nothing")
    names = names_of(uow, command.concern_id)
    kept = commitments.complete_commitment(uow, concern_id=command.concern_id, by=by, decision_id=decision_id)
    return Done("done", names, concern_id=command.concern_id) if kept else Unchanged("nothing")


def extend(uow: UnitOfWork, command: c.Extend, origin: Origin) -> Outcome:
    later = commitments.extend_commitment(
        uow,
        concern_id=command.concern_id,
        by=origin.actor_id or "",
        hours=command.hours,
        decision_id=origin.decision_id,
    )
    return Done("extended", {"until": later.due_at}, command.concern_id) if later else Unchanged("nothing")


def wait_for_return(uow: UnitOfWork, command: c.WaitForReturn, origin: Origin) -> Outcome:
    """等<name>回来: nothing changes (the question is already held for the return); the presser reads so."""
    concern = service.get(uow, concern_id=command.concern_id)
    if concern is None or concern.state not in ACTIVE_STATES:
        return Unchanged("nothing", concern_id=command.concern_id)
    return Done("wait_back", names_of(uow, command.concern_id), concern_id=command.concern_id)
