"""Fact log guards: no REPLACE on SQLite, no replication-role bypass on PostgreSQL.

SQLite's `INSERT OR REPLACE` (and `REPLACE INTO`) deletes the conflicting row without firing DELETE
triggers, so it could rewrite a fact; a BEFORE INSERT trigger now refuses any insert that would collide.
Its RAISE(ABORT) is a constraint error (IntegrityError), like the UNIQUE violation it pre-empts, so the
append path that catches a duplicate dedup_key keeps working. On PostgreSQL the append-only triggers
fire only in the default `origin` replication role; `ENABLE ALWAYS` makes them fire in `replica` too.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

# Every key an insert can collide on: a colliding REPLACE would delete the row it collides with.
_SQLITE_COLLISIONS = {
    "facts": "pk = NEW.pk OR fact_id = NEW.fact_id OR dedup_key = NEW.dedup_key",
    "fact_person_refs": "fact_pk = NEW.fact_pk AND person_id = NEW.person_id",
}
_PG_TRIGGERS = {"facts": ("facts_append_only", "facts_no_truncate"),
                "fact_person_refs": ("fact_person_refs_append_only", "fact_person_refs_no_truncate")}


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, triggers in _PG_TRIGGERS.items():
            for trigger in triggers:
                op.execute(f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {trigger}")
        return
    for table, collides in _SQLITE_COLLISIONS.items():
        op.execute(
            f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table} "
            f"WHEN EXISTS (SELECT 1 FROM {table} WHERE {collides}) "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: INSERT over an existing row rejected'); END"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, triggers in _PG_TRIGGERS.items():
            for trigger in triggers:
                op.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
        return
    for table in _SQLITE_COLLISIONS:
        op.execute(f"DROP TRIGGER IF EXISTS {table}_no_replace")
