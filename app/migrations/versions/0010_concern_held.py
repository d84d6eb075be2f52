"""Held questions and follow-ups: `concerns.held_by` says the loop's own next step is a delivery a layer held back.

A question or follow-up refused by quiet hours, a pause or the daily cap waits for its moment as the loop's own
step (`step_at`); `held_by` (quiet_hours | pause | cap | away | busy) marks that step as held, so the API's
`held_until` / `held_by` (SPEC §3.5) and the console's held count include it, not only the deferred deliveries
kept in `pending_deliveries`. Any later change of the step clears it.

Revision ID: 0010_concern_held
Revises: 0009
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_concern_held"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("concerns", sa.Column("held_by", sa.String(16)))


def downgrade() -> None:
    with op.batch_alter_table("concerns") as batch:
        batch.drop_column("held_by")
