"""Alembic migrations are the only source of the schema, and it matches the SQLModel models."""

from __future__ import annotations

import importlib
import importlib.util
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import Engine, make_url
from sqlmodel import SQLModel

from app import migrate
from tests.conftest import postgres_admin_url

FOUNDATION_TABLES = {"id_counters", "facts", "fact_person_refs", "persons", "channel_bindings"}
LAYERS = (
    "kernel.ids",
    "fact",
    "person",
    "person.bind_codes",
    "perception",
    "cognitive_core",
    "concern",
    "action",
    "channels",
)


def _model_tables() -> set[str]:
    """Import every layer's `models` module so SQLModel.metadata holds every table the code declares."""
    for layer in LAYERS:
        module = layer if "." in layer else f"{layer}.models"
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)
    return set(SQLModel.metadata.tables)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with nothing in it, not even the file (SQLite) or a single table (PostgreSQL)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'var' / 'fresh.db'}"
        return
    admin_url = postgres_admin_url()
    name = f"deputy_mig_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def engine(empty_database_url: str) -> Iterator[Engine]:
    eng = create_engine(empty_database_url)
    yield eng
    eng.dispose()


def _head() -> str:
    heads = ScriptDirectory.from_config(migrate.alembic_config("sqlite://")).get_heads()
    assert len(heads) == 1, f"migrations must have exactly one head, found {heads}"
    return heads[0]


def _version(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _triggers(engine: Engine) -> set[str]:
    query = (
        "SELECT name FROM sqlite_master WHERE type = 'trigger'"
        if engine.dialect.name == "sqlite"
        else "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
    )
    with engine.connect() as conn:
        return set(conn.execute(text(query)).scalars())


def _schema(engine: Engine) -> dict:
    insp = inspect(engine)
    return {
        table: (
            [(c["name"], str(c["type"]), c["nullable"]) for c in insp.get_columns(table)],
            sorted((i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in insp.get_indexes(table)),
            sorted(tuple(u["column_names"]) for u in insp.get_unique_constraints(table)),
            sorted((tuple(f["constrained_columns"]), f["referred_table"]) for f in insp.get_foreign_keys(table)),
        )
        for table in sorted(insp.get_table_names())
    } | {"triggers": sorted(_triggers(engine))}


def test_upgrade_creates_the_schema_on_an_empty_database(empty_database_url: str, engine: Engine):
    if engine.dialect.name == "sqlite":
        assert not Path(make_url(empty_database_url).database).parent.exists(), "upgrade must create ./var itself"
    else:
        assert inspect(engine).get_table_names() == []
    migrate.upgrade(empty_database_url)
    assert set(inspect(engine).get_table_names()) == _model_tables() | {"alembic_version"}
    assert _version(engine) == _head()
    append_only = {"facts", "fact_person_refs"}
    if engine.dialect.name == "sqlite":
        expected = {f"{t}_no_{verb}" for t in append_only for verb in ("update", "delete", "replace")}
    else:
        expected = {f"{t}_append_only" for t in append_only} | {f"{t}_no_truncate" for t in append_only}
    assert expected <= _triggers(engine)


def test_upgrade_twice_is_a_no_op(empty_database_url: str, engine: Engine):
    migrate.upgrade(empty_database_url)
    before = _schema(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO id_counters (prefix, day, last_seq) VALUES ('act', '20260318', 7)"))
    migrate.upgrade(empty_database_url)
    assert _schema(engine) == before
    assert _version(engine) == _head()
    with engine.connect() as conn:
        assert conn.execute(text("SELECT last_seq FROM id_counters")).scalar_one() == 7


def test_migrated_schema_matches_the_sqlmodel_metadata(empty_database_url: str, engine: Engine):
    migrate.upgrade(empty_database_url)
    assert _model_tables() >= FOUNDATION_TABLES
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        differences = compare_metadata(context, SQLModel.metadata)
    assert differences == []


def test_downgrade_to_base_and_upgrade_again_round_trips(empty_database_url: str, engine: Engine):
    migrate.upgrade(empty_database_url)
    schema = _schema(engine)
    command.downgrade(migrate.alembic_config(empty_database_url), "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    assert _triggers(engine) == set()
    migrate.upgrade(empty_database_url)
    assert _schema(engine) == schema


def _pg_trigger_modes(engine: Engine) -> dict[str, str]:
    """tgenabled per append-only trigger: 'O' fires in the origin role only, 'A' in every replication role."""
    with engine.connect() as conn:
        query = "SELECT tgname, tgenabled FROM pg_trigger WHERE NOT tgisinternal AND tgname LIKE 'fact%'"
        rows = conn.execute(text(query))
        return {name: mode.decode() if isinstance(mode, bytes) else mode for name, mode in rows}


def test_fact_log_guards_come_with_0005_and_go_with_its_downgrade(empty_database_url: str, engine: Engine):
    config = migrate.alembic_config(empty_database_url)
    command.upgrade(config, "0004")
    before = _schema(engine)
    pg = engine.dialect.name == "postgresql"
    if pg:
        assert set(_pg_trigger_modes(engine).values()) == {"O"}
    command.upgrade(config, "0005")
    if pg:
        guards = {f"{t}_{k}" for t in ("facts", "fact_person_refs") for k in ("append_only", "no_truncate")}
        assert _pg_trigger_modes(engine) == dict.fromkeys(guards, "A")
    else:
        assert {"facts_no_replace", "fact_person_refs_no_replace"} <= _triggers(engine)
    command.downgrade(config, "0004")
    assert _schema(engine) == before
    assert _version(engine) == "0004"
    if pg:
        assert set(_pg_trigger_modes(engine).values()) == {"O"}
