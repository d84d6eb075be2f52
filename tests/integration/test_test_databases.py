"""The suite's own PostgreSQL databases: each test starts on an empty migrated one, under a name of its own, and a
run keeps one working copy per process (a copy per test cost a second each and, kept, filled a disk)."""

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from fact import service as facts
from fact.service import FactFilter
from tests.conftest import postgres_admin_url

_seen: list[str] = []
pytestmark = [pytest.mark.postgres, pytest.mark.parametrize("database_url", ["postgres"], indirect=True)]


def _databases() -> set[str]:
    engine = create_engine(postgres_admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            return set(conn.scalars(text("SELECT datname FROM pg_database")))
    finally:
        engine.dispose()


def _write_a_fact(ctx) -> None:
    with ctx.uow(actor="test") as uow:
        facts.append(uow, fact_type="external_signal", source="system", content={"n": len(_seen)}, person_refs=[])


@pytest.mark.parametrize("turn", [1, 2])
def test_each_test_starts_on_an_empty_database_of_a_name_of_its_own(ctx, database_url: str, turn: int):
    name = make_url(database_url).database
    with ctx.reader() as uow:
        assert facts.list_(uow, filters=FactFilter())[0] == [], "what the last test wrote is gone"
    _write_a_fact(ctx)  # the append-only log: only the harness's own reset may empty it
    with ctx.reader() as uow:
        [written] = facts.list_(uow, filters=FactFilter())[0]
    assert written.pk == 1, "the sequences start again too"
    assert name in _databases() and name not in _seen
    if _seen:
        assert _seen[-1] not in _databases(), "the last test's name no longer reaches anything"
    _seen.append(name)
