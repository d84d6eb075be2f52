"""Concern records, their facts, the durable timers and the action outbox (I/O; rules live in rules.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from concern import holds
from concern.models import Concern
from concern.queries import (  # noqa: F401 (the reads, kept where callers have always found them)
    active_counts,
    claim_due,
    escalation_recipients,
    list_,
    state_of,
)
from concern.rules import can_transition
from fact import service as facts
from fact import trace
from kernel.context import UnitOfWork
from kernel.errors import Invalid, NotFound
from kernel.ids import allocate

_TRACKED = (
    "state",
    "follow_up_count",
    "next_follow_up_at",
    "answer",
    "answered_by",
    "escalated_to",
    "escalated_at",
    "due_at",
    "acknowledged_by",
    "acknowledged_at",
    "escalation_level",
    "escalation_repeats",
    "pending_deliveries",
    "resolved_at",
    "held_until",
    "held_by",
    "read_at",
)


def _json(value: Any) -> Any:
    return value.astimezone(UTC).isoformat() if isinstance(value, datetime) else value


def snapshot(concern: Concern) -> dict[str, Any]:
    """The concern as facts and the API show it."""
    return {
        "concern_id": concern.concern_id,
        "originator_id": concern.originator_id,
        "target_person_id": concern.target_person_id,
        "question": concern.question,
        "priority": concern.priority,
        "deadline": _json(concern.deadline),
        "origin_channel": concern.origin_channel,
        "state": concern.state,
        "follow_up_count": concern.follow_up_count,
        "next_follow_up_at": _json(concern.next_follow_up_at),
        "answer": concern.answer,
        "answered_by": concern.answered_by,
        "escalated_to": concern.escalated_to,
        "kind": concern.kind,
        "approval": concern.approval,
        "due_at": _json(concern.due_at),
        "parent_id": concern.parent_id,
        "acknowledged_by": concern.acknowledged_by,
        "acknowledged_at": _json(concern.acknowledged_at),
        "escalation_level": concern.escalation_level,
        "escalated_at": _json(concern.escalated_at),
        "pending_deliveries": concern.pending_deliveries,
        **held_fields(concern),
        "version": concern.version,
        "created_at": _json(concern.created_at),
        "updated_at": _json(concern.updated_at),
        "resolved_at": _json(concern.resolved_at),
    }


def _fact(
    uow: UnitOfWork,
    concern: Concern,
    *,
    change: str,
    causation_id: str | None,
    before: dict[str, Any] | None,
    extra: dict[str, Any] | None = None,
) -> None:
    after = {k: _json(getattr(concern, k)) for k in _TRACKED}
    facts.append(
        uow,
        dedup_key=f"concern:{concern.concern_id}:raised" if change == "raised" else None,
        fresh_key=change == "raised",  # the loop's id was allocated in this transaction
        fact_type="concern_changed",
        source="concern",
        person_refs=[concern.originator_id, concern.target_person_id],
        causation_id=causation_id or concern.concern_id,
        content={
            "concern_id": concern.concern_id,
            "change": change,
            "actor": uow.actor,
            "before": before,
            "after": after,
            "version": concern.version,
            **(extra or {}),
        },
    )


def create(
    uow: UnitOfWork,
    *,
    originator_id: str,
    target_person_id: str,
    question: str,
    priority: str,
    causation_id: str,
    deadline: datetime | None = None,
    origin_channel: str | None = None,
    origin_chat_id: str | None = None,
    kind: str = "question",
    approval: bool = False,
    due_at: datetime | None = None,
    parent_id: str | None = None,
    source_fact_id: str | None = None,
) -> Concern:
    """A new waiting concern (its question is due now) and its `raised` fact."""
    sandbox = _born_in_sandbox(uow, parent_id=parent_id, causation_id=causation_id)
    concern = Concern(
        concern_id=allocate(uow.session, "con", now=uow.now, tz=uow.tz),
        originator_id=originator_id,
        target_person_id=target_person_id,
        question=question,
        priority=priority,
        deadline=deadline,
        origin_channel=origin_channel,
        origin_chat_id=origin_chat_id,
        state="waiting_reply",
        follow_up_count=0,
        next_follow_up_at=None,
        kind=kind,
        approval=approval,
        due_at=due_at,
        parent_id=parent_id,
        source_fact_id=source_fact_id,
        sandbox=sandbox,
        message_refs=[],
        pending_deliveries=[],
        version=1,
        created_at=uow.now,
        updated_at=uow.now,
    )
    uow.session.add(concern)
    uow.session.flush()
    _fact(
        uow,
        concern,
        change="raised",
        causation_id=causation_id,
        before=None,
        extra={"question": question, "priority": priority, "kind": kind, "approval": approval, "due_at": _json(due_at)}
        | ({"sandbox": True} if sandbox else {}),
    )
    return concern


def _born_in_sandbox(uow: UnitOfWork, *, parent_id: str | None, causation_id: str) -> bool:
    """A loop the console's sandbox raised, directly or by a loop it raised (its parent)."""
    parent = get(uow, concern_id=parent_id) if parent_id else None
    return (parent is not None and parent.sandbox) or trace.born_in_sandbox(uow, ref=causation_id)


def held_fields(concern: Concern) -> dict[str, Any]:
    """SPEC §3.5's `held_until` / `held_by` (the earliest held delivery) and `read_at` (when the person read the
    loop's latest message; null while unread or where the platform does not say)."""
    until, by = holds.held(concern.held_until, concern.held_by, concern.pending_deliveries)
    return {"held_until": _json(until), "held_by": by, "read_at": _json(concern.read_at)}


def timer(step_at: datetime | None, pending: list[dict[str, Any]]) -> datetime | None:
    """The one durable timer: the earlier of the loop's own next step and the held deliveries."""
    moments = [datetime.fromisoformat(p["not_before"]) for p in pending]
    if step_at is not None:
        moments.append(step_at)
    return min(moments, default=None)


def change(
    uow: UnitOfWork,
    concern: Concern,
    *,
    change: str,
    causation_id: str | None = None,
    extra: dict[str, Any] | None = None,
    supersedes: bool = True,
    **fields: Any,
) -> Concern:
    """Apply field changes (state moves checked against the state machine), bump the version, write the fact.

    `next_follow_up_at` is never set directly: it follows `step_at` and `pending_deliveries`. A change that
    `supersedes` bumps the version, so queued sends decided for the older version are dropped; keeping held
    deliveries on the side does not (it must not drop the question or follow-up the loop is waiting on).
    """
    if "state" in fields and fields["state"] != concern.state and not can_transition(concern.state, fields["state"]):
        raise Invalid(
            f"concern {concern.concern_id} is {concern.state}; it cannot become {fields['state']}", field="state"
        )
    before = {k: _json(getattr(concern, k)) for k in _TRACKED}
    if "step_at" in fields and "held_by" not in fields:  # a new step is not held until a layer holds it
        fields["held_by"] = None
        fields["held_until"] = None
    for name, value in fields.items():
        setattr(concern, name, value)
    concern.next_follow_up_at = timer(concern.step_at, concern.pending_deliveries)
    if supersedes:
        concern.version += 1
    concern.updated_at = uow.now
    uow.session.flush()
    _fact(uow, concern, change=change, causation_id=causation_id, before=before, extra=extra)
    return concern


def note_message(uow: UnitOfWork, concern: Concern, *, ref: str) -> None:
    """Remember a bot message sent for the concern (quoted replies find it); no version bump."""
    concern.message_refs = [*concern.message_refs, ref]
    uow.session.flush()


def get(uow: UnitOfWork, *, concern_id: str, lock: bool = False) -> Concern | None:
    """A concern by id; `lock` takes its row lock on PostgreSQL."""
    stmt = select(Concern).where(Concern.concern_id == concern_id)
    if lock and uow.postgres:
        stmt = stmt.with_for_update()
    return uow.session.scalars(stmt).first()


def get_or_404(uow: UnitOfWork, *, concern_id: str) -> Concern:
    """A concern by id or NotFound."""
    concern = get(uow, concern_id=concern_id)
    if concern is None:
        raise NotFound(f"concern {concern_id} does not exist", field="concern_id")
    return concern
