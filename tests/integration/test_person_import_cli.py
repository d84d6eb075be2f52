"""`deputy persons import FILE`: the importer behind the CLI, its report and its exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from person import service
from tests.integration.person_files import CSV_HEADER, YAML_TEXT, csv_file, person_changed_count, write

runner = CliRunner()


@pytest.fixture(autouse=True)
def _cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ctx) -> None:
    """The CLI builds its own context from DEPUTY_DATABASE_URL: point it at this test's database."""
    monkeypatch.chdir(tmp_path)  # no stray `.env`
    monkeypatch.setenv("DEPUTY_DATABASE_URL", ctx.settings.database_url)
    monkeypatch.setenv("COLUMNS", "200")


def run_import(path: Path):
    return runner.invoke(cli, ["persons", "import", str(path)], catch_exceptions=False)


def table_rows(output: str) -> list[list[str]]:
    """The cells of each line of a table as printed to a pipe (tab-separated)."""
    return [line.split("\t") for line in output.splitlines() if line.count("\t") >= 2]


def person_ids(ctx) -> list[str]:
    with ctx.reader() as uow:
        return sorted(p.person_id for p in service.list_(uow, limit=500)[0])


def test_importing_yaml_creates_everyone_and_exits_0(ctx, tmp_path):
    result = run_import(write(tmp_path, "team.yaml", YAML_TEXT))
    assert result.exit_code == 0, result.output
    assert "created: 2" in result.output and "error: 0" in result.output
    assert person_ids(ctx) == ["p_boss", "p_report"]
    with ctx.reader() as uow:
        assert service.get(uow, person_id="p_report").manager_id == "p_boss"


def test_a_bad_csv_row_is_reported_with_row_and_reason_and_the_exit_code_is_1(ctx, tmp_path):
    result = run_import(csv_file(tmp_path))
    assert result.exit_code == 1, result.output
    assert "created: 2" in result.output and "error: 2" in result.output
    rows = {cells[1]: cells for cells in table_rows(result.output) if len(cells) == 3}
    assert rows["p_bad"][0] == "2" and "timezone" in rows["p_bad"][2]
    assert rows["p_cap"][0] == "4" and "max_proactive_contacts_per_day" in rows["p_cap"][2]
    assert person_ids(ctx) == ["p_dev", "p_lead"]


def test_a_second_import_of_the_same_file_is_all_unchanged_and_writes_no_fact(ctx, tmp_path):
    path = write(tmp_path, "team.yaml", YAML_TEXT)
    assert run_import(path).exit_code == 0
    facts = person_changed_count(ctx)
    result = run_import(path)
    assert result.exit_code == 0, result.output
    assert "unchanged: 2" in result.output and "created: 0" in result.output and "updated: 0" in result.output
    assert person_changed_count(ctx) == facts


def test_a_changed_row_is_reported_updated_with_one_fact_whose_actor_is_cli(ctx, tmp_path):
    path = csv_file(tmp_path, ["p_lead,Lead,,principal,,,zh,,,,,,\n"])
    assert run_import(path).exit_code == 0
    facts = person_changed_count(ctx)
    result = run_import(csv_file(tmp_path, ["p_lead,Team Lead,,principal,,,zh,,,,,,\n"]))
    assert result.exit_code == 0 and "updated: 1" in result.output, result.output
    assert person_changed_count(ctx) == facts + 1
    with ctx.reader() as uow:
        from fact import service as facts_service

        [latest], _ = facts_service.list_(uow, filters=facts_service.FactFilter(fact_type="person_changed"), limit=1)
    assert latest.content["actor"] == "cli"
    assert (latest.content["before"]["display_name"], latest.content["after"]["display_name"]) == ("Lead", "Team Lead")


def test_a_file_of_the_wrong_kind_is_a_usage_error_and_writes_nothing(ctx, tmp_path):
    result = runner.invoke(cli, ["persons", "import", str(write(tmp_path, "team.json", "[]"))])
    assert result.exit_code == 2
    assert person_ids(ctx) == [] and person_changed_count(ctx) == 0


def test_a_missing_file_is_a_usage_error(tmp_path):
    result = runner.invoke(cli, ["persons", "import", str(tmp_path / "nope.csv")])
    assert result.exit_code == 2


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        (
            "team.yaml",
            "persons:\n  - {person_id: p_a, display_name: A\n  - {person_id: p_b}\n",
            "not valid YAML at line",
        ),
        ("team.yaml", "people:\n  - {person_id: p_a, display_name: A}\n", "without `persons:`"),
        ("team.yaml", "", "holds no person"),
        ("team.csv", "", "is empty: expected a header row"),
        ("team.csv", CSV_HEADER, "holds no person"),
        ("team.csv", (CSV_HEADER + "p_wang,王工,,,,,,,,,,,\n").encode("gbk"), "save as UTF-8"),
    ],
)
def test_a_file_that_is_not_a_list_of_persons_is_one_error_line_and_exit_1(ctx, tmp_path, name, content, says):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    result = runner.invoke(cli, ["persons", "import", str(path)])
    assert result.exit_code == 1, result.output
    [line] = [line for line in result.stderr.splitlines() if not line.startswith("{")]  # JSON lines are logs
    assert line.startswith("error: ") and says in line and "Traceback" not in result.output
    assert person_ids(ctx) == [] and person_changed_count(ctx) == 0


def test_every_problem_of_a_row_is_reported_not_only_the_first(ctx, tmp_path):
    result = run_import(csv_file(tmp_path, ["p_many,Many,,boss,,Mars/Olympus,fr,,,,,,101\n"]))
    assert result.exit_code == 1, result.output
    [[row, person_id, message]] = [cells for cells in table_rows(result.stdout) if cells[0] == "1"]
    assert person_id == "p_many"
    for field in ("role", "timezone", "locale", "max_proactive_contacts_per_day"):
        assert field in message, message
