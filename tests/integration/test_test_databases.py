"""The suite's own PostgreSQL copies: one per test, gone when the test ends (a full run would fill a disk)."""

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.conftest import postgres_admin_url

_seen: list[str] = []


def _exists(name: str) -> bool:
    engine = create_engine(postgres_admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT count(*) FROM pg_database WHERE datname = :n"), {"n": name})
            return found.scalar_one() == 1
    finally:
        engine.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_test_has_its_own_postgres_database(database_url: str):
    name = make_url(database_url).database
    assert _exists(name)
    _seen.append(name)


@pytest.mark.postgres
def test_the_previous_tests_database_was_dropped_when_it_ended():
    if not _seen:
        pytest.skip("runs after test_a_test_has_its_own_postgres_database")
    assert not _exists(_seen[-1])
