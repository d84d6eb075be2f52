"""Reachability: a loop records the contact its model or L1 held, until when and by what.

- `concerns.held_until`: when a held question or follow-up may go (null while open-ended, e.g. leave without an end).
- `concerns.held_by`: what held it: `quiet_hours | pause | cap | away | busy`.

Revision ID: 0011_reachability
Revises: 0010_console_secret
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0011_reachability"
down_revision = "0010_console_secret"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the hold columns (nullable: no loop is held when the migration runs)."""
    with op.batch_alter_table("concerns") as batch:
        batch.add_column(sa.Column("held_until", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("held_by", sa.String(16), nullable=True))


def downgrade() -> None:
    """Drop the hold columns."""
    with op.batch_alter_table("concerns") as batch:
        batch.drop_column("held_by")
        batch.drop_column("held_until")
