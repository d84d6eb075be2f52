"""The Concern record (SPEC §3.5): an open loop waiting for someone's reply."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from app.db import UTCDateTime

ACTIVE_STATES = ("waiting_reply", "escalated")
PRIORITIES = ("P0", "P1", "P2", "P3")


class Concern(SQLModel, table=True):
    """A question asked on someone's behalf and the state of waiting for its answer."""

    __tablename__ = "concerns"
    __table_args__ = (Index("ix_concerns_target_state", "target_person_id", "state"),)

    concern_id: str = Field(sa_column=Column(String(32), primary_key=True))
    originator_id: str = Field(sa_column=Column(String(64), nullable=False, index=True))
    target_person_id: str = Field(sa_column=Column(String(64), nullable=False))
    question: str = Field(sa_column=Column(Text, nullable=False))
    priority: str = Field(sa_column=Column(String(2), nullable=False))
    deadline: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    origin_channel: str | None = Field(default=None, sa_column=Column(String(16)))
    state: str = Field(sa_column=Column(String(16), nullable=False, index=True))
    follow_up_count: int = Field(default=0, sa_column=Column(Integer, nullable=False))
    next_follow_up_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime, index=True))
    answer: str | None = Field(default=None, sa_column=Column(Text))
    version: int = Field(default=1, sa_column=Column(Integer, nullable=False))
    created_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    updated_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
