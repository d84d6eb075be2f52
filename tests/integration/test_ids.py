"""Record ids `<prefix>_<YYYYMMDD>_<seq>` are allocated in the database (SPEC §3.1)."""

from __future__ import annotations

import multiprocessing
import re
import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from kernel.db import Database
from kernel.ids import BLOCK, IdCounter, _blocks, _by_engine, allocate

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # 10:00 in Shanghai, day 20260318
PROCESSES, PER_PROCESS = 4, 500


def _allocate_in_process(url: str, count: int, barrier, results) -> None:
    """Child process body: `count` allocations, each in its own write transaction."""
    db = Database(url)
    ids: list[str] = []
    try:
        barrier.wait(timeout=60)
        for _ in range(count):
            with db.write() as session:
                ids.append(allocate(session, "act", now=NOW, tz=SHANGHAI))
    finally:
        db.dispose()
        results.put(ids)


@pytest.fixture
def db(database_url: str):
    database = Database(database_url)
    yield database
    database.dispose()


def _one(db: Database, prefix: str, now: datetime, tz: ZoneInfo = SHANGHAI) -> str:
    with db.write() as session:
        return allocate(session, prefix, now=now, tz=tz)


@pytest.mark.slow
def test_ids_allocated_by_concurrent_processes_are_unique_and_well_formed(database_url: str):
    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(PROCESSES), spawn.Queue()
    workers = [
        spawn.Process(target=_allocate_in_process, args=(database_url, PER_PROCESS, barrier, results))
        for _ in range(PROCESSES)
    ]
    for w in workers:
        w.start()
    batches = [results.get(timeout=120) for _ in workers]
    for w in workers:
        w.join(timeout=60)
        assert w.exitcode == 0
    ids = [i for batch in batches for i in batch]
    assert all(len(batch) == PER_PROCESS for batch in batches)

    assert len(ids) == len(set(ids)) == PROCESSES * PER_PROCESS
    seqs = []
    for allocated in ids:
        match = re.fullmatch(r"act_20260318_(\d+)", allocated)
        assert match, allocated
        digits = match.group(1)
        seq = int(digits)
        assert len(digits) == max(3, len(str(seq))), f"{allocated} is not padded to exactly 3+ digits"
        seqs.append(seq)
    for batch in batches:  # each process hands its ids out in order
        assert [int(i.rsplit("_", 1)[1]) for i in batch] == sorted(int(i.rsplit("_", 1)[1]) for i in batch)
    if database_url.startswith("sqlite"):  # one writer at a time: every seq is used, none skipped
        assert sorted(seqs) == list(range(1, PROCESSES * PER_PROCESS + 1))
        assert {"act_20260318_001", "act_20260318_999", "act_20260318_1000", "act_20260318_2000"} <= set(ids)
    else:  # blocks per process: unused ends of blocks are gaps, at most one block per process
        assert max(seqs) <= PROCESSES * PER_PROCESS + PROCESSES * BLOCK
        assert "act_20260318_001" in ids


def test_id_date_is_the_local_date_in_the_deployment_timezone(db: Database):
    evening_utc = datetime(2026, 3, 18, 16, 30, tzinfo=UTC)  # already 00:30 on the 19th in Shanghai
    assert _one(db, "fact", evening_utc) == "fact_20260319_001"
    assert _one(db, "act", evening_utc, tz=ZoneInfo("UTC")) == "act_20260318_001"
    assert _one(db, "con", evening_utc, tz=ZoneInfo("America/New_York")) == "con_20260318_001"


def test_id_sequence_restarts_at_001_on_a_new_local_day(db: Database):
    assert [_one(db, "dec", NOW) for _ in range(3)] == ["dec_20260318_001", "dec_20260318_002", "dec_20260318_003"]
    next_day = NOW + timedelta(days=1)
    assert _one(db, "dec", next_day) == "dec_20260319_001"
    assert _one(db, "dec", NOW) == "dec_20260318_004"


def test_id_counters_are_independent_per_prefix(db: Database):
    assert [_one(db, "act", NOW) for _ in range(2)] == ["act_20260318_001", "act_20260318_002"]
    assert _one(db, "dec", NOW) == "dec_20260318_001"
    assert _one(db, "fact", NOW) == "fact_20260318_001"
    assert _one(db, "con", NOW) == "con_20260318_001"
    assert _one(db, "act", NOW) == "act_20260318_003"


def test_id_allocated_in_a_rolled_back_transaction_is_reused_on_sqlite_and_a_gap_on_postgres(db: Database):
    with pytest.raises(RuntimeError), db.write() as session:
        assert allocate(session, "con", now=NOW, tz=SHANGHAI) == "con_20260318_001"
        raise RuntimeError("use case failed")
    assert _one(db, "con", NOW) == ("con_20260318_001" if db.is_sqlite else "con_20260318_002")


@pytest.mark.postgres
def test_postgres_id_counter_row_is_not_locked_by_an_open_transaction(database_url: str):
    if database_url.startswith("sqlite"):
        pytest.skip("SQLite has one writer at a time by design")
    first, second = Database(database_url), Database(database_url)
    try:
        with first.write() as session:
            assert allocate(session, "fact", now=NOW, tz=SHANGHAI) == "fact_20260318_001"
            # Another process (its own blocks) allocates while this transaction is still open: no wait on a row lock.
            _blocks.clear()
            _by_engine.clear()
            other: list[str] = []
            worker = threading.Thread(target=lambda: other.append(_one(second, "fact", NOW)), daemon=True)
            worker.start()
            worker.join(timeout=30)
            assert other == [f"fact_20260318_{BLOCK + 1:03d}"], "the second allocation waited for the open transaction"
    finally:
        first.dispose()
        second.dispose()


@pytest.mark.parametrize("prefix", ["usr", "", "FACT", "p"])
def test_unknown_id_prefix_is_rejected(db: Database, prefix: str):
    with pytest.raises(ValueError, match="prefix"):
        _one(db, prefix, NOW)
    with db.read() as session:
        assert session.scalars(select(IdCounter)).all() == []
