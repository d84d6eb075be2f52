"""The message that asks (or asks again) a loop's person: a question, or a commitment's check-in."""

from __future__ import annotations

from action.models import ActionRequest
from concern import notices
from concern.kinds import promises
from concern.models import Concern
from kernel.context import UnitOfWork


def send_request(
    uow: UnitOfWork, concern: Concern, *, purpose: str, decision_ref: str, attempt: str, read: bool = False
) -> ActionRequest:
    """The send_message that asks (or re-asks) the target, in the target's language, with its loop's buttons;
    `read`: they read the last one without answering (a question's follow-up is then the gentler one)."""
    if concern.kind == "commitment":  # the check-in and its follow-ups, with Done / 2 more hours
        return promises.request(uow, concern, purpose=purpose, decision_ref=decision_ref, attempt=attempt)
    return notices.question_request(
        uow, concern, purpose=purpose, decision_ref=decision_ref, attempt=attempt, read=read
    )
