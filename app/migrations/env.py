"""Alembic environment: runs migrations on the service's own engine, serialised across replicas."""

from __future__ import annotations

from alembic import context
from sqlalchemy import text

from kernel.db import Database

config = context.config


def run_migrations_online() -> None:
    url = config.attributes.get("database_url") or config.get_main_option("sqlalchemy.url")
    db = Database(url)
    try:
        with db.engine.connect() as connection:
            # transactional_ddl on SQLite too: the version check and the DDL then share one BEGIN IMMEDIATE.
            context.configure(connection=connection, target_metadata=None, transactional_ddl=True)
            with context.begin_transaction():
                if connection.dialect.name == "postgresql":
                    # Several replicas may start at once: only one migrates, the others wait and see it done.
                    connection.execute(text("SELECT pg_advisory_xact_lock(74201)"))
                context.run_migrations()
    finally:
        db.dispose()


if context.is_offline_mode():
    raise SystemExit("offline migrations are not supported; run `deputy migrate`")
run_migrations_online()
