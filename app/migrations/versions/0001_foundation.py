"""Foundation: id counters, the append-only fact log, persons and channel bindings.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

_PG_IMMUTABLE = """
CREATE OR REPLACE FUNCTION deputy_reject_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'table % is append-only: % rejected', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;
"""


def _immutable(table: str) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION deputy_reject_change()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION deputy_reject_change()"
        )
    else:
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{verb.lower()} BEFORE {verb} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {verb} rejected'); END"
            )


def upgrade() -> None:
    op.create_table(
        "id_counters",
        sa.Column("prefix", sa.String(8), primary_key=True),
        sa.Column("day", sa.String(8), primary_key=True),
        sa.Column("last_seq", sa.Integer, nullable=False),
    )
    op.create_table(
        "facts",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("fact_id", sa.String(32), nullable=False, unique=True),
        sa.Column("fact_type", sa.String(32), nullable=False, index=True),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("person_refs", sa.JSON, nullable=False),
        sa.Column("content", sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql"), nullable=False),
        sa.Column("timestamp", UTCDateTime, nullable=False, index=True),
        sa.Column("causation_id", sa.String(64), index=True),
        sa.Column("dedup_key", sa.String(300), unique=True),
    )
    op.create_table(
        "fact_person_refs",
        sa.Column("fact_pk", PK, sa.ForeignKey("facts.pk"), primary_key=True),
        sa.Column("person_id", sa.String(64), primary_key=True),
    )
    op.create_index("ix_fact_person_refs_person", "fact_person_refs", ["person_id", "fact_pk"])
    op.create_table(
        "persons",
        sa.Column("person_id", sa.String(64), primary_key=True),
        sa.Column("display_name", sa.String(200), nullable=False),
        sa.Column("aliases", sa.JSON, nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("manager_id", sa.String(64), sa.ForeignKey("persons.person_id"), index=True),
        sa.Column("timezone", sa.String(64), nullable=False),
        sa.Column("locale", sa.String(8), nullable=False),
        sa.Column("work_state", sa.JSON, nullable=False),
        sa.Column("interaction_policy", sa.JSON, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False, index=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "channel_bindings",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("person_id", sa.String(64), sa.ForeignKey("persons.person_id"), nullable=False, index=True),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("external_user_id", sa.String(128), nullable=False),
        sa.Column("chat_id", sa.String(128)),
        sa.Column("reachable", sa.Boolean, nullable=False),
        sa.UniqueConstraint("channel", "external_user_id", name="uq_channel_bindings_identity"),
    )
    op.create_table(
        "bind_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column("person_id", sa.String(64), nullable=False, index=True),
        sa.Column("expires_at", UTCDateTime, nullable=False),
        sa.Column("used_at", UTCDateTime),
        sa.Column("used_by", sa.String(160)),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    op.create_table(
        "bind_failures",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("sender", sa.String(160), nullable=False, index=True),
        sa.Column("at", UTCDateTime, nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_IMMUTABLE)
    _immutable("facts")
    _immutable("fact_person_refs")


def downgrade() -> None:
    for table in ("bind_failures", "bind_codes", "channel_bindings", "persons", "fact_person_refs", "facts", "id_counters"):
        op.drop_table(table)
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS deputy_reject_change()")
