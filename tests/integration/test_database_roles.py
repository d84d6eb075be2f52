"""The PostgreSQL roles of docs/operations.md work: the owner migrates, the DML-only app role runs Deputy and cannot
switch the fact log's guards off."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from app import migrate
from app.main import create_app
from tests.conftest import ADMIN_TOKEN, make_settings, postgres_admin_url

pytestmark = pytest.mark.postgres
OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def readme_role_sql() -> list[str]:
    """The ```sql blocks of the "Database roles" section of docs/operations.md, in order."""
    section = OPERATIONS.read_text(encoding="utf-8").split("\n## Database roles", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, flags=re.S)


@dataclass
class Roles:
    owner_url: str
    app_url: str


def _run(url: str, sql: str) -> None:
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            for statement in filter(str.strip, re.sub(r"--[^\n]*", "", sql).split(";")):
                conn.execute(text(statement))
    finally:
        engine.dispose()


@pytest.fixture
def roles() -> Iterator[Roles]:
    """The documented roles and database under unique names (roles are per server), dropped afterwards."""
    admin_url = postgres_admin_url()
    suffix = uuid.uuid4().hex[:8]
    names = {
        "deputy_owner": f"deputy_owner_{suffix}",
        "deputy_app": f"deputy_app_{suffix}",
        "deputy": f"deputy_roles_{suffix}",
    }
    blocks = [
        re.sub(r"\b(deputy_owner|deputy_app|deputy)\b", lambda m: names[m.group(1)], sql) for sql in readme_role_sql()
    ]
    assert len(blocks) == 3, "docs/operations.md's Database roles section lost one of its SQL blocks"
    url = make_url(admin_url).set(database=names["deputy"])

    def as_user(user: str | None, password: str | None) -> str:
        return url.set(username=user, password=password).render_as_string(hide_password=False)

    _run(admin_url, blocks[0])
    try:
        _run(as_user(url.username, url.password), blocks[1])
        roles = Roles(
            owner_url=as_user(names["deputy_owner"], "owner-password"),
            app_url=as_user(names["deputy_app"], "app-password"),
        )
        yield roles
        _run(roles.owner_url, blocks[2])  # the after-the-fact grants are valid SQL for the owner too
    finally:
        _run(
            admin_url,
            f'DROP DATABASE IF EXISTS "{names["deputy"]}" WITH (FORCE); '
            f'DROP ROLE IF EXISTS "{names["deputy_app"]}"; DROP ROLE IF EXISTS "{names["deputy_owner"]}"',
        )


def test_the_app_role_runs_deputy_on_a_database_the_owner_migrated(roles: Roles):
    migrate.upgrade(roles.owner_url)
    app = create_app(make_settings(roles.app_url))  # start-up migrates too: a no-op at head, allowed to the app role
    with TestClient(app, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as client:
        created = client.post("/v1/persons", json={"person_id": "p_zhangsan", "display_name": "张三"})
        assert created.status_code == 201, created.text
        facts = client.get("/v1/facts", params={"person_id": "p_zhangsan"})
    assert facts.status_code == 200 and facts.json()["items"], facts.text


@pytest.mark.parametrize(
    "statement",
    [
        "SET session_replication_role = replica",
        "ALTER TABLE facts DISABLE TRIGGER facts_append_only",
        "DROP TRIGGER facts_append_only ON facts",
        "TRUNCATE fact_person_refs",
        "CREATE TABLE shadow_facts (pk bigint)",
    ],
)
def test_the_app_role_cannot_switch_the_fact_log_guards_off(roles: Roles, statement: str):
    migrate.upgrade(roles.owner_url)
    with pytest.raises(DBAPIError, match="permission denied|must be (the )?owner"):
        _run(roles.app_url, statement)


def _libpq(url: str) -> str:
    """The URL as pg_dump / pg_restore / psql take it (no SQLAlchemy driver suffix)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _table_owner(url: str, table: str) -> str:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT tableowner FROM pg_tables WHERE tablename = :t"), {"t": table}).scalar()
    finally:
        engine.dispose()


def test_deputy_migrate_runs_as_the_owner_of_the_migration_url_while_the_service_uses_the_app_url(
    roles: Roles, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    from typer.testing import CliRunner

    from app.cli import cli

    monkeypatch.chdir(tmp_path)
    env = {"DEPUTY_DATABASE_URL": roles.app_url, "DEPUTY_MIGRATION_DATABASE_URL": roles.owner_url}
    result = CliRunner().invoke(cli, ["migrate"], env=env)
    assert result.exit_code == 0, result.output
    assert _table_owner(roles.owner_url, "facts") == make_url(roles.owner_url).username
    assert "owner-password" not in result.stdout  # the URL is shown without its password
    app = create_app(make_settings(roles.app_url))
    with TestClient(app, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as client:
        assert client.post("/v1/persons", json={"person_id": "p_zhangsan", "display_name": "张三"}).status_code == 201


def test_a_pg_dump_restored_by_the_owner_keeps_the_guards_and_the_app_roles_grants(roles: Roles, tmp_path: Path):
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump / pg_restore are not installed")
    migrate.upgrade(roles.owner_url)
    with TestClient(create_app(make_settings(roles.app_url)), headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as c:
        assert c.post("/v1/persons", json={"person_id": "p_zhangsan", "display_name": "张三"}).status_code == 201
    dump = tmp_path / "deputy.dump"
    subprocess.run(["pg_dump", "--format=custom", f"--file={dump}", _libpq(roles.owner_url)], check=True, timeout=120)

    restored = make_url(roles.owner_url).database + "_restored"
    owner, app_role = make_url(roles.owner_url).username, make_url(roles.app_url).username
    admin = make_url(postgres_admin_url())
    _run(
        postgres_admin_url(), f'CREATE DATABASE "{restored}" OWNER "{owner}"'
    )  # docs/operations.md: as the superuser, once
    try:
        _run(
            admin.set(database=restored).render_as_string(hide_password=False),
            f'REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE, CREATE ON SCHEMA public TO "{owner}"; '
            f'GRANT USAGE ON SCHEMA public TO "{app_role}"',
        )
        owner_url = make_url(roles.owner_url).set(database=restored).render_as_string(hide_password=False)
        app_url = make_url(roles.app_url).set(database=restored).render_as_string(hide_password=False)
        subprocess.run(
            ["pg_restore", "--exit-on-error", "--no-owner", f"--dbname={_libpq(owner_url)}", str(dump)],
            check=True,
            timeout=120,
        )
        app = create_app(make_settings(app_url))
        with TestClient(app, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as client:
            assert client.get("/v1/persons/p_zhangsan").json()["display_name"] == "张三"
            assert client.post("/v1/persons", json={"person_id": "p_lisi", "display_name": "李四"}).status_code == 201
        with pytest.raises(DBAPIError, match="permission denied|must be (the )?owner"):
            _run(app_url, "ALTER TABLE facts DISABLE TRIGGER facts_append_only")
        with pytest.raises(DBAPIError, match="append-only"):  # the restored trigger still fires
            _run(app_url, "DELETE FROM facts")
    finally:
        _run(postgres_admin_url(), f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')


def test_the_compose_init_script_creates_the_readme_roles(tmp_path: Path):
    if not shutil.which("psql"):
        pytest.skip("psql is not installed")
    admin = make_url(postgres_admin_url())
    suffix = uuid.uuid4().hex[:8]
    names = {"DB_NAME": f"deputy_init_{suffix}", "DB_OWNER": f"owner_{suffix}", "DB_APP": f"app_{suffix}"}
    env = {
        **os.environ,
        **names,
        "DB_OWNER_PASSWORD": "o'wner pw",
        "DB_APP_PASSWORD": "app-pw",
        "POSTGRES_USER": admin.username or "postgres",
        "PGHOST": admin.host or "127.0.0.1",
        "PGPORT": str(admin.port or 5432),
        "PGPASSWORD": admin.password or "",
    }
    script = Path(__file__).resolve().parents[2] / "deploy" / "postgres" / "initdb.d" / "10-deputy-roles.sh"
    try:
        subprocess.run(["sh", str(script)], env=env, check=True, capture_output=True, timeout=120)
        url = admin.set(database=names["DB_NAME"])
        owner_url = url.set(username=names["DB_OWNER"], password="o'wner pw").render_as_string(hide_password=False)
        app_url = url.set(username=names["DB_APP"], password="app-pw").render_as_string(hide_password=False)
        migrate.upgrade(owner_url)
        with TestClient(create_app(make_settings(app_url)), headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}) as c:
            assert c.post("/v1/persons", json={"person_id": "p_zhangsan", "display_name": "张三"}).status_code == 201
        with pytest.raises(DBAPIError, match="permission denied|must be (the )?owner"):
            _run(app_url, "ALTER TABLE facts DISABLE TRIGGER facts_append_only")
    finally:
        _run(
            postgres_admin_url(),
            f'DROP DATABASE IF EXISTS "{names["DB_NAME"]}" WITH (FORCE); DROP ROLE IF EXISTS "{names["DB_APP"]}"; '
            f'DROP ROLE IF EXISTS "{names["DB_OWNER"]}"',
        )
