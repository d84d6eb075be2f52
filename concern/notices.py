"""What the engine tells a loop's people, and the pieces every step of a loop builds on: the loop-outcome notice,
the question as its person reads it, the backflow, when an escalated loop expires, and a stall.

Below the engine's use cases (flows), the escalation steps and the timers, so each of them builds on these and none
imports another sideways.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from action.ledger import contact_times
from action.models import ActionRequest, ButtonSpec
from concern import buttons as concern_buttons
from concern import outbound, queue, service
from concern.models import Concern
from concern.queue import Purpose
from concern.texts import messages
from kernel.context import UnitOfWork
from person import service as persons


def _person(uow: UnitOfWork, person_id: str):
    return persons.get_or_404(uow, person_id=person_id)


def notice(
    uow: UnitOfWork,
    concern: Concern,
    *,
    to: str,
    key: str,
    template: str,
    reactive: bool = False,
    origin_channel: str | None = None,
    buttons: list[ButtonSpec] | None = None,
    **values: str,
) -> bool:
    """Queue a loop-outcome notice (solicited: quiet hours and pause apply, the cap does not; L4 per concern).

    `reactive` when it answers the person's own message right now. The key makes it once per concern and kind.
    """
    person = persons.get(uow, person_id=to)
    if person is None:
        return False
    text = messages.render(template, person.locale, **values)
    return outbound.notice(
        uow,
        concern,
        to=to,
        text=text,
        key=f"{concern.concern_id}:{key}",
        reactive=reactive,
        origin_channel=origin_channel,
        buttons=buttons or (),
    )


def question_text(asker: Any, target: Any, question: str, approval: bool) -> str:
    """The question as the target reads it."""
    if approval:
        return messages.risk_question(asker.display_name, question, target.locale)
    return messages.question(asker.display_name, question, target.locale, tuple(asker.aliases or ()))


def question_request(
    uow: UnitOfWork, concern: Concern, *, purpose: str, decision_ref: str, attempt: str, read: bool = False
) -> ActionRequest:
    """The send_message that asks (or re-asks) a question's person, in their language, with its buttons; a
    follow-up after a message they `read` but did not answer is the gentler one."""
    target, asker = _person(uow, concern.target_person_id), _person(uow, concern.originator_id)
    tz = ZoneInfo(target.timezone)
    if purpose == "follow_up":
        first, _ = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
        text = messages.follow_up(
            asker.display_name, concern.question, first or concern.created_at, uow.now, tz, target.locale, read=read
        )
    else:
        text = question_text(asker, target, concern.question, concern.approval)
    key = f"{concern.concern_id}:{purpose}:{attempt}"
    kind = "decision" if concern.approval else "question"
    return ActionRequest(
        action_type="send_message",
        decision_ref=decision_ref,
        target_person_id=concern.target_person_id,
        text=text,
        priority=concern.priority,
        concern_id=concern.concern_id,
        follow_up=purpose == "follow_up",
        origin_channel=concern.origin_channel,
        request_key=key,
        buttons=[
            *concern_buttons.for_message(
                uow,
                kind=kind,
                request_key=key,
                addressee_id=concern.target_person_id,
                locale=target.locale,
                concern_id=concern.concern_id,
            ),
            *recipient_buttons(uow, concern, key=key, to=target, kind=purpose),
        ],
    )


def recipient_buttons(uow: UnitOfWork, concern: Concern, *, key: str, to: Any, kind: str) -> list[ButtonSpec]:
    """Why this? · Too many on a message of the loop to `to`, unless `to` is who asked (their own loop)."""
    if to.person_id == concern.originator_id:
        return []
    return concern_buttons.for_recipient(
        uow,
        request_key=key,
        addressee_id=to.person_id,
        locale=to.locale,
        concern_id=concern.concern_id,
        about={"kind": kind},
    )


def expires_at(uow: UnitOfWork, concern: Concern) -> datetime:
    """When an escalated concern expires: DEPUTY_CONCERN_EXPIRE_AFTER after its last escalation step (or after
    the acknowledgement, once someone took it)."""
    return (concern.acknowledged_at or concern.escalated_at or uow.now) + uow.settings.concern_expire_after


def stall(uow: UnitOfWork, concern: Concern, *, decision_id: str) -> None:
    """No manager to escalate to: the loop stalls (escalated, with an expiry) and the originator is told."""
    target, asker = _person(uow, concern.target_person_id), _person(uow, concern.originator_id)
    first, _ = contact_times(uow, concern_id=concern.concern_id, person_id=concern.target_person_id)
    since = first or concern.created_at
    service.change(
        uow,
        concern,
        change="stalled",
        causation_id=decision_id,
        state="escalated",
        escalated_to=None,
        escalated_at=uow.now,
        step_at=uow.now + uow.settings.concern_expire_after,
        extra={"reason": "no manager to escalate to"},
    )
    tz = ZoneInfo(asker.timezone)
    notice(
        uow,
        concern,
        to=concern.originator_id,
        key="outcome:stalled",
        template="stalled",
        target=target.display_name,
        text=concern.question,
        since=messages.when(since, tz),
        waited=messages.duration(uow.now - since, asker.locale),
        expires=messages.when(expires_at(uow, concern), tz, asker.locale, now=uow.now),
    )


def close_for_others(uow: UnitOfWork, concern: Concern, *, template: str, answered_by: str | None = None) -> None:
    """Tell everyone the escalation reached (and the person asked, when someone else answered) that it is over."""
    asker, target = _person(uow, concern.originator_id), _person(uow, concern.target_person_id)
    reached = service.escalation_recipients(uow, concern_id=concern.concern_id)
    if concern.escalated_to and concern.escalated_to not in reached:
        reached.append(concern.escalated_to)
    for person_id in reached:
        if person_id == answered_by:
            continue
        notice(
            uow,
            concern,
            to=person_id,
            key=f"closed:{person_id}",
            template=template,
            asker=asker.display_name,
            target=target.display_name if answered_by is None else _person(uow, answered_by).display_name,
            text=concern.question,
        )
    if answered_by and answered_by != concern.target_person_id:
        notice(
            uow,
            concern,
            to=concern.target_person_id,
            key=f"closed:{concern.target_person_id}",
            template="closed_answered_for_you",
            answerer=_person(uow, answered_by).display_name,
            asker=asker.display_name,
            text=concern.question,
        )


def queue_backflow(
    uow: UnitOfWork, concern: Concern, *, text: str, decision_id: str, media: dict[str, Any] | None = None
) -> None:
    """Queue the answer's way back to the originator: once per loop (its key), solicited, with any media."""
    request = ActionRequest(
        action_type="backflow",
        decision_ref=decision_id,
        target_person_id=concern.originator_id,
        text=text,
        priority=concern.priority,
        origin_channel=concern.origin_channel,
        concern_id=concern.concern_id,
        request_key=f"{concern.concern_id}:backflow:1",
        media=media,
    )
    queue.enqueue(uow, request=request, purpose=Purpose.backflow, concern=concern)
