"""Sandbox loops: a loop raised by what the console's sandbox typed or pressed says so.

- `concerns.sandbox`: true for such a loop; false for every loop the migration finds (the sandbox and this column
  arrive together, so no earlier loop was raised in it).
- `ix_concerns_sandbox_state`: the processor looks for open sandbox loops to close on every pass once a channel
  is live; the index keeps that one lookup.

Revision ID: 0012_sandbox_loops
Revises: 0011_reachability
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_sandbox_loops"
down_revision = "0011_reachability"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the flag (false for every existing loop) and its index."""
    with op.batch_alter_table("concerns") as batch:
        batch.add_column(sa.Column("sandbox", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.create_index("ix_concerns_sandbox_state", ["sandbox", "state"])


def downgrade() -> None:
    """Drop the index and the flag."""
    with op.batch_alter_table("concerns") as batch:
        batch.drop_index("ix_concerns_sandbox_state")
        batch.drop_column("sandbox")
