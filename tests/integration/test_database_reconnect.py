"""PostgreSQL connections are not pinged on every checkout; a connection the server dropped is replaced."""

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from kernel.db import Database


def _drop_connections(url: str) -> int:
    """What a server restart or a proxy's idle timeout does: every other connection to this database is gone."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        dropped = conn.execute(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        ).scalar_one()
    engine.dispose()
    return dropped


def test_a_dropped_connection_costs_at_most_one_failed_unit_of_work(database_url: str):
    if database_url.startswith("sqlite"):
        pytest.skip("an embedded SQLite file has no server to drop connections")
    db = Database(database_url)
    try:
        for _ in range(3):  # several pooled connections
            with db.write() as session:
                session.execute(text("SELECT 1"))
        assert _drop_connections(database_url) >= 1
        failures = 0
        for _ in range(3):
            try:
                with db.write() as session:
                    session.execute(text("SELECT 1"))
                break
            except DBAPIError as exc:
                assert exc.connection_invalidated  # recognised as a lost connection: the pool is renewed
                failures += 1
        assert failures <= 1
        with db.write() as session:  # and from then on every checkout is a live connection
            assert session.execute(text("SELECT 1")).scalar_one() == 1
    finally:
        db.dispose()
