"""SQLite writers of every process queue on one `flock` beside the database, taken before BEGIN IMMEDIATE: a waiting
writer sleeps in the kernel and is woken when the lock is released, never in SQLite's busy handler (which polls
with sleeps of up to 100 ms). The web process, the processor and a CLI command all write through it."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from kernel.db import Database

WRITER = """
import sys
from sqlalchemy import text
from kernel.db import Database
db = Database(sys.argv[1])
print("ready", flush=True)
with db.write() as session:
    session.execute(text("INSERT INTO notes VALUES ('second')"))
db.dispose()
"""


@pytest.fixture
def db(tmp_path: Path):
    database = Database(f"sqlite:///{tmp_path / 'w.db'}")
    with database.write() as session:
        session.execute(text("CREATE TABLE notes (who TEXT)"))
    yield database
    database.dispose()


def _lock_file(db: Database) -> Path:
    return Path(f"{db.engine.url.database}-writer.lock")


def _locked_by_someone(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_write_transaction_holds_the_writer_lock_until_it_ends_nested_ones_included(db):
    with db.write():
        assert _locked_by_someone(_lock_file(db))
        with db.write():  # reentrant, like a nested unit of work
            assert _locked_by_someone(_lock_file(db))
        assert _locked_by_someone(_lock_file(db)), "the inner block must not release the outer one's lock"
    assert not _locked_by_someone(_lock_file(db))


def test_a_read_takes_no_writer_lock(db):
    with db.read() as session:
        session.execute(text("SELECT count(*) FROM notes"))
        assert not _locked_by_someone(_lock_file(db))


def test_a_writer_in_another_process_waits_in_the_kernel_and_writes_after_the_first(db, tmp_path):
    root = Path(__file__).resolve().parents[2]
    with db.write() as session:
        session.execute(text("INSERT INTO notes VALUES ('first')"))
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db.engine.url)], cwd=root, stdout=subprocess.PIPE, text=True
        )
        assert child.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 30
        while not _waiting_for_flock(child.pid):  # blocked in flock(2), before BEGIN IMMEDIATE
            assert child.poll() is None and time.monotonic() < deadline, "the other writer never queued on the lock"
            time.sleep(0.02)
    assert child.wait(30) == 0
    with db.read() as session:
        assert list(session.scalars(text("SELECT who FROM notes ORDER BY rowid"))) == ["first", "second"]


def _waiting_for_flock(pid: int) -> bool:
    """True while `pid` is queued for a FLOCK (a `->` line of /proc/locks)."""
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields and "FLOCK" in fields and str(pid) in fields:
            return True
    return False
