"""`deputy backup FILE`: a consistent, verified copy of the live SQLite database taken while the service writes,
and a fresh deployment started from it."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.backup import BackupError, backup, integrity_check
from app.cli import cli
from app.main import create_app
from tests.conftest import ADMIN_TOKEN, make_settings

SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # PostgreSQL uses pg_dump
runner = CliRunner()
WRITES_BOUND = 200  # a backup that restarted on every write would never end: the hook stops writing by then


def post_signal(client, n: int) -> None:
    body = {"source": "crm", "signal_type": "note", "external_id": f"e{n}", "content": {"text": "备注" * 500}}
    assert client.post("/v1/signals", json=body).status_code == 202


def counts(path: Path) -> tuple[int, int]:
    """(external_signal facts, inbox rows): they commit together, so a torn copy would tell them apart."""
    conn = sqlite3.connect(path)
    try:
        facts = conn.execute("SELECT count(*) FROM facts WHERE fact_type = 'external_signal'").fetchone()[0]
        inbox = conn.execute("SELECT count(*) FROM signal_inbox").fetchone()[0]
    finally:
        conn.close()
    return facts, inbox


@SQLITE
def test_a_backup_taken_while_the_service_writes_is_one_consistent_snapshot(ctx, client, tmp_path):
    for n in range(200):
        post_signal(client, n)
    steps: list[tuple[int, int]] = []

    def service_writes_between_steps(copied: int, total: int) -> None:
        steps.append((copied, total))
        if len(steps) < WRITES_BOUND:
            post_signal(client, 10_000 + len(steps))

    result = backup(ctx.settings.database_url, tmp_path / "copy.db", on_progress=service_writes_between_steps,
                    pages_per_step=8)  # fmt: skip
    assert len(steps) > 10, "the copy took many steps, with a write between each two"
    assert steps[-1][0] == steps[-1][1] == result.pages
    assert result.integrity == "ok" and integrity_check(tmp_path / "copy.db") == "ok"
    assert counts(tmp_path / "copy.db") == (200, 200)  # the snapshot when the backup began, whole
    live = Path(ctx.settings.database_url.removeprefix("sqlite:///"))
    assert counts(live) == (200 + len(steps), 200 + len(steps))


@SQLITE
def test_a_restored_backup_starts_as_a_fresh_deployment_with_every_record(ctx, client, tmp_path):
    created = client.post("/v1/persons", json={"person_id": "p_zhangsan", "display_name": "张三"})
    assert created.status_code == 201
    post_signal(client, 1)
    backup(ctx.settings.database_url, tmp_path / "deputy-backup.db")

    restored = (
        tmp_path / "elsewhere" / "var" / "deputy.db"
    )  # what docs/operations.md says: copy the file into place, start
    restored.parent.mkdir(parents=True)
    shutil.copy(tmp_path / "deputy-backup.db", restored)
    app = create_app(make_settings(f"sqlite:///{restored}"))  # start-up migrates, as `deputy serve` does
    with TestClient(app, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as fresh:
        assert fresh.get("/healthz").status_code == 200
        assert fresh.get("/v1/persons/p_zhangsan").json()["display_name"] == "张三"
        before = {f["fact_id"] for f in fresh.get("/v1/facts", params={"limit": 500}).json()["items"]}
        assert fresh.post("/v1/persons", json={"person_id": "p_lisi", "display_name": "李四"}).status_code == 201
        after = {f["fact_id"] for f in fresh.get("/v1/facts", params={"limit": 500}).json()["items"]}
    assert before < after, "ids go on after the restored ones, none reused"


@SQLITE
def test_the_command_prints_progress_and_the_integrity_verdict(ctx, client, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in [n for n in os.environ if n.startswith("DEPUTY_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("DEPUTY_DATABASE_URL", ctx.settings.database_url)
    target = tmp_path / "nightly.db"
    result = runner.invoke(cli, ["backup", str(target), "--progress"])
    assert result.exit_code == 0, result.output
    assert "(100%)" in result.stderr and "integrity_check ok" in result.stdout
    assert integrity_check(target) == "ok"
    copies = sorted(p.name for p in tmp_path.iterdir() if "nightly" in p.name)
    assert copies == ["nightly.db", "nightly.db-inbound.sqlite"], "self-contained files: no -wal, no -shm"
    assert "its inbound queue to" in result.stdout  # the inbound queue's copy is named

    again = runner.invoke(cli, ["backup", str(target)])
    assert again.exit_code == 1 and "exists" in again.stderr and "--force" in again.stderr
    assert runner.invoke(cli, ["backup", str(target), "--force"]).exit_code == 0


def test_a_postgresql_deployment_is_told_to_use_pg_dump(tmp_path):
    with pytest.raises(BackupError, match="pg_dump"):
        backup("postgresql+psycopg://deputy@db/deputy", tmp_path / "copy.db")
    result = runner.invoke(cli, ["backup", str(tmp_path / "x.db")], env={"DEPUTY_DATABASE_URL": "postgresql://db/x"})
    assert result.exit_code == 1 and "pg_dump" in result.stderr and not (tmp_path / "x.db").exists()


@SQLITE
def test_a_damaged_copy_fails_the_integrity_check(ctx, client, tmp_path):
    for n in range(50):
        post_signal(client, n)
    backup(ctx.settings.database_url, tmp_path / "copy.db")
    data = bytearray((tmp_path / "copy.db").read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4096] = b"\xff" * 4096
    (tmp_path / "damaged.db").write_bytes(bytes(data))
    assert integrity_check(tmp_path / "damaged.db") != "ok"


def test_nothing_is_left_behind_when_the_source_does_not_exist(tmp_path):
    with pytest.raises(BackupError, match="no database"):
        backup(f"sqlite:///{tmp_path / 'missing.db'}", tmp_path / "copy.db")
    assert list(tmp_path.iterdir()) == []


@SQLITE
def test_an_acknowledged_event_not_yet_a_fact_is_in_the_backup_and_becomes_one_fact_after_a_restore(ctx, tmp_path):
    from app.backup import queue_file
    from app.pipeline import tick
    from perception import inbound_queue
    from perception.inbound_queue import Arrived

    body = b'{"update_id": 5, "message": {"message_id": 5, "date": 1773799200, "text": "hi", '
    body += b'"from": {"id": 9, "is_bot": false}, "chat": {"id": 9, "type": "private"}}}'
    with inbound_queue.writing(ctx.db) as session:  # acknowledged; the processor has not run
        inbound_queue.append(ctx.db, session, events=[Arrived("telegram", "5", "event", body, ctx.clock.now())])
    backup(ctx.settings.database_url, tmp_path / "copy.db")
    assert queue_file(tmp_path / "copy.db").is_file()  # the queue's own database, copied beside the database
    restored = tmp_path / "elsewhere" / "deputy.db"
    restored.parent.mkdir()
    shutil.copy(tmp_path / "copy.db", restored)
    shutil.copy(queue_file(tmp_path / "copy.db"), queue_file(restored))
    with TestClient(create_app(make_settings(f"sqlite:///{restored}"))) as fresh:  # its start-up pass runs
        app_ctx = fresh.app.state.ctx
        tick(app_ctx)
        with app_ctx.reader() as uow:
            from sqlalchemy import select

            from fact.models import Fact

            texts = [
                f.content.get("text") for f in uow.session.scalars(select(Fact)) if f.fact_type == "message_received"
            ]
    assert texts == ["hi"]
