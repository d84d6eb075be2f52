"""Record ids `<prefix>_<YYYYMMDD>_<seq>` allocated in the database, unique across processes."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import text
from sqlmodel import Field, Session, SQLModel

PREFIXES = ("fact", "act", "dec", "con")
ID_PATTERN = re.compile(r"^(fact|act|dec|con)_(\d{8})_(\d{3,})$")


class IdCounter(SQLModel, table=True):
    """The last sequence number handed out per prefix and local day."""

    __tablename__ = "id_counters"

    prefix: str = Field(primary_key=True, max_length=8)
    day: str = Field(primary_key=True, max_length=8)
    last_seq: int


# One statement, atomic on both backends: the row lock (PostgreSQL) or the write lock (SQLite)
# is held until the surrounding transaction ends, so committed seqs are contiguous.
_NEXT_SEQ = text(
    "INSERT INTO id_counters (prefix, day, last_seq) VALUES (:prefix, :day, 1) "
    "ON CONFLICT (prefix, day) DO UPDATE SET last_seq = id_counters.last_seq + 1 "
    "RETURNING last_seq"
)


def format_id(prefix: str, day: str, seq: int) -> str:
    """`act`, `20260318`, 7 → `act_20260318_007`."""
    return f"{prefix}_{day}_{seq:03d}"


def allocate(session: Session, prefix: str, *, now: datetime, tz: ZoneInfo) -> str:
    """Allocate the next id for `prefix` on the local day of `now` inside the caller's transaction."""
    if prefix not in PREFIXES:
        raise ValueError(f"unknown id prefix {prefix!r}")
    day = now.astimezone(tz).strftime("%Y%m%d")
    seq = session.execute(_NEXT_SEQ, {"prefix": prefix, "day": day}).scalar_one()
    return format_id(prefix, day, seq)
