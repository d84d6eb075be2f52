"""`deputy backup FILE`: a consistent copy of the live embedded SQLite database, taken with SQLite's online
backup API while the service keeps writing (PostgreSQL deployments use pg_dump: docs/operations.md,
"Backup and restore")."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from sqlalchemy.engine import make_url

PAGES_PER_STEP = 1024  # pages copied between two progress reports (4 MiB with SQLite's default 4 KiB pages)
BUSY_TIMEOUT_MS = 60_000  # the service's writers hold the lock only briefly; wait for them as the service does
Progress = Callable[[int, int], None]  # (pages copied, pages in all)


class BackupError(RuntimeError):
    """The backup could not be taken or did not verify; nothing was left at the target."""


@dataclass(frozen=True)
class BackupResult:
    """What was copied: the target, its size and the integrity check of the copy."""

    source: Path
    target: Path
    pages: int
    bytes: int
    integrity: str
    queue: Path | None = None  # the inbound queue's copy, when the database has one beside it


def sqlite_path(database_url: str) -> Path:
    """The file behind a `sqlite:///` URL; BackupError for PostgreSQL or an in-memory database."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        raise BackupError(
            f"`deputy backup` copies the embedded SQLite database; this deployment uses {url.get_backend_name()}: "
            "use pg_dump (docs/operations.md, Backup and restore)"
        )
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory database cannot be backed up")
    return Path(url.database).expanduser()


def integrity_check(path: Path) -> str:
    """`PRAGMA integrity_check` of the file at `path`: "ok", or SQLite's first complaints."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = [row[0] for row in conn.execute("PRAGMA integrity_check")]
    except sqlite3.DatabaseError as exc:  # damaged beyond what the check itself can read
        return str(exc)
    finally:
        conn.close()
    return "ok" if rows == ["ok"] else "; ".join(rows[:5])


def queue_file(database: Path) -> Path:
    """The inbound queue's own database beside an embedded one (`kernel.db`): webhook events not yet facts."""
    return Path(f"{database}-inbound.sqlite")


def backup(
    database_url: str,
    target: Path,
    *,
    overwrite: bool = False,
    on_progress: Progress | None = None,
    pages_per_step: int = PAGES_PER_STEP,
) -> BackupResult:
    """Copy the database to `target` (and its inbound queue to `target`-inbound.sqlite) and verify the copies; each
    appears only once it is whole and checked.

    The queue is copied first: an event it holds that becomes a fact before the database's copy is taken is in
    both, and recorded again on a restore writes nothing (its fact's dedup key); the other order could lose it.
    """
    source = sqlite_path(database_url)
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    queue, queue_target = queue_file(source), queue_file(target)
    for path in (target, queue_target) if queue.is_file() else (target,):
        if path.exists() and not overwrite:
            raise BackupError(f"{path} exists; choose another file or pass --force")
    if target.resolve() == source.resolve():
        raise BackupError("the backup must not overwrite the database itself")
    if queue.is_file():
        _copy(queue, queue_target, pages_per_step=pages_per_step)
    try:
        result = _copy(source, target, on_progress=on_progress, pages_per_step=pages_per_step)
    except BackupError:
        queue_target.unlink(missing_ok=True)
        raise
    return replace(result, queue=queue_target if queue.is_file() else None)


def _copy(
    source: Path, target: Path, *, on_progress: Progress | None = None, pages_per_step: int = PAGES_PER_STEP
) -> BackupResult:
    """Copy one SQLite file to `target` with the online backup API and verify the copy.

    The source connection holds one read transaction for the whole copy: in WAL mode the service's writers go
    on, and every step copies pages of the same snapshot (the backup never restarts and never tears).
    """
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(source, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    dst = sqlite3.connect(partial, isolation_level=None)
    try:
        src.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        src.execute("BEGIN")
        src.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the read snapshot starts here
        total = src.execute("PRAGMA page_count").fetchone()[0]
        page_size = src.execute("PRAGMA page_size").fetchone()[0]

        def progress(_status: int, remaining: int, pages: int) -> None:
            if on_progress is not None:
                on_progress(pages - remaining, pages)

        src.backup(dst, pages=max(pages_per_step, 1), progress=progress, sleep=0)
        src.execute("COMMIT")
        # One self-contained file (no -wal / -shm beside it); the service turns WAL on again when it opens it.
        dst.execute("PRAGMA journal_mode=DELETE")
    except sqlite3.Error as exc:
        dst.close()
        partial.unlink(missing_ok=True)
        raise BackupError(f"backup failed: {exc}") from exc
    finally:
        src.close()
    dst.close()
    verdict = integrity_check(partial)
    if verdict != "ok":
        partial.unlink(missing_ok=True)
        raise BackupError(f"the copy failed PRAGMA integrity_check: {verdict}")
    os.replace(partial, target)
    return BackupResult(source, target, total, total * page_size, verdict)
