"""The inbound queue: webhook events appended as they arrived, before any fact (issue 25).

- `inbound_events`: one row per platform event (unique channel + event id), its body with secrets removed, when it
  arrived and when the processor turned it into facts (`done_at`, indexed: pending rows and the purge).

Revision ID: 0015_inbound_events
Revises: 0014_read_state
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0015_inbound_events"
down_revision = "0014_read_state"
branch_labels = None
depends_on = None

_PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    """Create the queue (empty: events already recorded have their facts)."""
    op.create_table(
        "inbound_events",
        sa.Column("pk", _PK, primary_key=True, autoincrement=True),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("event_id", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("received_at", UTCDateTime(), nullable=False),
        sa.Column("done_at", UTCDateTime(), nullable=True),
        sa.UniqueConstraint("channel", "event_id", name="uq_inbound_events_channel_event"),
    )
    op.create_index("ix_inbound_events_done_at", "inbound_events", ["done_at"])


def downgrade() -> None:
    """Drop the queue (events not yet processed are lost: drain it first)."""
    op.drop_index("ix_inbound_events_done_at", table_name="inbound_events")
    op.drop_table("inbound_events")
