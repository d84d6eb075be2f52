"""What people do with an escalation or an open loop's wait: take it ("I'll handle it"), nudge the person asked now
("Nudge now", "Remind them", an operator's nudge), and why a nudge cannot go now.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from action import service as actions
from action.execution import limits_from
from action.ledger import concern_view, contact_times
from concern import asking, notices, queue, service
from concern.escalation import texts as escalation_texts
from concern.models import ACTIVE_STATES, Concern
from concern.outcomes import Done, Outcome, Refused, Unchanged
from concern.queue import Purpose
from concern.texts import messages, reasons
from kernel.context import UnitOfWork
from kernel.errors import Conflict
from person import service as persons

NUDGE = "nudge"  # a nudge's request keys: `<concern>:follow_up:nudge:<decision>`


def _locale(uow: UnitOfWork, person_id: str) -> str:
    person = persons.get(uow, person_id=person_id)
    return person.locale if person else "zh"


def take_escalation(uow: UnitOfWork, *, concern_id: str, by: str, decision_id: str) -> Outcome:
    """ "I'll handle it": the current recipient takes the escalation; repeats and climbing stop, expiry stays.

    The originator hears who took it; whoever the escalation reached before hears it is taken.
    """
    locale = _locale(uow, by)
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None or concern.state not in ACTIVE_STATES:
        return _unchanged("closed", locale, concern_id)
    if concern.acknowledged_by:
        if concern.acknowledged_by == by:
            return _unchanged("taken_by_you", locale, concern_id)
        taker = persons.get_or_404(uow, person_id=concern.acknowledged_by).display_name
        return _unchanged("already_taken", locale, concern_id, manager=taker)
    if concern.state != "escalated" or concern.escalated_to != by:
        return _unchanged("not_recipient", locale, concern_id)
    service.change(
        uow,
        concern,
        change="escalation_taken",
        causation_id=decision_id,
        acknowledged_by=by,
        acknowledged_at=uow.now,
        step_at=uow.now + uow.settings.concern_expire_after,
        pending_deliveries=[h for h in concern.pending_deliveries if h["purpose"] != "escalation"],
        extra={"by": by},
    )
    names = {
        p: persons.get_or_404(uow, person_id=p).display_name
        for p in (by, concern.originator_id, concern.target_person_id)
    }
    common = {"manager": names[by], "target": names[concern.target_person_id], "text": concern.question}
    notices.notice(uow, concern, to=concern.originator_id, key="outcome:taken", template="escalation_taken", **common)
    for earlier in service.escalation_recipients(uow, concern_id=concern_id):
        if earlier != by:
            notices.notice(
                uow,
                concern,
                to=earlier,
                key=f"closed:{earlier}",
                template="closed_taken",
                asker=names[concern.originator_id],
                **common,
            )
    text = escalation_texts.outcome("taken", locale, asker=names[concern.originator_id])
    return Done("taken", concern_id=concern_id, text=text)


def nudge(uow: UnitOfWork, *, concern_id: str, by: str, decision_id: str) -> Outcome:
    """ "Nudge now" (the originator) / "Remind them" (the escalation's recipient): one follow-up to the target now.

    An explicit request: L2's follow-up interval does not apply, L1 and L3 do. A refusal says when it would be
    allowed, in the requester's language and timezone; nothing is queued then.
    """
    locale = _locale(uow, by)
    concern = service.get(uow, concern_id=concern_id, lock=True)
    if concern is None or concern.state not in ACTIVE_STATES:
        return _unchanged("closed", locale, concern_id)
    if by not in (concern.originator_id, concern.escalated_to):
        return _unchanged("not_allowed", locale, concern_id)
    target = persons.get_or_404(uow, person_id=concern.target_person_id)
    if contact_times(uow, concern_id=concern_id, person_id=target.person_id)[1] is None:
        text = escalation_texts.outcome("not_yet", locale, target=target.display_name)
        return Refused("not_yet", concern_id=concern_id, text=text)
    request = asking.send_request(
        uow, concern, purpose="follow_up", decision_ref=decision_id, attempt=f"{NUDGE}:{decision_id}"
    ).model_copy(update={"explicit": True})
    verdict = actions.verdict_now(
        uow, request=request, concern_state=lambda u: service.state_of(u, concern_id=concern_id)
    )
    if not verdict.allowed:
        detail = {"blocked_by": verdict.blocked_by, "not_before": verdict.not_before}
        text = refusal(uow, concern, detail, to=by)
        return Refused("refused", concern_id=concern_id, text=text, not_before=verdict.not_before)
    queue.enqueue(uow, request=request, purpose=Purpose.nudge, concern=concern, ack_person_id=by)
    return Done(
        "nudged", concern_id=concern_id, text=escalation_texts.outcome("nudged", locale, target=target.display_name)
    )


def queue_nudge(uow: UnitOfWork, *, concern_id: str, decision_id: str, claimed_by: str | None = None) -> str:
    """An operator's nudge (API, console): one follow-up to the target now; returns its request key.

    Only L2's follow-up interval is skipped (the operator decided the moment): L1 (quiet hours, pause, cap) and
    L3 (contacts per loop per day) still apply. A nudge that goes out restarts the wait before the next
    scheduled step without using one of the schedule's follow-ups; one held back changes nothing.
    """
    concern = service.get_or_404(uow, concern_id=concern_id)
    if concern.state != "waiting_reply":
        raise Conflict(
            f"concern {concern_id} is {concern.state}: only a loop waiting for a reply can be nudged",
            field="state",
            details={"state": concern.state},
        )
    request = asking.send_request(
        uow, concern, purpose="follow_up", decision_ref=decision_id, attempt=f"{NUDGE}:{decision_id}"
    ).model_copy(update={"follow_up": False})
    queue.enqueue(
        uow,
        request=request,
        purpose=Purpose.nudge,
        concern=concern,
        claimed_by=claimed_by,
        lease=queue.LEASE if claimed_by else timedelta(0),
    )
    return request.request_key or ""


def _unchanged(code: str, locale: str, concern_id: str, **values: str) -> Unchanged:
    return Unchanged(code, concern_id=concern_id, text=escalation_texts.outcome(code, locale, **values))


def refusal(uow: UnitOfWork, concern: Concern, detail: dict, *, to: str) -> str:
    """Why a nudge cannot go now and when it could, for `to` (their language and timezone)."""
    reader = persons.get_or_404(uow, person_id=to)
    target = persons.get_or_404(uow, person_id=concern.target_person_id).display_name
    code = detail.get("blocked_by") or detail.get("error") or "unknown"
    not_before = detail.get("not_before")
    if isinstance(not_before, str):
        not_before = datetime.fromisoformat(not_before)
    when = messages.when(not_before, ZoneInfo(reader.timezone), reader.locale, now=uow.now) if not_before else None
    view = concern_view(
        uow,
        concern_id=concern.concern_id,
        person_id=concern.target_person_id,
        state=None,
        limits=limits_from(uow.settings),
        now=uow.now,
    )
    return escalation_texts.refused(
        code,
        reader.locale,
        target=target,
        when=when,
        count=len(view.contacts_in_window),
        reason=reasons.not_done(detail, reader.locale, target=target),
    )
