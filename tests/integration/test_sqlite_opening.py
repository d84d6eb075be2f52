"""Processes opening a new SQLite database at the same moment all get in (the web process and the processor each
make the inbound queue's file on first use; switching a new file to WAL is refused, not waited for, by SQLite)."""

import multiprocessing

from sqlalchemy import text

ROUNDS = 40
PROCESSES = 4


def open_each(urls: list[str], start, results) -> None:
    """In a process of its own: for each new database, wait for the others, then open and read it."""
    from kernel.db import Database

    for url in urls:
        start.wait()
        db = Database(url)
        try:
            with db.read() as session:
                session.execute(text("SELECT 1"))
            results.put("ok")
        except Exception as exc:  # reported to the test, which names it
            results.put(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
        finally:
            db.dispose()


def test_processes_opening_a_new_database_together_are_never_refused(tmp_path):
    urls = [f"sqlite:///{tmp_path / f'round{n}.db'}" for n in range(ROUNDS)]
    spawn = multiprocessing.get_context("spawn")
    start, results = spawn.Barrier(PROCESSES), spawn.Queue()
    workers = [spawn.Process(target=open_each, args=(urls, start, results)) for _ in range(PROCESSES)]
    for worker in workers:
        worker.start()
    answers = [results.get(timeout=120) for _ in range(ROUNDS * PROCESSES)]
    for worker in workers:
        worker.join(30)
    assert [a for a in answers if a != "ok"] == []
