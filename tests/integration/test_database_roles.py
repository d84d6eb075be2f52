"""The README's PostgreSQL roles work: the owner migrates, the DML-only app role runs Deputy and cannot
switch the fact log's guards off."""

from __future__ import annotations

import re
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
README = Path(__file__).resolve().parents[2] / "README.md"


def readme_role_sql() -> list[str]:
    """The ```sql blocks of README's "Database roles" section, in order."""
    section = README.read_text(encoding="utf-8").split("### Database roles", 1)[1].split("\n## ", 1)[0]
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
    """README's roles and database under unique names (roles are per server), dropped afterwards."""
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
    assert len(blocks) == 3, "README's Database roles section lost one of its SQL blocks"
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
