"""Record ids `<prefix>_<YYYYMMDD>_<seq>` allocated in the database, unique across processes.

On SQLite every id is counted inside the caller's transaction: it holds the database's one write lock anyway, so
seqs stay contiguous. On PostgreSQL a process reserves a block of seqs in its own short transaction and hands them
out from memory, so no use case holds the day's counter row until it commits (which made every writer in every
replica queue behind it). Ids stay unique and ordered within a process; a block a process never uses is a gap,
which SPEC §3.1 allows (seqs count up, they are not promised to be contiguous).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from datetime import datetime
from weakref import WeakKeyDictionary
from zoneinfo import ZoneInfo

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel

PREFIXES = ("fact", "act", "dec", "con")
ID_PATTERN = re.compile(r"^(fact|act|dec|con)_(\d{8})_(\d{3,})$")


class IdCounter(SQLModel, table=True):
    """The last sequence number handed out per prefix and local day."""

    __tablename__ = "id_counters"

    prefix: str = Field(primary_key=True, max_length=8)
    day: str = Field(primary_key=True, max_length=8)
    last_seq: int


# SQLite: one statement inside the caller's transaction (the write lock is held until it ends anyway).
_NEXT_SEQ = text(
    "INSERT INTO id_counters (prefix, day, last_seq) VALUES (:prefix, :day, 1) "
    "ON CONFLICT (prefix, day) DO UPDATE SET last_seq = id_counters.last_seq + 1 "
    "RETURNING last_seq"
)


# Reserve `n` seqs at once: the returned value is the last of them.
_RESERVE = text(
    "INSERT INTO id_counters (prefix, day, last_seq) VALUES (:prefix, :day, :n) "
    "ON CONFLICT (prefix, day) DO UPDATE SET last_seq = id_counters.last_seq + :n "
    "RETURNING last_seq"
)
BLOCK = 32


class _Blocks:
    """The seqs this process reserved and has not handed out yet, per (prefix, day), for one database."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.free: OrderedDict[tuple[str, str], tuple[int, int]] = OrderedDict()  # (next, last) per key

    def next_seq(self, engine: Engine, prefix: str, day: str) -> int:
        with self.lock:
            following, last = self.free.get((prefix, day), (1, 0))
            if following > last:
                # Its own transaction, committed at once: the counter row is locked for one statement only.
                with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                    last = conn.execute(_RESERVE, {"prefix": prefix, "day": day, "n": BLOCK}).scalar_one()
                following = last - BLOCK + 1
            self.free[(prefix, day)] = (following + 1, last)
            self.free.move_to_end((prefix, day))
            while len(self.free) > 4 * len(PREFIXES):  # yesterday's leftovers
                self.free.popitem(last=False)
            return following


# Per database URL, so every engine of this process over one database shares its blocks; found per engine
# without rendering the URL on every allocation.
_blocks: dict[str, _Blocks] = {}
_by_engine: WeakKeyDictionary[Engine, _Blocks] = WeakKeyDictionary()
_blocks_lock = threading.Lock()


def _blocks_for(engine: Engine) -> _Blocks:
    with _blocks_lock:
        blocks = _by_engine.get(engine)
        if blocks is None:
            key = engine.url.render_as_string(hide_password=False)
            blocks = _by_engine[engine] = _blocks.setdefault(key, _Blocks())
        return blocks


def format_id(prefix: str, day: str, seq: int) -> str:
    """`act`, `20260318`, 7 → `act_20260318_007`."""
    return f"{prefix}_{day}_{seq:03d}"


def allocate(session: Session, prefix: str, *, now: datetime, tz: ZoneInfo) -> str:
    """Allocate the next id for `prefix` on the local day of `now` inside the caller's transaction."""
    if prefix not in PREFIXES:
        raise ValueError(f"unknown id prefix {prefix!r}")
    day = now.astimezone(tz).strftime("%Y%m%d")
    bind = session.get_bind()
    if bind.dialect.name == "sqlite":
        seq = session.execute(_NEXT_SEQ, {"prefix": prefix, "day": day}).scalar_one()
    else:
        seq = _blocks_for(bind.engine).next_seq(bind.engine, prefix, day)
    return format_id(prefix, day, seq)


def allocate_many(session: Session, prefix: str, count: int, *, now: datetime, tz: ZoneInfo) -> list[str]:
    """`count` ids for `prefix` on the local day of `now`, in order: one statement on SQLite, blocks on PostgreSQL."""
    if prefix not in PREFIXES:
        raise ValueError(f"unknown id prefix {prefix!r}")
    if count <= 0:
        return []
    day = now.astimezone(tz).strftime("%Y%m%d")
    bind = session.get_bind()
    if bind.dialect.name == "sqlite":
        last = session.execute(_RESERVE, {"prefix": prefix, "day": day, "n": count}).scalar_one()
        return [format_id(prefix, day, seq) for seq in range(last - count + 1, last + 1)]
    blocks = _blocks_for(bind.engine)
    return [format_id(prefix, day, blocks.next_seq(bind.engine, prefix, day)) for _ in range(count)]
