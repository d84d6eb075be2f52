"""The Concern record (SPEC §3.5): an open loop waiting for someone's reply."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Column, Index, Integer, String, Text, false
from sqlmodel import Field, SQLModel

from kernel.db import UTCDateTime

ACTIVE_STATES = ("waiting_reply", "escalated")
KINDS = ("question", "commitment", "reminder")


class Concern(SQLModel, table=True):
    """A question asked on someone's behalf and the state of waiting for its answer."""

    __tablename__ = "concerns"
    __table_args__ = (
        Index("ix_concerns_target_state", "target_person_id", "state"),
        Index("ix_concerns_kind_state", "kind", "state"),
        Index("ix_concerns_sandbox_state", "sandbox", "state"),
        Index("ix_concerns_contact_ref", "contact_ref"),
    )

    concern_id: str = Field(sa_column=Column(String(32), primary_key=True))
    originator_id: str = Field(sa_column=Column(String(64), nullable=False, index=True))
    target_person_id: str = Field(sa_column=Column(String(64), nullable=False))
    question: str = Field(sa_column=Column(Text, nullable=False))
    priority: str = Field(sa_column=Column(String(2), nullable=False))
    deadline: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    origin_channel: str | None = Field(default=None, sa_column=Column(String(16)))
    # The group chat the request came from (its confirmation is answered there), None for a direct message.
    origin_chat_id: str | None = Field(default=None, sa_column=Column(String(128)))
    state: str = Field(sa_column=Column(String(16), nullable=False, index=True))
    follow_up_count: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    next_follow_up_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime, index=True))
    answer: str | None = Field(default=None, sa_column=Column(Text))
    answered_by: str | None = Field(default=None, sa_column=Column(String(64)))
    escalated_to: str | None = Field(default=None, sa_column=Column(String(64)))
    kind: str = Field(default="question", sa_column=Column(String(16), nullable=False))  # one of KINDS
    # A question that asks for a decision (risk routing): its buttons are Approve / Decline.
    approval: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    # Raised by what the console's sandbox typed or pressed: closed once a channel is live, never in a live report.
    sandbox: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    # When a commitment or reminder is due.
    due_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    # The question a commitment came from.
    parent_id: str | None = Field(default=None, sa_column=Column(String(32)))
    acknowledged_by: str | None = Field(default=None, sa_column=Column(String(64)))
    acknowledged_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    # How far up the management chain the escalation went (1 = the target's manager), repeats at that level.
    escalation_level: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    escalation_repeats: int = Field(default=0, sa_column=Column(Integer, nullable=False, server_default="0"))
    source_fact_id: str | None = Field(default=None, sa_column=Column(String(32)))
    # "channel:message_id" of every bot message sent for this concern: a quoted reply names its concern.
    message_refs: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # Backflows / escalations that a layer deferred: [{"purpose", "request", "not_before"}].
    pending_deliveries: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    resolved_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    # When the last escalation step happened (expiry counts from it).
    escalated_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    # When the loop's own next step is due; next_follow_up_at is the earlier of this and the held deliveries.
    step_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    # A contact the reachability model or L1 held: until when (None while open-ended) and by what
    # (quiet_hours | pause | cap | away | busy); cleared when the loop next reaches the person.
    held_until: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    held_by: str | None = Field(default=None, sa_column=Column(String(16)))
    # The latest question or follow-up that reached the person (`channel:message_id`), when it went, when they
    # read it (None: unread, or a platform that tells bots nothing) and when the poller last asked (no fact).
    contact_ref: str | None = Field(default=None, sa_column=Column(String(160)))
    contact_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    read_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    read_polled_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    version: int = Field(default=1, sa_column=Column(Integer, nullable=False))
    created_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    updated_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))


class OutboxEntry(SQLModel, table=True):
    """An action a decision requested, written with the decision; drained after commit, idempotent by request_key."""

    __tablename__ = "action_outbox"
    __table_args__ = (Index("ix_action_outbox_available", "state", "available_at"),)

    id: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True),
    )
    request_key: str = Field(sa_column=Column(String(120), nullable=False, unique=True))
    request: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    concern_id: str | None = Field(default=None, sa_column=Column(String(32)))
    concern_version: int | None = Field(default=None, sa_column=Column(Integer))
    purpose: str = Field(sa_column=Column(String(24), nullable=False))
    # Who asked for this action and on which channel: they are told the outcome (tell, policy).
    ack_person_id: str | None = Field(default=None, sa_column=Column(String(64)))
    ack_channel: str | None = Field(default=None, sa_column=Column(String(16)))
    ack_chat_id: str | None = Field(default=None, sa_column=Column(String(128)))  # a group: answered there
    state: str = Field(sa_column=Column(String(12), nullable=False, index=True))  # open | done | superseded | failed
    action_id: str | None = Field(default=None, sa_column=Column(String(32)))
    created_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    # The one drainer that owns the entry while it runs (a lease until available_at), or None.
    claimed_by: str | None = Field(default=None, sa_column=Column(String(80)))
    # When a drainer may take it: now for a new entry, the lease's end while claimed, the slot of a paced send.
    available_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
