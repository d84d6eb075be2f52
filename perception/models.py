"""Normalised inbound signals and the inbox that tracks which signal facts the core has processed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic import Field as PField
from sqlalchemy import BigInteger, Column, Integer, LargeBinary, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from kernel.channel_names import ChannelName
from kernel.db import UTCDateTime
from kernel.instants import OptionalInstant

_PK = BigInteger().with_variant(Integer(), "sqlite")
# A message the rules did not understand, waiting for the optional LLM (cognitive_core.llm_worker); while it is
# being asked, `processed_at` holds when the asking replica took it (a lease another replica may take over).
LLM_PENDING = "llm_pending"
WHO_SENT = [
    {"properties": {"person_id": {"type": "string"}}, "required": ["person_id"]},
    {
        "properties": {"channel": {"type": "string"}, "external_user_id": {"type": "string"}},
        "required": ["channel", "external_user_id"],
    },
    {"properties": {"channel": {"type": "null"}, "external_user_id": {"type": "null"}}},
]


class ExternalSignal(BaseModel):
    """`POST /v1/signals` body: a signal from another system."""

    # The document says what the route checks: a person, or a channel with its user, or neither (not half a pair).
    model_config = ConfigDict(extra="forbid", json_schema_extra={"anyOf": WHO_SENT})

    source: str = PField(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    signal_type: str = PField(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    external_id: str = PField(min_length=1, max_length=200)
    person_id: str | None = PField(None, pattern=r"^p_[a-z0-9_]{1,48}$")
    channel: ChannelName | None = None
    external_user_id: str | None = PField(None, min_length=1, max_length=128)
    content: dict[str, Any] = PField(default_factory=dict)  # depth and text are screened by app.api.guards
    occurred_at: OptionalInstant = None


class InboxEntry(SQLModel, table=True):
    """A signal fact waiting for (or done with) processing by the cognitive core."""

    __tablename__ = "signal_inbox"

    fact_pk: int = Field(sa_column=Column(_PK, primary_key=True))
    fact_id: str = Field(sa_column=Column(String(32), nullable=False, unique=True))
    state: str = Field(
        sa_column=Column(String(12), nullable=False, index=True)
    )  # pending | done | failed | llm_pending
    received_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    processed_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))


class InboundEvent(SQLModel, table=True):
    """A platform's webhook event as it arrived (secrets removed): the signal's durable record until its fact exists.

    The webhook appends it and answers; the processor turns it into facts (`done_at`) and deletes it a bounded time
    later (`perception.inbound_queue`). A queue, not the log: (channel, event_id) is unique, so a repeat writes nothing.
    """

    __tablename__ = "inbound_events"
    __table_args__ = (UniqueConstraint("channel", "event_id", name="uq_inbound_events_channel_event"),)

    pk: int | None = Field(default=None, sa_column=Column(_PK, primary_key=True, autoincrement=True))
    channel: str = Field(sa_column=Column(String(32), nullable=False))
    event_id: str = Field(sa_column=Column(String(200), nullable=False))
    kind: str = Field(sa_column=Column(String(8), nullable=False))  # event | press
    body: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    received_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    done_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime, index=True))
