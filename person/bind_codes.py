"""One-time bind codes: an admin issues a code for a person; `/start <code>` or `bind <code>` links that chat."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import BigInteger, Column, Integer, String, func, select
from sqlmodel import Field, SQLModel

from fact import service as facts
from kernel.context import UnitOfWork
from kernel.db import UTCDateTime
from kernel.errors import Conflict
from person import service as persons
from person.models import ChannelBinding, ChannelBindingIn

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 symbols, no 0/O/1/I
CODE_LENGTH = 10
VALIDITY = timedelta(hours=24)
MAX_FAILURES_PER_HOUR = 5


class BindCode(SQLModel, table=True):
    """An issued code, stored hashed; single use."""

    __tablename__ = "bind_codes"

    code_hash: str = Field(sa_column=Column(String(64), primary_key=True))
    person_id: str = Field(sa_column=Column(String(64), nullable=False, index=True))
    expires_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))
    used_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime))
    used_by: str | None = Field(default=None, sa_column=Column(String(160)))
    created_at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))


class BindFailure(SQLModel, table=True):
    """A wrong code from a sender (brute-force limit)."""

    __tablename__ = "bind_failures"

    id: int | None = Field(
        default=None,
        sa_column=Column(BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True),
    )
    sender: str = Field(sa_column=Column(String(160), nullable=False, index=True))
    at: datetime = Field(sa_column=Column(UTCDateTime, nullable=False))


def _hash(code: str) -> str:
    return hashlib.sha256(code.strip().upper().encode()).hexdigest()


def issue(uow: UnitOfWork, *, person_id: str) -> tuple[str, datetime]:
    """A fresh code for an existing person, valid 24 h; (code, expires_at)."""
    persons.get_or_404(uow, person_id=person_id)
    code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    expires = uow.now + VALIDITY
    uow.session.add(BindCode(code_hash=_hash(code), person_id=person_id, expires_at=expires, created_at=uow.now))
    uow.session.flush()
    facts.append(
        uow,
        fact_type="person_changed",
        source="admin_api",
        person_refs=[person_id],
        content={
            "change": "bind_code_issued",
            "person_id": person_id,
            "actor": uow.actor,
            "expires_at": expires.isoformat(),
        },
    )
    return code, expires


def redeem(
    uow: UnitOfWork, *, code: str, channel: str, external_user_id: str, chat_id: str | None
) -> tuple[str | None, str]:
    """Bind the sender to the code's person; returns (person_id or None, outcome)."""
    sender = f"{channel}:{external_user_id}"
    recent = (
        select(func.count())
        .select_from(BindFailure)
        .where(BindFailure.sender == sender, BindFailure.at > uow.now - timedelta(hours=1))
    )
    if (uow.session.scalar(recent) or 0) >= MAX_FAILURES_PER_HOUR:
        return None, "too_many_attempts"
    row = uow.session.get(BindCode, _hash(code))
    if row is None or row.used_at is not None or row.expires_at <= uow.now:
        uow.session.add(BindFailure(sender=sender, at=uow.now))
        uow.session.flush()
        return None, "invalid" if row is None else ("used" if row.used_at else "expired")
    taken = uow.session.scalars(
        select(ChannelBinding).where(
            ChannelBinding.channel == channel, ChannelBinding.external_user_id == external_user_id
        )
    ).first()
    if taken is not None and taken.person_id != row.person_id:
        raise Conflict(f"{sender} is already bound to {taken.person_id}", field="code")
    current = [
        b
        for b in persons.bindings_of(uow, person_id=row.person_id)
        if not (b.channel == channel and b.external_user_id == external_user_id)
    ]
    new = [
        ChannelBindingIn(
            channel=b.channel, external_user_id=b.external_user_id, chat_id=b.chat_id, reachable=b.reachable
        )
        for b in current
    ]
    new.append(ChannelBindingIn(channel=channel, external_user_id=external_user_id, chat_id=chat_id, reachable=True))
    row.used_at, row.used_by = uow.now, sender
    persons.replace_bindings(uow, person_id=row.person_id, bindings=new, source="person")
    return row.person_id, "bound"
