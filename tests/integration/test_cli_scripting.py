"""The `deputy` records commands as an operator scripts them: JSON lines in the API's shapes, errors naming the
valid values, dates in DEPUTY_TIMEZONE, user text shown as written, tables that fit 80 columns or print plain."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from app.cli import cli
from fact import service as facts
from fact.models import FactType
from tests.integration.story_helpers import say

runner = CliRunner()
MARKUP = "[bold] 服务器怎么样？"  # Rich would read it as markup and drop it
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
TERMINAL_80 = {"TTY_COMPATIBLE": "1", "COLUMNS": "80"}  # what Rich sees in an 80-column terminal


@pytest.fixture(autouse=True)
def _cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ctx) -> None:
    """The CLI reads its settings from the environment only: this test's database, no `.env`, not a terminal."""
    for name in list(os.environ):
        if name.startswith("DEPUTY_") or name in ("COLUMNS", "TTY_COMPATIBLE", "FORCE_COLOR"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DEPUTY_DATABASE_URL", ctx.settings.database_url)


def deputy(*args: str, env: dict[str, str] | None = None):
    return runner.invoke(cli, list(args), env=env)


def json_rows(result) -> list[dict]:
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_json_lines_are_the_api_items_one_per_line(ctx, client, team):
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan {MARKUP}")
    for command, path in (("facts", "/v1/facts"), ("concerns", "/v1/concerns"), ("persons", "/v1/persons")):
        api = client.get(path, params={"limit": 50}).json()["items"]
        assert json_rows(deputy(command, "--json")) == api, command
    [concern] = json_rows(deputy("concerns", "--json", "--state", "waiting_reply"))
    assert concern["question"] == MARKUP


def test_user_text_is_shown_as_written_not_as_markup(ctx, team):
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan {MARKUP}")
    plain = deputy("concerns")
    assert plain.exit_code == 0, plain.output
    assert MARKUP in plain.stdout
    wide = deputy("concerns", env={"TTY_COMPATIBLE": "1", "COLUMNS": "160"})
    assert MARKUP in ANSI.sub("", wide.stdout)


@pytest.mark.parametrize(
    ("command", "option", "valid"),
    [
        ("facts", "--type", [t.value for t in FactType]),
        ("concerns", "--state", ["waiting_reply", "resolved", "escalated", "cancelled", "expired"]),
    ],
)
def test_an_unknown_filter_value_is_an_error_naming_the_valid_ones_as_the_api_does(client, command, option, valid):
    result = deputy(command, option, "bogus")
    assert result.exit_code == 2 and "bogus" in result.output
    assert all(f"'{value}'" in result.output for value in valid), result.output
    api_param = {"--type": "fact_type", "--state": "state"}[option]
    refused = client.get(f"/v1/{command}", params={api_param: "bogus"})
    assert refused.status_code == 422 and all(f"'{value}'" in refused.text for value in valid)


@pytest.mark.parametrize(("timezone", "shown"), [("Asia/Shanghai", True), ("UTC", False)])
def test_a_since_date_is_midnight_in_the_deployment_timezone(ctx, monkeypatch, timezone, shown):
    with ctx.uow() as uow:  # 2026-11-30 00:30 in Shanghai, still 2026-11-29 in UTC
        fact, _ = facts.append(
            uow, fact_type="system", source="system", content={}, timestamp=datetime(2026, 11, 29, 16, 30, tzinfo=UTC)
        )
    monkeypatch.setenv("DEPUTY_TIMEZONE", timezone)
    ids = [row["fact_id"] for row in json_rows(deputy("facts", "--json", "--since", "2026-11-30"))]
    assert (fact.fact_id in ids) is shown


def test_a_since_that_is_no_date_names_the_accepted_forms():
    result = deputy("facts", "--since", "yesterday")
    assert result.exit_code == 2 and "24h" in result.output and "2026-11-30" in result.output
    assert deputy("facts", "--since", "2026-02-30").exit_code == 2


def _long_records(ctx, team) -> None:
    long = "提测什么时候能给？" * 8 + " and a long English tail that goes on and on past any terminal"
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_zhangsan {long}")
    say(ctx, channel="feishu", user="ou_boss", text=f"/ask @p_lisi {MARKUP}")


@pytest.mark.parametrize("command", ["facts", "concerns", "persons"])
def test_tables_fit_an_80_column_terminal_with_every_id_whole(ctx, team, command):
    _long_records(ctx, team)
    result = deputy(command, env=TERMINAL_80)
    assert result.exit_code == 0, result.output
    lines = ANSI.sub("", result.stdout).splitlines()
    assert max(cell_len(line) for line in lines) <= 80, "\n".join(lines)
    expected = {"facts": r"fact_\d{8}_\d{3}", "concerns": r"con_\d{8}_\d{3}", "persons": r"p_[a-z]+"}[command]
    truth = json_rows(deputy(command, "--json"))
    key = {"facts": "fact_id", "concerns": "concern_id", "persons": "person_id"}[command]
    shown = re.findall(rf"^│ ({expected}) ", "\n".join(lines), flags=re.M)  # the first column
    assert shown == [row[key] for row in truth]


@pytest.mark.parametrize("command", ["facts", "concerns", "persons"])
def test_piped_tables_are_plain_tab_separated_lines_one_per_record(ctx, team, command):
    _long_records(ctx, team)
    say(ctx, channel="feishu", user="ou_boss", text="/ask @p_wangwu 两行\n的问题")
    result = deputy(command)
    assert result.exit_code == 0, result.output
    assert not ANSI.search(result.stdout) and not re.search("[│─┌┐└┘]", result.stdout)
    header, *rows = result.stdout.splitlines()
    assert rows and len(rows) == len(json_rows(deputy(command, "--json")))
    assert all(row.count("\t") == header.count("\t") for row in rows)
    if command == "concerns":
        assert any(MARKUP in row for row in rows) and any("两行 的问题" in row for row in rows)
