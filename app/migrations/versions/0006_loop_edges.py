"""Loop edges: outbox ownership (claims and availability), what counts toward the limits, escalation time.

- `action_outbox.claimed_by` / `available_at`: one drainer owns an entry at a time (a lease), and a
  send deferred by the service's own pacing waits there until its slot.
- `actions.counted`: the action counts toward the daily cap, L3 and L4 (delivered, in flight, or possibly
  delivered: interrupted by a crash or lost in a timeout). `actions.solicited`: an answer or loop-outcome
  notice the person asked for; it never counts toward, nor is refused by, the daily cap.
- `concerns.escalated_at`: when the last escalation step happened; expiry counts from it.
- `concerns.step_at`: when the loop's own next step is due (question, follow-up, escalation, expiry);
  `next_follow_up_at` stays the one durable timer: the earlier of `step_at` and the held deliveries.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("action_outbox", sa.Column("claimed_by", sa.String(80)))
    op.add_column("action_outbox", sa.Column("available_at", UTCDateTime))
    op.execute("UPDATE action_outbox SET available_at = created_at")
    op.create_index("ix_action_outbox_available", "action_outbox", ["state", "available_at"])
    op.add_column("actions", sa.Column("counted", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("actions", sa.Column("solicited", sa.Boolean, nullable=False, server_default=sa.false()))
    error = "json_extract(result_detail, '$.error')" if op.get_bind().dialect.name == "sqlite" else "result_detail ->> 'error'"
    op.execute(f"UPDATE actions SET counted = (result IN ('success', 'pending') OR (result = 'failed' AND {error} = 'interrupted'))")
    op.execute("UPDATE actions SET solicited = (action_type = 'backflow')")
    op.add_column("concerns", sa.Column("escalated_at", UTCDateTime))
    op.execute("UPDATE concerns SET escalated_at = updated_at WHERE state = 'escalated'")
    op.add_column("concerns", sa.Column("step_at", UTCDateTime))
    op.execute("UPDATE concerns SET step_at = next_follow_up_at WHERE state = 'waiting_reply'")
    # Escalated loops had no timer: they expire a week (the default) after their escalation.
    week_later = "datetime(escalated_at, '+7 days')" if op.get_bind().dialect.name == "sqlite" else "escalated_at + interval '7 days'"
    op.execute(f"UPDATE concerns SET step_at = {week_later} WHERE state = 'escalated'")
    op.execute("UPDATE concerns SET next_follow_up_at = step_at WHERE state = 'escalated' AND next_follow_up_at IS NULL")


def downgrade() -> None:
    op.drop_column("concerns", "step_at")
    op.drop_column("concerns", "escalated_at")
    op.drop_column("actions", "solicited")
    op.drop_column("actions", "counted")
    op.drop_index("ix_action_outbox_available", table_name="action_outbox")
    op.drop_column("action_outbox", "available_at")
    op.drop_column("action_outbox", "claimed_by")
