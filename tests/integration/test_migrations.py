"""Alembic migrations are the only source of the schema, and it matches the SQLModel models."""

from __future__ import annotations

import importlib
import importlib.util
import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Engine, make_url
from sqlmodel import SQLModel

from app import migrate
from app.wiring import build_context
from fact import service as facts
from kernel.db import UTCDateTime
from tests.conftest import make_settings, postgres_admin_url

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
    "app.console.store",
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


def _fts_tables(engine: Engine) -> set[str]:
    """SQLite's FTS5 search tables (migration 0007) and their shadow tables: storage no model declares."""
    if engine.dialect.name != "sqlite":
        return set()
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'table'")).all()
    virtual = {name for name, sql in rows if sql and sql.upper().startswith("CREATE VIRTUAL TABLE")}
    return virtual | {name for name, _ in rows if any(name.startswith(f"{v}_") for v in virtual)}


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
    fts = {"fact_search_fts", "fact_search_bigrams"} if engine.dialect.name == "sqlite" else set()
    assert fts <= _fts_tables(engine)
    assert set(inspect(engine).get_table_names()) == _model_tables() | {"alembic_version"} | _fts_tables(engine)
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


# The GIN index over fact grams is declared for PostgreSQL only (ddl_if); on SQLite alembic still sees it and warns.
@pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index")
def test_migrated_schema_matches_the_sqlmodel_metadata(empty_database_url: str, engine: Engine):
    migrate.upgrade(empty_database_url)
    assert _model_tables() >= FOUNDATION_TABLES
    with engine.connect() as conn:
        fts = _fts_tables(engine)
        opts = {
            "compare_type": True,
            "compare_server_default": True,
            "include_name": lambda name, kind, _parent: not (kind == "table" and name in fts),
        }
        context = MigrationContext.configure(conn, opts=opts)
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


def _old_facts(engine: Engine, count: int) -> list[str]:
    """Facts written at 0006, before the search index existed: the real rows, appended as the old code did."""
    table = sa.table(
        "facts",
        *(sa.column(name) for name in ("fact_id", "fact_type", "source", "dedup_key", "causation_id")),
        sa.column("person_refs", sa.JSON),
        sa.column("content", sa.JSON().with_variant(JSONB(), "postgresql")),
        sa.column("timestamp", UTCDateTime),
    )
    at = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)
    rows = [
        {"fact_type": "message_received", "content": {"channel": "feishu", "text": "明天提测 Review"}},
        {"fact_type": "decision", "content": {"kind": "ask", "requested": [{"question": "提测什么时候能给？"}]}},
        {"fact_type": "system", "content": {"event": "tick"}},
    ] + [
        {"fact_type": "message_received", "content": {"channel": "telegram", "text": f"批量 {n}"}} for n in range(count)
    ]
    values = [
        {"fact_id": f"fact_20260318_{n + 1:03d}", "source": "perception", "dedup_key": None, "causation_id": None}
        | {"person_refs": [], "timestamp": at + timedelta(seconds=n)}
        | row
        for n, row in enumerate(rows)
    ]
    with engine.begin() as conn:
        conn.execute(sa.insert(table), values)
    return [v["fact_id"] for v in values]


def test_0007_indexes_the_facts_recorded_before_it_with_progress(
    empty_database_url: str, engine: Engine, capsys: pytest.CaptureFixture[str]
):
    config = migrate.alembic_config(empty_database_url)
    command.upgrade(config, "0006")
    ids = _old_facts(engine, 5100)
    command.upgrade(config, "head")
    progress = [line for line in capsys.readouterr().out.splitlines() if line.startswith("0007 fact search")]
    assert progress[-1].startswith(f"0007 fact search: indexed {len(ids):,} / {len(ids):,} facts")
    assert len(progress) == 2, "one line a batch"
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM fact_search")).scalar_one() == len(ids) - 1, (
            "the tick has no text"
        )
        assert conn.execute(text("SELECT count(*) FROM facts")).scalar_one() == len(ids), "no fact was rewritten"

    ctx = build_context(make_settings(empty_database_url))
    try:
        with ctx.uow() as uow:
            new, _ = facts.append(uow, fact_type="message_received", source="perception", content={"text": "又提测了"})
        with ctx.reader() as uow:
            found = [f.fact_id for f in facts.list_(uow, filters=facts.FactFilter(q="提测"))[0]]
            review = [f.fact_id for f in facts.list_(uow, filters=facts.FactFilter(q="REVIEW"))[0]]
            batch, cursor = facts.list_(uow, filters=facts.FactFilter(q="批量 51"), limit=500)
            channel = facts.list_(uow, filters=facts.FactFilter(q="channel"))[0]
    finally:
        ctx.close()
    assert found == [new.fact_id, ids[1], ids[0]]
    assert review == [ids[0]]
    assert [f.fact_id for f in batch] == [ids[3 + n] for n in sorted(range(5100), reverse=True) if "51" in str(n)[:2]]
    assert cursor is None and channel == []
