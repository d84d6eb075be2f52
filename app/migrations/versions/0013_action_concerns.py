"""Bundled follow-ups: the loops one action asks for besides its own concern.

- `action_concerns` (action_id, concern_id): a bundle (one message carrying several follow-ups to one person) is
  one action whose `concern_id` is its first loop; its other loops are linked here, so L3 and each loop's contact
  times count that action as one contact of each. Empty for every earlier action (none was a bundle).
- `ix_action_concerns_concern`: L3 and the contact times look up a loop's linked actions on every send.

Revision ID: 0013_action_concerns
Revises: 0012_sandbox_loops
Create Date: 2026-12-08
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_action_concerns"
down_revision = "0012_sandbox_loops"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the link table and its indexes."""
    pk = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "action_concerns",
        sa.Column("pk", pk, primary_key=True, autoincrement=True),
        sa.Column("action_id", sa.String(32), nullable=False),
        sa.Column("concern_id", sa.String(32), nullable=False),
    )
    op.create_index("ix_action_concerns_action_id", "action_concerns", ["action_id"])
    op.create_index("ix_action_concerns_concern", "action_concerns", ["concern_id", "action_id"])


def downgrade() -> None:
    """Drop the link table."""
    op.drop_index("ix_action_concerns_concern", table_name="action_concerns")
    op.drop_index("ix_action_concerns_action_id", table_name="action_concerns")
    op.drop_table("action_concerns")
