"""The newest fact of a type by index: `(fact_type, pk)`.

The core's per-process copy of the people is current while the newest `person_changed` fact is the one it was
read at; every signal checks that, so the lookup must not scan a type's history.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_facts_type_pk", "facts", ["fact_type", "pk"])


def downgrade() -> None:
    op.drop_index("ix_facts_type_pk", table_name="facts")
