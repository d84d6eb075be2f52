"""A message passed on ("告诉张三…") and a self-service policy change ("/quiet 22:00-08:00"): one queued action each,
confirmed to whoever asked once its result is known (`concern.outbox.results`: told, held, or why not).
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

from action.models import ActionRequest
from concern import buttons as concern_buttons
from concern import queue
from concern.queue import Purpose
from concern.texts import messages, replies
from kernel.context import UnitOfWork
from person import service as persons
from person import work_state


def relay(
    uow: UnitOfWork,
    *,
    sender_id: str,
    target_id: str,
    text: str,
    priority: str,
    decision_id: str,
    fact_id: str,
    channel: str | None,
    chat_id: str | None,
) -> bool:
    """Queue `text` to `target_id` in their language, framed as from the sender; the sender hears how it went."""
    sender = persons.get_or_404(uow, person_id=sender_id)
    target = persons.get_or_404(uow, person_id=target_id)
    key = f"{fact_id}:tell"
    about = {"kind": "relay", "decision": decision_id}  # no loop: "why this?" reads the decision's chain
    buttons = (
        concern_buttons.for_recipient(
            uow, request_key=key, addressee_id=target_id, locale=target.locale, concern_id=None, about=about
        )
        if target_id != sender_id
        else []
    )
    request = ActionRequest(
        action_type="notify",
        decision_ref=decision_id,
        target_person_id=target_id,
        text=messages.relay(sender.display_name, text, target.locale, tuple(sender.aliases or ())),
        priority=priority,
        origin_channel=channel,
        request_key=key,
        buttons=buttons,
        # Each relayed message is its own notification: L4's cooldown is for repeats of one kind.
        notification_type=f"relay:{fact_id}",
    )
    return queue.enqueue(
        uow, request=request, purpose=Purpose.tell, ack_person_id=sender_id, ack_channel=channel, ack_chat_id=chat_id
    )


def policy(
    uow: UnitOfWork,
    *,
    person_id: str,
    patch: dict,
    decision_id: str,
    fact_id: str,
    channel: str | None,
    chat_id: str | None,
    acked: bool = True,
) -> bool:
    """Queue the person's own policy change (an internal update); they hear it was made, in their words."""
    person = persons.get_or_404(uow, person_id=person_id)
    operation = {"name": "person.interaction_policy", "person_id": person_id, "patch": patch}
    text = replies.policy_change(patch, person.locale, tz=ZoneInfo(person.timezone), now=uow.now)
    return _own_update(uow, operation, text=text, key=f"{fact_id}:policy", decision_id=decision_id,
                       ack=(channel, chat_id) if acked else None)  # fmt: skip


def work(
    uow: UnitOfWork,
    *,
    person_id: str,
    state: dict,
    decision_id: str,
    fact_id: str,
    channel: str | None,
    chat_id: str | None,
    acked: bool = True,
) -> bool:
    """Queue the person's own work state (away, on leave, back: an internal update); they hear it was noted.

    A stand-in an admin named is kept while the person stays away; coming back clears it (SPEC: none while
    available).
    """
    person = persons.get_or_404(uow, person_id=person_id)
    current = work_state.read(person.work_state)
    if state.get("status") != "available" and current.stand_in_id and not state.get("stand_in_id"):
        state = {**state, "stand_in_id": current.stand_in_id}
    operation = {"name": "person.work_state", "person_id": person_id, "work_state": state}
    text = replies.work_change(state, person.locale, tz=ZoneInfo(person.timezone), now=uow.now)
    return _own_update(uow, operation, text=text, key=f"{fact_id}:work_state", decision_id=decision_id,
                       ack=(channel, chat_id) if acked else None)  # fmt: skip


def _own_update(
    uow: UnitOfWork,
    operation: dict,
    *,
    text: str,
    key: str,
    decision_id: str,
    ack: tuple[str | None, str | None] | None,
) -> bool:
    """Queue a person's change to their own record (an internal update), confirmed to them unless `ack` is None."""
    person_id = operation["person_id"]
    request = ActionRequest(
        action_type="internal_update", decision_ref=decision_id, target_person_id=person_id, operation=operation,
        text=text, request_key=key,
    )  # fmt: skip
    channel, chat_id = ack or (None, None)
    return queue.enqueue(
        uow, request=request, purpose=Purpose.policy, ack_person_id=person_id if ack else None,
        ack_channel=channel, ack_chat_id=chat_id,
    )  # fmt: skip
