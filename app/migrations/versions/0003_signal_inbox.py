"""Signal inbox: which recorded signal facts the core has processed (facts themselves never change).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "signal_inbox",
        sa.Column("fact_pk", PK, primary_key=True),
        sa.Column("fact_id", sa.String(32), nullable=False, unique=True),
        sa.Column("state", sa.String(12), nullable=False, index=True),
        sa.Column("received_at", UTCDateTime, nullable=False),
        sa.Column("processed_at", UTCDateTime),
    )


def downgrade() -> None:
    op.drop_table("signal_inbox")
