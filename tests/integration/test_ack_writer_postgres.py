"""The ack's writer on PostgreSQL: each batch is one autocommitted statement on a connection the writer keeps."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from sqlalchemy import text

from perception.ack_writer import AckWriter
from perception.inbound_queue import Arrived
from tests import event_loops
from tests.backends import ON_POSTGRES

pytestmark = ON_POSTGRES


def _event(ctx, event_id: str) -> Arrived:
    return Arrived("telegram", event_id, "event", b'{"update_id": 1}', received_at=ctx.clock.now())


def _appended(writer: AckWriter, event: Arrived) -> bool:
    return event_loops.run(writer.append(event))


def _stored(ctx, event_id: str) -> int:
    with ctx.db.engine.connect() as conn:  # another connection: what is committed, nothing else
        return conn.execute(text("SELECT count(*) FROM inbound_events WHERE event_id = :e"), {"e": event_id}).scalar()


@pytest.fixture
def commands(monkeypatch):
    """The transaction commands (BEGIN, COMMIT, ROLLBACK) the writer's thread sends to the server."""
    seen: list[str] = []
    real = psycopg.Connection._exec_command

    def spy(self, command, *args, **kwargs):
        if threading.current_thread().name == "deputy-ack-writer":
            seen.append(bytes(command).decode() if not isinstance(command, str) else command)
        return real(self, command, *args, **kwargs)

    monkeypatch.setattr(psycopg.Connection, "_exec_command", spy)
    return seen


def test_a_batch_is_one_statement_with_no_begin_or_commit_of_its_own(ctx, commands):
    assert _stored(ctx, "none") == 0  # the engine's first connection asks the server what it supports: done here
    writer = AckWriter(ctx.db)
    try:
        assert _appended(writer, _event(ctx, "one-statement-1")) is True
        assert _stored(ctx, "one-statement-1") == 1  # committed once answered
        assert _appended(writer, _event(ctx, "one-statement-2")) is True
    finally:
        writer.close()
    assert commands == [], commands


def test_the_writer_appends_on_a_fresh_connection_after_losing_its_own(ctx):
    writer = AckWriter(ctx.db)
    try:
        assert _appended(writer, _event(ctx, "lost-1")) is True
        with ctx.db.engine.connect() as conn:  # the database restarts, or a pooler drops the idle connection
            ended = conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND query LIKE 'WITH appended AS%'"
                )
            ).scalars()
            assert True in list(ended)
        time.sleep(0.1)
        assert _appended(writer, _event(ctx, "lost-2")) is True  # answered, not refused: no retry asked of Telegram
        assert _appended(writer, _event(ctx, "lost-2")) is False
    finally:
        writer.close()
    assert _stored(ctx, "lost-2") == 1


def test_closing_the_writer_gives_its_connection_back(ctx):
    writer = AckWriter(ctx.db)
    assert _appended(writer, _event(ctx, "closed-1")) is True
    assert ctx.db.queue_engine.pool.checkedout() == 1  # kept between batches
    writer.close()
    assert ctx.db.queue_engine.pool.checkedout() == 0


def _backend_of_the_last_append(ctx) -> int:
    with ctx.db.engine.connect() as conn:
        return conn.execute(
            text(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND query LIKE 'WITH appended AS%' ORDER BY state_change DESC LIMIT 1"
            )
        ).scalar()


def test_the_kept_connection_is_replaced_once_it_has_served_its_time(ctx):
    writer = AckWriter(ctx.db)
    try:
        assert _appended(writer, _event(ctx, "recycled-1")) is True
        first = _backend_of_the_last_append(ctx)
        assert _appended(writer, _event(ctx, "recycled-2")) is True
        assert _backend_of_the_last_append(ctx) == first  # kept between batches
        writer.recycle_after = 0  # its time is up
        assert _appended(writer, _event(ctx, "recycled-3")) is True
        assert _backend_of_the_last_append(ctx) != first
    finally:
        writer.close()
