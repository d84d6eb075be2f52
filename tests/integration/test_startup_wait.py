"""Start-up beside a database that is not up yet: `deputy serve` and `deputy migrate` retry with backoff instead of
crashing, and give up with one clear line after DEPUTY_DATABASE_STARTUP_TIMEOUT."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url
from typer.testing import CliRunner

from app.startup import MAX_DELAY, DatabaseUnavailable, wait_for_database
from tests.conftest import postgres_admin_url

REFUSED = "postgresql+psycopg://deputy@127.0.0.1:1/deputy"  # nothing listens on port 1
runner = CliRunner()


class FakeTime:
    """A clock that moves only when the code under test sleeps; `on_sleep` may bring the database up."""

    def __init__(self, on_sleep=None) -> None:
        self.now, self.sleeps, self.on_sleep = 0.0, [], on_sleep

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        if self.on_sleep:
            self.on_sleep(len(self.sleeps))


def test_waits_double_up_to_a_ceiling_then_give_up_with_the_reason():
    clock = FakeTime()
    with pytest.raises(DatabaseUnavailable, match=r"within 60s \(\d+ attempts\): OperationalError"):
        wait_for_database(REFUSED, timeout=timedelta(seconds=60), sleep=clock.sleep, monotonic=lambda: clock.now)
    assert clock.sleeps[:5] == [0.5, 1.0, 2.0, 4.0, 8.0]
    assert max(clock.sleeps) == MAX_DELAY and sum(clock.sleeps) <= 60


@pytest.mark.postgres
def test_the_database_that_comes_up_while_waiting_is_used():
    admin_url = postgres_admin_url()
    name = f"deputy_late_{os.getpid()}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")

    def comes_up(sleeps: int) -> None:
        if sleeps == 2:  # the server is there, the database only now
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))

    clock = FakeTime(comes_up)
    url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    try:
        attempts = wait_for_database(url, timeout=timedelta(seconds=60), sleep=clock.sleep, monotonic=lambda: clock.now)
        assert attempts == 3 and clock.sleeps == [0.5, 1.0]
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in [n for n in os.environ if n.startswith("DEPUTY_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("command", ["serve", "migrate", "process"])
def test_a_database_that_never_answers_ends_start_up_with_one_error_line(clean_env, command):
    from app.cli import cli

    env = {"DEPUTY_DATABASE_URL": REFUSED, "DEPUTY_DATABASE_STARTUP_TIMEOUT": "1s", "DEPUTY_LOG_LEVEL": "ERROR"}
    result = runner.invoke(cli, [command], env=env)
    assert result.exit_code == 1, result.output
    assert result.stderr.strip().startswith("error: the database did not answer within 1s")
    assert "Traceback" not in result.output


def test_migrate_uses_the_migration_url_and_serve_the_app_url(clean_env):
    from app.cli import cli

    app_db, owner_db = clean_env / "app.db", clean_env / "owner.db"
    env = {"DEPUTY_DATABASE_URL": f"sqlite:///{app_db}", "DEPUTY_MIGRATION_DATABASE_URL": f"sqlite:///{owner_db}"}
    result = runner.invoke(cli, ["migrate"], env=env)
    assert result.exit_code == 0, result.output
    engine = create_engine(f"sqlite:///{owner_db}")
    assert "facts" in inspect(engine).get_table_names()
    engine.dispose()
    assert not app_db.exists()
