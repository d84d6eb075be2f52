"""Reads on PostgreSQL run in autocommit (no BEGIN, no COMMIT); writes on the same pooled connections stay atomic."""

from __future__ import annotations

import psycopg
import pytest
from sqlalchemy import text

from kernel.db import Database
from tests.backends import ON_POSTGRES

pytestmark = ON_POSTGRES


@pytest.fixture
def db(database_url):
    """A database of its own: used one unit at a time, its pool hands the same connection to each."""
    database = Database(database_url)
    with database.write() as session:  # the first connection asks the server what it supports: done here
        session.execute(text("SELECT 1"))
    yield database
    database.dispose()


@pytest.fixture
def commands(monkeypatch):
    """The transaction commands (BEGIN, COMMIT, ROLLBACK) psycopg sends to the server."""
    seen: list[str] = []
    real = psycopg.Connection._exec_command

    def spy(self, command, *args, **kwargs):
        seen.append(bytes(command).decode() if not isinstance(command, str) else command)
        return real(self, command, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "_exec_command", spy)
    return seen


def test_a_read_sends_its_statements_without_begin_or_commit(db, commands):
    with db.read() as session:
        session.execute(text("SELECT 1"))
        session.execute(text("SELECT 2"))
    assert commands == [], commands


def test_a_write_after_a_read_on_the_same_connection_is_one_transaction(db, commands):
    with db.write() as session:
        session.execute(text("CREATE TABLE IF NOT EXISTS read_then_write (n int)"))
    with db.read() as session:
        session.execute(text("SELECT count(*) FROM read_then_write")).scalar()
    commands.clear()
    assert db.engine.pool.checkedin() == 1  # one connection, the read's: the write below gets it
    with pytest.raises(RuntimeError), db.write() as session:  # the pool gave the read's connection back
        session.execute(text("INSERT INTO read_then_write VALUES (1)"))
        raise RuntimeError("the unit of work fails half-way")
    assert commands[0].startswith("BEGIN") and commands[-1] == "ROLLBACK", commands
    with db.read() as session:
        assert session.execute(text("SELECT count(*) FROM read_then_write")).scalar() == 0  # nothing half-written
    with db.write() as session:
        session.execute(text("DROP TABLE read_then_write"))
