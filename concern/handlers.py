"""The one handler table: every command, from any door (chat, a press, the LLM, the API, the console), carried out.

`handle(uow, command, origin)` looks the command's type up in HANDLERS and returns an `Outcome`. The handler changes
loops and people and queues what the change sends; how the actor hears the outcome is the door's (`concern.said`
has the words). A new button is a label row (`concern.buttons`), a verb → command row (the core's press table) and,
only when its effect is new, a command here with its handler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from concern import commands as c
from concern import commitments, escalation, flows, press_flows, relays, reminders, service
from concern.media import forwardable
from concern.outcomes import Done, Outcome, Unchanged
from kernel.context import UnitOfWork
from kernel.errors import Conflict, DeputyError, Forbidden, NotFound
from person import bind_codes
from person import service as persons


@dataclass(frozen=True)
class Origin:
    """Who asked for a command and where: what its handler needs besides the command itself."""

    decision_id: str
    actor_id: str | None = None  # the person who asked (sender, presser, a loop's originator); None: an operator
    channel: str | None = None  # where it came in: new loops start there, replies go there
    chat_id: str | None = None  # the group it was asked in (None for a direct message): confirmations go back there
    fact_id: str | None = None  # the signal that carried it
    content: dict[str, Any] = field(default_factory=dict)  # that signal's content (a bind's account, media)
    as_admin: bool = False  # an operator (API, console): cancels any loop; a nudge skips the check before queueing
    claimed_by: str | None = None  # the first action is queued already owned by this runner (it runs it at once)


Handler = Callable[[UnitOfWork, Any, Origin], Outcome]


def _at(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _names(uow: UnitOfWork, concern_id: str) -> dict[str, str]:
    """The loop's originator and person asked, by display name (what the press texts name)."""
    concern = service.get(uow, concern_id=concern_id)
    if concern is None:
        return {"asker": "", "target": ""}
    asker = persons.get(uow, person_id=concern.originator_id)
    target = persons.get(uow, person_id=concern.target_person_id)
    return {"asker": asker.display_name if asker else "", "target": target.display_name if target else ""}


def _ask(uow: UnitOfWork, command: c.Ask, origin: Origin) -> Outcome:
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
        deadline=_at(command.deadline),
        claimed_by=origin.claimed_by,
    )


def _escalate(uow: UnitOfWork, command: c.Escalate, origin: Origin) -> Outcome:
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


def _tell(uow: UnitOfWork, command: c.Tell, origin: Origin) -> Outcome:
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


def _remind(uow: UnitOfWork, command: c.Remind, origin: Origin) -> Outcome:
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


def _commit(uow: UnitOfWork, command: c.Commit, origin: Origin) -> Outcome:
    opened = commitments.open_(
        uow,
        parent_id=command.parent_id,
        due_at=datetime.fromisoformat(command.due_at),
        words=command.words,
        decision_id=origin.decision_id,
    )
    return Done("commitment_opened", concern_id=opened.concern_id) if opened else Unchanged("nothing")


def _resolve(uow: UnitOfWork, command: c.Resolve, origin: Origin) -> Outcome:
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


def _acknowledge(uow: UnitOfWork, command: c.Acknowledge, origin: Origin) -> Outcome:
    changed = flows.acknowledge(uow, concern_id=command.concern_id, decision_id=origin.decision_id)
    return Done("acknowledged", concern_id=command.concern_id) if changed else Unchanged("nothing")


def _snooze(uow: UnitOfWork, command: c.Snooze, origin: Origin) -> Outcome:
    concern = service.get(uow, concern_id=command.concern_id)
    delay = timedelta(seconds=command.duration_s)
    if concern is not None and concern.kind == "reminder":  # 稍后 1小时: due again later, as a fresh reminder
        moved = reminders.later(
            uow, concern_id=command.concern_id, by=origin.actor_id or "", decision_id=origin.decision_id, delay=delay
        )
        return Done("reminder_later", {"until": moved.due_at}, moved.concern_id) if moved else Unchanged("nothing")
    changed = flows.snooze(uow, concern_id=command.concern_id, duration=delay, decision_id=origin.decision_id)
    if changed is None:
        return Unchanged("nothing", concern_id=command.concern_id)
    values = {"until": changed.next_follow_up_at, "step_at": changed.step_at}
    return Done("snoozed", values, concern_id=command.concern_id)


def _defer(uow: UnitOfWork, command: c.DeferToMorning, origin: Origin) -> Outcome:
    moment = press_flows.defer_to_morning(uow, concern_id=command.concern_id, decision_id=origin.decision_id)
    return Done("tomorrow", {"until": moment}, command.concern_id) if moment else Unchanged("nothing")


_CANNOT_CANCEL = {NotFound: "cancel_not_found", Forbidden: "cancel_not_yours"}


def _cancel(uow: UnitOfWork, command: c.Cancel, origin: Origin) -> Outcome:
    names = _names(uow, command.concern_id)
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


def _nudge(uow: UnitOfWork, command: c.Nudge, origin: Origin) -> Outcome:
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


def _not_me(uow: UnitOfWork, command: c.NotMe, origin: Origin) -> Outcome:
    names = _names(uow, command.concern_id)
    done = press_flows.not_me(
        uow, concern_id=command.concern_id, by=origin.actor_id or "", decision_id=origin.decision_id
    )
    return Done("not_me", names, concern_id=command.concern_id) if done else Unchanged("nothing")


def _ask_someone_else(uow: UnitOfWork, command: c.AskSomeoneElse, origin: Origin) -> Outcome:
    done = press_flows.ask_for_someone_else(uow, concern_id=command.concern_id, by=origin.actor_id or "")
    return Done("reassign", concern_id=command.concern_id) if done else Unchanged("nothing")


def _reassign(uow: UnitOfWork, command: c.Reassign, origin: Origin) -> Outcome:
    return press_flows.reassign(
        uow,
        concern_id=command.concern_id,
        by=origin.actor_id or "",
        to=command.target_person_id,
        decision_id=origin.decision_id,
        origin_channel=origin.channel,
    )


def _take(uow: UnitOfWork, command: c.TakeEscalation, origin: Origin) -> Outcome:
    by = origin.actor_id or ""
    return escalation.take_escalation(uow, concern_id=command.concern_id, by=by, decision_id=origin.decision_id)


def _decide(uow: UnitOfWork, command: c.Decide, origin: Origin) -> Outcome:
    names = _names(uow, command.concern_id)
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


def _done(uow: UnitOfWork, command: c.Done, origin: Origin) -> Outcome:
    concern = service.get(uow, concern_id=command.concern_id)
    by, decision_id = origin.actor_id or "", origin.decision_id
    if concern is not None and concern.kind == "reminder":
        closed = reminders.done(uow, concern_id=command.concern_id, by=by, decision_id=decision_id)
        return Done("reminder_done", concern_id=command.concern_id) if closed else Unchanged("nothing")
    names = _names(uow, command.concern_id)
    kept = commitments.complete_commitment(uow, concern_id=command.concern_id, by=by, decision_id=decision_id)
    return Done("done", names, concern_id=command.concern_id) if kept else Unchanged("nothing")


def _extend(uow: UnitOfWork, command: c.Extend, origin: Origin) -> Outcome:
    later = commitments.extend_commitment(
        uow,
        concern_id=command.concern_id,
        by=origin.actor_id or "",
        hours=command.hours,
        decision_id=origin.decision_id,
    )
    return Done("extended", {"until": later.due_at}, command.concern_id) if later else Unchanged("nothing")


_BIND_OUTCOMES = {"bound": "bound", "used": "bind_used", "too_many_attempts": "bind_too_many"}


def _bind(uow: UnitOfWork, command: c.Bind, origin: Origin) -> Outcome:
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


def _set_policy(uow: UnitOfWork, command: c.SetPolicy, origin: Origin) -> Outcome:
    relays.policy(
        uow,
        person_id=origin.actor_id or "",
        patch=command.patch,
        decision_id=origin.decision_id,
        fact_id=origin.fact_id or origin.decision_id,
        channel=origin.channel,
        chat_id=origin.chat_id,
    )
    return Done("policy_queued")


HANDLERS: dict[type[c.Command], Handler] = {
    c.Ask: _ask,
    c.Escalate: _escalate,
    c.Tell: _tell,
    c.Remind: _remind,
    c.Commit: _commit,
    c.Resolve: _resolve,
    c.Acknowledge: _acknowledge,
    c.Snooze: _snooze,
    c.DeferToMorning: _defer,
    c.Cancel: _cancel,
    c.Nudge: _nudge,
    c.NotMe: _not_me,
    c.AskSomeoneElse: _ask_someone_else,
    c.Reassign: _reassign,
    c.TakeEscalation: _take,
    c.Decide: _decide,
    c.Done: _done,
    c.Extend: _extend,
    c.Bind: _bind,
    c.SetPolicy: _set_policy,
}


def handle(uow: UnitOfWork, command: c.Command, origin: Origin) -> Outcome:
    """Carry out one command in the caller's transaction (what it sends is queued, not sent)."""
    handler = HANDLERS.get(type(command))
    if handler is None:
        raise TypeError(f"no handler for {type(command).__name__}: answers are the core's, not the engine's")
    return handler(uow, command, origin)
