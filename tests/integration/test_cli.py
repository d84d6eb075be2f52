"""The `deputy` command line (SPEC §9): migrate, facts, persons."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import inspect
from typer.testing import CliRunner

from app.cli import cli
from app.wiring import build_context
from fact import service as facts
from kernel.context import AppContext
from kernel.db import Database
from kernel.ids import ID_PATTERN
from person import service as persons
from person.models import ChannelBindingIn, PersonCreate
from tests.conftest import make_settings

runner = CliRunner()


@pytest.fixture(autouse=True)
def _cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, database_url: str) -> None:
    """The CLI reads its settings from the environment only: this test's database, no `.env`."""
    for name in list(os.environ):
        if name.startswith("DEPUTY_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEPUTY_DATABASE_URL", database_url)
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def live_ctx(database_url: str) -> Iterator[AppContext]:
    """A context on the system clock, like the CLI's own (its `24h` means the last real 24 hours)."""
    context = build_context(make_settings(database_url))
    yield context
    context.close()


def _invoke(*args: str):
    return runner.invoke(cli, list(args), catch_exceptions=False)


def _fact_ids(output: str) -> list[str]:
    """The record ids shown in a table, top to bottom."""
    return [word for word in output.replace("│", " ").split() if ID_PATTERN.match(word)]


def test_migrate_brings_a_database_up_to_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    result = _invoke("migrate")
    assert result.exit_code == 0, result.output
    assert "up to date" in result.output
    fresh = tmp_path / "var" / "fresh.db"
    monkeypatch.setenv("DEPUTY_DATABASE_URL", f"sqlite:///{fresh}")
    result = _invoke("migrate")
    assert result.exit_code == 0, result.output
    db = Database(f"sqlite:///{fresh}")
    try:
        assert {"facts", "persons", "id_counters", "alembic_version"} <= set(inspect(db.engine).get_table_names())
    finally:
        db.dispose()


def test_facts_shows_only_matching_facts_as_a_table(live_ctx: AppContext):
    with live_ctx.uow(actor="cli-test") as uow:
        persons.create(uow, data=PersonCreate(person_id="p_x", display_name="Xiao X"))
        (x_created,) = facts.list_(uow, filters=facts.FactFilter(person_id="p_x"))[0]
        persons.create(uow, data=PersonCreate(person_id="p_y", display_name="Yang Y"))
        x_system, _ = facts.append(
            uow, fact_type="system", source="system", person_refs=["p_x"], content={"text": "no change"}
        )
        three_days_ago = uow.now - timedelta(days=3)
        x_old, _ = facts.append(
            uow, fact_type="person_changed", source="person", person_refs=["p_x"], content={}, timestamp=three_days_ago
        )

    result = _invoke("facts", "--since", "24h", "--person", "p_x", "--type", "person_changed")
    assert result.exit_code == 0, result.output
    assert _fact_ids(result.output) == [x_created.fact_id], "ids are shown whole even in an 80-column pipe"
    assert "1 facts" in result.output
    assert x_system.fact_id not in result.output and x_old.fact_id not in result.output

    result = _invoke("facts", "--since", "2000-01-01T00:00:00+08:00", "--person", "p_x")
    assert result.exit_code == 0, result.output
    assert _fact_ids(result.output) == [x_old.fact_id, x_system.fact_id, x_created.fact_id]


def test_facts_table_shows_time_type_source_and_persons(live_ctx: AppContext, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("COLUMNS", "200")
    with live_ctx.uow() as uow:
        fact, _ = facts.append(
            uow, fact_type="decision", source="cognitive_core", person_refs=["p_x", "p_y"], content={"text": "提测"}
        )
        local_time = fact.timestamp.astimezone(uow.tz).strftime("%Y-%m-%d %H:%M:%S")
    result = _invoke("facts", "--since", "1h")
    row = next(line for line in result.output.splitlines() if fact.fact_id in line)
    for cell in (local_time, "decision", "cognitive_core", "p_x,p_y", '{"text":"提测"}'):
        assert cell in row


def test_facts_rejects_a_since_without_offset():
    result = runner.invoke(cli, ["facts", "--since", "2026-03-18T10:00:00"])
    assert result.exit_code == 2
    assert "offset" in result.output


def test_persons_lists_every_person_with_their_channels(live_ctx: AppContext, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("COLUMNS", "200")
    with live_ctx.uow() as uow:
        persons.create(uow, data=PersonCreate(person_id="p_boss", display_name="Boss", role="principal"))
        persons.create(
            uow,
            data=PersonCreate(
                person_id="p_zhangsan",
                display_name="张三",
                manager_id="p_boss",
                channel_bindings=[ChannelBindingIn(channel="feishu", external_user_id="ou_123")],
            ),
        )
    result = _invoke("persons")
    assert result.exit_code == 0, result.output
    assert "2 persons" in result.output
    row = next(line for line in result.output.splitlines() if "p_zhangsan" in line)
    for cell in ("张三", "member", "p_boss", "Asia/Shanghai", "feishu", "yes"):
        assert cell in row
    assert "p_boss" in result.output and "principal" in result.output


def test_persons_on_an_empty_database_shows_an_empty_table():
    result = _invoke("persons")
    assert result.exit_code == 0, result.output
    assert "0 persons" in result.output


def test_concerns_lists_open_loops_with_state_and_next_timer(ctx, monkeypatch, team):
    from tests.integration.story_helpers import say

    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_zhangsan 提测什么时候能给？")
    monkeypatch.setenv("DEPUTY_DATABASE_URL", ctx.settings.database_url)
    result = CliRunner().invoke(cli, ["concerns", "--state", "waiting_reply"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "con_20260318_001" in result.output and "waiting_reply" in result.output and "p_zhangsan" in result.output
    assert "con_" not in CliRunner().invoke(cli, ["concerns", "--state", "resolved"]).output
