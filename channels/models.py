"""Small durable state the channel adapters keep between restarts (e.g. Telegram's getUpdates offset)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, String, Text
from sqlmodel import Field, SQLModel

from kernel.context import UnitOfWork
from kernel.db import UTCDateTime


class ChannelState(SQLModel, table=True):
    """One key/value pair; keys are namespaced by channel (`telegram:<bot id>:updates_offset`)."""

    __tablename__ = "channel_state"

    key: str = Field(sa_column=Column(String(128), primary_key=True))
    value: str = Field(sa_column=Column(Text, nullable=False))
    updated_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))


def read_state(uow: UnitOfWork, *, key: str) -> str | None:
    """The stored value for `key`, or None."""
    row = uow.session.get(ChannelState, key)
    return row.value if row is not None else None


def write_state(uow: UnitOfWork, *, key: str, value: str) -> None:
    """Store `value` under `key` in the caller's transaction (insert or replace)."""
    row = uow.session.get(ChannelState, key)
    if row is None:
        uow.session.add(ChannelState(key=key, value=value, updated_at=uow.now))
    else:
        row.value, row.updated_at = value, uow.now
    uow.session.flush()
