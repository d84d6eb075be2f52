"""What an operator does to a loop from the API or the console: cancel it, or nudge its target now.

Each records its decision (the actor is the unit of work's, the token's name) in the same transaction as
the change, so the fact log shows who did it and why the messages that follow went out.
"""

from __future__ import annotations

from datetime import timedelta

from concern import flows, service
from concern.models import Concern
from fact import decisions
from fact.decisions import DecisionKind
from kernel.context import UnitOfWork
from kernel.errors import Conflict

NUDGE = "nudge"  # the outbox purpose of a nudge: a follow-up sent now, outside the schedule


def cancel(uow: UnitOfWork, *, concern_id: str, rule: str) -> Concern:
    """Cancel a loop as an admin (`rule` names the door, e.g. `admin_api:cancel`); the originator is told."""
    concern = service.get_or_404(uow, concern_id=concern_id)
    decision_id = decisions.record(
        uow,
        kind=DecisionKind.cancel_concern,
        rule=rule,
        source="admin_api",
        inputs=[concern_id],
        person_refs=[concern.originator_id, concern.target_person_id],
    )
    return flows.cancel(uow, concern_id=concern_id, by=uow.actor, is_admin=True, decision_id=decision_id)


def nudge(uow: UnitOfWork, *, concern_id: str, rule: str, claimed_by: str | None = None) -> str:
    """Queue one follow-up to the target now; returns its request key.

    Only L2's follow-up interval is skipped (the admin decided the moment): L1 (quiet hours, pause, cap) and
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
    decision_id = decisions.record(
        uow,
        kind=DecisionKind.direct_action,
        rule=rule,
        source="admin_api",
        inputs=[concern_id],
        person_refs=[concern.target_person_id],
        requested=[{"step": NUDGE, "concern_id": concern_id}],
    )
    request = flows.send_request(
        uow, concern, purpose="follow_up", decision_ref=decision_id, attempt=f"{NUDGE}:{decision_id}"
    ).model_copy(update={"follow_up": False})
    service.enqueue(
        uow,
        request=request,
        purpose=NUDGE,
        concern=concern,
        claimed_by=claimed_by,
        lease=flows.OWNED_LEASE if claimed_by else timedelta(0),
    )
    return request.request_key or ""
