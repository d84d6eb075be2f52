"""Read state: a loop knows its latest contact message and whether its person read it.

- `concerns.contact_ref`: `channel:message_id` of the latest question or follow-up that reached the person (null
  before the first); a read event names messages, and this index finds the loop a message belongs to.
- `concerns.contact_at`: when that message went (the poller asks about messages younger than 7 days only).
- `concerns.read_at`: when the person read it (null: unread, or a platform that does not say).
- `concerns.read_polled_at`: when the poller last asked the platform about it (bookkeeping, no fact).

Revision ID: 0014_read_state
Revises: 0013_action_concerns
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0014_read_state"
down_revision = "0013_action_concerns"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the read-state columns (null for every existing loop: nothing is known of their reads) and the index."""
    with op.batch_alter_table("concerns") as batch:
        batch.add_column(sa.Column("contact_ref", sa.String(160), nullable=True))
        batch.add_column(sa.Column("contact_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("read_at", UTCDateTime(), nullable=True))
        batch.add_column(sa.Column("read_polled_at", UTCDateTime(), nullable=True))
        batch.create_index("ix_concerns_contact_ref", ["contact_ref"])


def downgrade() -> None:
    """Drop the index and the columns."""
    with op.batch_alter_table("concerns") as batch:
        batch.drop_index("ix_concerns_contact_ref")
        batch.drop_column("read_polled_at")
        batch.drop_column("read_at")
        batch.drop_column("contact_at")
        batch.drop_column("contact_ref")
