"""Fixtures: real SQLite and PostgreSQL databases (migrated by Alembic), a frozen clock, the app."""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from app import migrate
from app.main import create_app
from app.settings import Settings
from app.wiring import build_context
from kernel.clock import FrozenClock
from kernel.context import AppContext

pytest_plugins = ["tests.integration.concern_fixtures"]

ADMIN_TOKEN = "admin-token-0123456789"
VIEWER_TOKEN = "viewer-token-0123456789"
START = datetime(2026, 3, 18, 2, 0, tzinfo=UTC)  # 10:00 in Asia/Shanghai
REQUIRE_SERVICES = os.environ.get("DEPUTY_REQUIRE_SERVICES") == "1"
_counter = itertools.count()


def _missing(what: str, why: str) -> None:
    message = f"{what} unavailable: {why}"
    if REQUIRE_SERVICES:
        pytest.fail(f"{message} (DEPUTY_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(message)


def postgres_admin_url() -> str:
    """The DEPUTY_TEST_POSTGRES_URL server, or skip/fail as the environment requires."""
    url = os.environ.get("DEPUTY_TEST_POSTGRES_URL")
    if not url:
        _missing("PostgreSQL", "DEPUTY_TEST_POSTGRES_URL is not set")
    return url


def redis_url() -> str:
    """The DEPUTY_TEST_REDIS_URL server, or skip/fail as the environment requires."""
    url = os.environ.get("DEPUTY_TEST_REDIS_URL")
    if not url:
        _missing("Redis", "DEPUTY_TEST_REDIS_URL is not set")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        _missing("Redis", f"{url}: {exc}")
    return url


# A server restarting (crash recovery, a restart by the machine) answers "not yet accepting connections" for a
# while: wait that long rather than fail every later test, and say so if it never comes back.
SERVER_WAIT_SECONDS = 90.0


class PostgresDatabases:
    """One migrated template database per test session; per test, an empty migrated database under a new name.

    `lend()` gives each test the process's one working copy, emptied and renamed: a copy made and dropped per test
    cost about a second each (over a thousand tests), and keeping the copies filled a disk. The new name means a
    thread a finished test left behind can no more reach the next test's rows than a dropped database. `fresh()`
    still makes a copy of its own for a test that needs two databases (dropped by `drop`).
    """

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self.admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        self.template = f"deputy_tpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        self.created: list[str] = []
        self.working: str | None = None

    def _execute(self, statement: str) -> None:
        """Run one admin statement, waiting up to SERVER_WAIT_SECONDS for a server that is starting up."""
        deadline = time.monotonic() + SERVER_WAIT_SECONDS
        while True:
            try:
                with self.admin.connect() as conn:
                    conn.execute(text(statement))
                return
            except OperationalError:
                if time.monotonic() > deadline:
                    raise
                self.admin.dispose()
                time.sleep(1.0)

    def url_for(self, name: str) -> str:
        return make_url(self.admin_url).set(database=name).render_as_string(hide_password=False)

    def setup_template(self) -> None:
        self._execute(f'CREATE DATABASE "{self.template}"')
        migrate.upgrade(self.url_for(self.template))

    def fresh(self) -> str:
        name = f"deputy_t_{os.getpid()}_{next(_counter)}"
        self._execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.template}"')
        self.created.append(name)
        return self.url_for(name)

    def lend(self) -> str:
        """An empty migrated database for one test: the working copy, renamed and emptied (made on first use)."""
        if self.working is None or not self._exists(self.working):  # first use, or a test dropped it
            if self.working in self.created:
                self.created.remove(self.working)
            self.working = make_url(self.fresh()).database
            return self.url_for(self.working)
        name = f"deputy_t_{os.getpid()}_{next(_counter)}"
        deadline = time.monotonic() + SERVER_WAIT_SECONDS
        while True:  # a pool the last test left reconnecting between the two statements: once more
            self._execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{self.working}'")
            try:
                self._execute(f'ALTER DATABASE "{self.working}" RENAME TO "{name}"')
                break
            except OperationalError:
                if time.monotonic() > deadline:
                    raise
        self.created[self.created.index(self.working)] = name
        self.working = name
        self._empty(self.url_for(name))
        return self.url_for(name)

    def _exists(self, name: str) -> bool:
        with self.admin.connect() as conn:
            return conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first() is not None

    @staticmethod
    def _empty(url: str) -> None:
        """Empty every table but the migration stamp and restart the sequences, in one transaction.

        The replica role skips the foreign keys' and ordinary triggers, so rows go in any order; the fact log's
        guards fire even then (ALWAYS triggers) and are switched off for this transaction only, where there are
        rows to delete. DELETE on the few rows a test writes costs about 35 ms, TRUNCATE (new files) about 190 and a
        template copy about 115 (`python bench/harness_databases.py`). It reuses the space, so a read without
        ORDER BY may return rows out of the order they were written: tests order what they compare.
        """
        engine = create_engine(url)
        try:
            with engine.begin() as conn:
                conn.execute(text("SET LOCAL session_replication_role = replica"))
                tables = conn.scalars(
                    text(
                        "SELECT quote_ident(tablename) FROM pg_tables "
                        "WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
                    )
                )
                filled = [t for t in list(tables) if conn.execute(text(f"SELECT 1 FROM {t} LIMIT 1")).first()]
                guards = conn.execute(
                    text(
                        "SELECT quote_ident(tgrelid::regclass::text), quote_ident(tgname) FROM pg_trigger "
                        "WHERE NOT tgisinternal AND tgenabled = 'A'"
                    )
                ).all()
                guards = [(table, trigger) for table, trigger in guards if table in filled]
                for table, trigger in guards:
                    conn.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}"))
                for table in filled:
                    conn.execute(text(f"DELETE FROM {table}"))
                conn.execute(
                    text(
                        "SELECT setval(c.oid::regclass, s.seqstart, false) FROM pg_class c "
                        "JOIN pg_sequence s ON s.seqrelid = c.oid WHERE c.relkind = 'S'"
                    )
                )
                for table, trigger in guards:
                    conn.execute(text(f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {trigger}"))
        finally:
            engine.dispose()

    def drop(self, name_or_url: str) -> None:
        name = make_url(name_or_url).database if "://" in name_or_url else name_or_url
        self._execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if name in self.created:
            self.created.remove(name)

    def close(self) -> None:
        for name in [*self.created, self.template]:
            self.drop(name)
        self.admin.dispose()


@pytest.fixture(scope="session")
def _postgres() -> Iterator[PostgresDatabases | None]:
    url = os.environ.get("DEPUTY_TEST_POSTGRES_URL")
    if not url:
        yield None
        return
    try:
        dbs = PostgresDatabases(url)
        dbs.setup_template()
    except Exception as exc:  # reported per test: skipped locally, failed in CI
        yield exc  # type: ignore[misc]
        return
    yield dbs
    dbs.close()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tpl") / "template.db"
    migrate.upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path, _sqlite_template: Path, _postgres) -> Iterator[str]:
    """A migrated, empty database of each backend (PostgreSQL: the process's working copy, emptied and renamed)."""
    if request.param == "sqlite":
        target = tmp_path / "deputy.db"
        shutil.copy(_sqlite_template, target)
        yield f"sqlite:///{target}"
        return
    if _postgres is None:
        _missing("PostgreSQL", "DEPUTY_TEST_POSTGRES_URL is not set")
    if isinstance(_postgres, Exception):
        _missing("PostgreSQL", f"{type(_postgres).__name__}: {_postgres}")
    yield _postgres.lend()


def make_settings(database_url: str, **overrides) -> Settings:
    """Test settings: no .env, fixed tokens, the given database."""
    values = {
        "database_url": database_url,
        "admin_tokens": f"ops:{ADMIN_TOKEN}",
        "viewer_tokens": f"auditor:{VIEWER_TOKEN}",
        "timezone": "Asia/Shanghai",
        "scheduler_enabled": False,  # tests tick explicitly with the frozen clock
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """`deputy` commands and app.logging.configure() change process-wide logging; undo it after each test."""
    from app.logging import JsonFormatter

    root = logging.getLogger()
    factory, level = logging.getLogRecordFactory(), root.level
    yield
    logging.setLogRecordFactory(factory)
    root.setLevel(level)
    # Only configure()'s handler: pytest attaches and detaches its own capture handlers per test phase.
    for handler in [h for h in root.handlers if isinstance(h.formatter, JsonFormatter)]:
        root.removeHandler(handler)


@pytest.fixture
def clock() -> FrozenClock:
    """A clock frozen at 2026-03-18 10:00 Asia/Shanghai."""
    return FrozenClock(START)


@pytest.fixture
def ctx(database_url: str, clock: FrozenClock) -> Iterator[AppContext]:
    """The application context over a fresh database and the frozen clock."""
    context = build_context(make_settings(database_url), clock=clock)
    yield context
    context.close()


@pytest.fixture
def client(ctx: AppContext) -> Iterator[TestClient]:
    """A TestClient with admin credentials by default."""
    app = create_app(ctx=ctx, run_migrations=False)
    with TestClient(app, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def viewer_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {VIEWER_TOKEN}"}


# The services a skipped test was waiting for, by the words of its skip reason (`_missing`, the browser fixture).
SERVICES = {"PostgreSQL": "PostgreSQL unavailable", "Redis": "Redis unavailable", "the browser": "Chromium unavailable"}
RUN_THEM = "make test-all (starts PostgreSQL and Redis where it can and runs everything as CI does; docs/operations.md)"


def services_skipped(reasons: list[str]) -> dict[str, int]:
    """How many of these skip reasons were for want of each service (the others are left out)."""
    counts = {name: sum(1 for r in reasons if marker in r) for name, marker in SERVICES.items()}
    return {name: n for name, n in counts.items() if n}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """End every run by saying how many tests a missing service skipped and the one command that runs them."""
    reasons = []
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reasons.append(str(longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else longrepr))
    counts = services_skipped(reasons)
    if not counts:
        return
    total = sum(counts.values())
    listed = ", ".join(f"{n} for want of {name}" for name, n in counts.items())
    terminalreporter.write_sep("=", f"{total} tests skipped for want of a service", yellow=True)
    terminalreporter.write_line(f"{listed}. To run them: {RUN_THEM}")
