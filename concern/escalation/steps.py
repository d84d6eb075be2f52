"""Escalations that close: the manager's message and its buttons, taking it, repeating and climbing it, and nudges.

An escalation goes to the target's manager with two buttons: "I'll handle it" (`take_escalation`) and "Remind
them" (`nudge`). Nobody takes or answers it: after DEPUTY_ESCALATION_REPEAT_AFTER it is repeated once, then it
climbs to the next manager up (at most DEPUTY_ESCALATION_MAX_LEVELS levels); each step is an `escalate` action,
so the layers that apply to escalations (L1) hold it like any held delivery. Expiry counts from the last step or
the acknowledgement. The ledger says who an escalation reached: every one of them may answer.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from action.ledger import contact_times
from action.models import ActionRecord, ActionRequest
from concern import buttons as concern_buttons
from concern import notices, queue, service
from concern.escalation import rules as escalation_rules
from concern.models import Concern
from concern.queue import Purpose
from concern.texts import messages
from fact import decisions
from fact.decisions import DecisionKind
from kernel.context import UnitOfWork
from person import service as persons
from person import work_state

HANDLE, REMIND = "handle", "remind"  # the escalation's button verbs


def _locale(uow: UnitOfWork, person_id: str) -> str:
    person = persons.get(uow, person_id=person_id)
    return person.locale if person else "zh"


def _request(uow: UnitOfWork, concern: Concern, *, to: str, decision_id: str, template: str) -> ActionRequest:
    """The escalate action to `to`, in their language, with its two buttons (minted for this request)."""
    recipient = persons.get_or_404(uow, person_id=to)
    target = persons.get_or_404(uow, person_id=concern.target_person_id)
    asker = persons.get_or_404(uow, person_id=concern.originator_id)
    previous = persons.get(uow, person_id=concern.escalated_to) if concern.escalated_to else None
    first, _ = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
    since = first or concern.created_at
    text = messages.render(
        template,
        recipient.locale,
        asker=asker.display_name,
        target=target.display_name,
        text=concern.question,
        since=messages.when(since, ZoneInfo(recipient.timezone)),
        waited=messages.duration(uow.now - since, recipient.locale),
        previous=previous.display_name if previous else "",
    )
    key = f"{concern.concern_id}:escalation:v{concern.version}"
    buttons = concern_buttons.for_message(
        uow, kind="escalation", request_key=key, addressee_id=to, locale=recipient.locale, concern_id=concern.concern_id
    )
    buttons += notices.recipient_buttons(uow, concern, key=key, to=recipient, kind="escalation")
    return ActionRequest(
        action_type="escalate",
        decision_ref=decision_id,
        target_person_id=to,
        text=text,
        priority=concern.priority,
        concern_id=concern.concern_id,
        buttons=buttons,
        request_key=key,
    )


def _send(uow: UnitOfWork, concern: Concern, *, to: str, level: int, repeats: int, decision_id: str) -> None:
    """Record the step (level, repeats; the timer waits for its result) and queue the escalation."""
    template = "escalation" if level == 1 and repeats == 0 else ("escalation_again" if repeats else "escalation_up")
    service.change(
        uow,
        concern,
        change="escalating",
        causation_id=decision_id,
        step_at=None,
        escalation_level=level,
        escalation_repeats=repeats,
        extra={"to": to, "level": level, "repeats": repeats},
    )
    request = _request(uow, concern, to=to, decision_id=decision_id, template=template)
    queue.enqueue(uow, request=request, purpose=Purpose.escalation, concern=concern)


def start(uow: UnitOfWork, concern: Concern, *, decision_id: str) -> None:
    """The first escalation, to the target's manager; without one, the loop stalls (the originator is told)."""
    target = persons.get_or_404(uow, person_id=concern.target_person_id)
    skip = {concern.originator_id, concern.target_person_id}
    to = present_recipient(uow, target.manager_id, skip=skip)  # an away manager: stand-in or next up
    if to is not None:
        _send(uow, concern, to=to, level=1, repeats=0, decision_id=decision_id)
    else:
        notices.stall(uow, concern, decision_id=decision_id)


def _rule_step(
    uow: UnitOfWork, concern: Concern, *, has_next: bool, since: datetime | None = None
) -> escalation_rules.EscalationStep:
    s = uow.settings
    return escalation_rules.next_escalation_step(
        level=concern.escalation_level,
        repeats=concern.escalation_repeats,
        max_levels=s.escalation_max_levels,
        reached=since is not None or concern.escalated_to is not None,
        acknowledged_at=concern.acknowledged_at,
        last_step_at=since or concern.escalated_at or uow.now,
        repeat_after=escalation_rules.repeat_after(concern.priority, s.follow_up_schedule, s.escalation_repeat_after),
        expire_after=s.concern_expire_after,
        has_next=has_next,
        now=uow.now,
    )


def timer(uow: UnitOfWork, concern: Concern, *, since: datetime | None = None) -> datetime:
    """When an escalated concern's next step is due (a repeat, a climb, or its expiry), `since` its last step."""
    step = _rule_step(uow, concern, has_next=True, since=since)
    return step.at if step.kind == "wait" else uow.now


def _next_up(uow: UnitOfWork, concern: Concern) -> str | None:
    current = persons.get(uow, person_id=concern.escalated_to) if concern.escalated_to else None
    chain = service.escalation_recipients(uow, concern_id=concern.concern_id)
    up = escalation_rules.next_recipient(
        current.manager_id if current else None,
        chain=[*chain, concern.escalated_to or ""],
        originator_id=concern.originator_id,
        target_id=concern.target_person_id,
    )
    skip = {concern.originator_id, concern.target_person_id, *chain, concern.escalated_to or ""}
    return present_recipient(uow, up, skip=skip)


def step(uow: UnitOfWork, concern: Concern) -> None:
    """An escalated concern's due timer (expiry is the caller's): wait, repeat, climb, or tell the dead end once."""
    up = _next_up(uow, concern)
    due = _rule_step(uow, concern, has_next=up is not None)
    if due.kind in ("wait", "expire"):
        service.change(uow, concern, change="rescheduled", step_at=due.at, extra={"reason": "not due yet"})
        return
    decision_id = decisions.record(
        uow,
        kind=DecisionKind.escalate,
        rule=f"escalation:{due.kind}",
        inputs=[concern.concern_id],
        person_refs=[p for p in (concern.escalated_to, up) if p],
        source="concern",
        requested=[{"step": due.kind, "concern_id": concern.concern_id}],
    )
    if due.kind == "repeat":
        level, repeats, to = concern.escalation_level, concern.escalation_repeats + 1, concern.escalated_to
        _send(uow, concern, to=to or "", level=level, repeats=repeats, decision_id=decision_id)
    elif due.kind == "climb" and up is not None:
        _send(uow, concern, to=up, level=concern.escalation_level + 1, repeats=0, decision_id=decision_id)
    else:
        _chain_end(uow, concern, decision_id=decision_id)


def _chain_end(uow: UnitOfWork, concern: Concern, *, decision_id: str) -> None:
    """No one further up: the originator hears it once; the expiry (from the last step) is all that is left."""
    expires = notices.expires_at(uow, concern)
    service.change(uow, concern, change="escalation_ended", causation_id=decision_id, step_at=expires)
    asker = persons.get_or_404(uow, person_id=concern.originator_id)
    chain = service.escalation_recipients(uow, concern_id=concern.concern_id)
    names = [persons.get_or_404(uow, person_id=p).display_name for p in chain]
    notices.notice(
        uow,
        concern,
        to=concern.originator_id,
        key="outcome:chain_end",
        template="escalation_chain_end",
        target=persons.get_or_404(uow, person_id=concern.target_person_id).display_name,
        text=concern.question,
        managers=("、" if asker.locale == "zh" else ", ").join(names),
        expires=messages.when(expires, ZoneInfo(asker.timezone), asker.locale, now=uow.now),
    )


def reached(uow: UnitOfWork, concern: Concern, *, request: ActionRequest, record: ActionRecord) -> None:
    """An escalation that went out: it is with its recipient from now on; a climb is told to the originator."""
    previous, to = concern.escalated_to, request.target_person_id or ""
    service.change(
        uow,
        concern,
        change="escalated",
        causation_id=record.action_id,
        state="escalated",
        escalated_to=to,
        escalated_at=uow.now,
        step_at=timer(uow, concern, since=uow.now),
    )
    if previous and previous != to:
        name = {p: persons.get_or_404(uow, person_id=p).display_name for p in (previous, to)}
        notices.notice(
            uow,
            concern,
            to=concern.originator_id,
            key=f"outcome:climbed:{to}",
            template="escalation_climbed",
            target=persons.get_or_404(uow, person_id=concern.target_person_id).display_name,
            text=concern.question,
            previous=name[previous],
            manager=name[to],
        )


def present_recipient(uow: UnitOfWork, person_id: str | None, *, skip: set[str]) -> str | None:
    """Who an escalation goes to instead of `person_id` when they are away: their stand-in, else the next level up.

    Nobody away is escalated to at any priority; a person in `skip` (the originator, the target, anyone already
    asked) ends the walk, as a cycle in the management data would.
    """
    seen, current = set(skip), person_id
    while current and current not in seen:
        person = persons.get(uow, person_id=current)
        if person is None or not person.active:
            return None
        state = work_state.read(person.work_state)
        if not state.away_at(uow.now):
            return current
        seen.add(current)
        stand_in = persons.get(uow, person_id=state.stand_in_id) if state.stand_in_id else None
        usable = stand_in is not None and stand_in.person_id not in seen and stand_in.active
        if usable and not work_state.read(stand_in.work_state).away_at(uow.now):
            return stand_in.person_id
        current = person.manager_id
    return None
