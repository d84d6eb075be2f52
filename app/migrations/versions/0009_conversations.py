"""Conversations: concern kinds (question, commitment, reminder), escalations that close, and buttons.

- `concerns.kind`: `question` (was `ask`; a risk decision request was `risk` and is now a `question` with
  `approval` set), `commitment` (waiting for a promised time) or `reminder` (a person's own).
- `concerns.due_at`: when a commitment or reminder is due. `concerns.parent_id`: the question a commitment
  came from.
- `concerns.acknowledged_by` / `acknowledged_at`: who took an escalation ("I'll handle it") and when.
  `escalation_level` (how far up the management chain the loop went, 1 = the target's manager) and
  `escalation_repeats` (repeats at the current level).
- `concerns.origin_chat_id` / `action_outbox.ack_chat_id`: the group a request came from, so its confirmations
  are answered in that group.
- `buttons`: the opaque token behind every button sent, what pressing it means, who may press it, and the
  message it sits on and its text (to edit it once pressed: the outcome is added under the text).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("concerns", sa.Column("approval", sa.Boolean, nullable=False, server_default=sa.false()))
    op.execute("UPDATE concerns SET approval = (kind = 'risk')")
    op.execute("UPDATE concerns SET kind = 'question' WHERE kind IN ('ask', 'risk')")
    op.add_column("concerns", sa.Column("due_at", UTCDateTime))
    op.add_column("concerns", sa.Column("parent_id", sa.String(32)))
    op.add_column("concerns", sa.Column("acknowledged_by", sa.String(64)))
    op.add_column("concerns", sa.Column("acknowledged_at", UTCDateTime))
    op.add_column("concerns", sa.Column("escalation_level", sa.Integer, nullable=False, server_default="0"))
    op.add_column("concerns", sa.Column("escalation_repeats", sa.Integer, nullable=False, server_default="0"))
    op.execute("UPDATE concerns SET escalation_level = 1 WHERE escalated_to IS NOT NULL")
    op.add_column("concerns", sa.Column("origin_chat_id", sa.String(128)))
    op.add_column("action_outbox", sa.Column("ack_chat_id", sa.String(128)))
    op.create_index("ix_concerns_kind_state", "concerns", ["kind", "state"])
    op.create_table(
        "buttons",
        sa.Column("token", sa.String(40), primary_key=True),
        sa.Column("request_key", sa.String(120), nullable=False, index=True),
        sa.Column("verb", sa.String(24), nullable=False),
        sa.Column("concern_id", sa.String(32), index=True),
        sa.Column("addressee_id", sa.String(64), nullable=False),
        sa.Column("args", sa.JSON, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("channel", sa.String(16)),
        sa.Column("chat_id", sa.String(128)),
        sa.Column("message_id", sa.String(128)),
        sa.Column("text", sa.Text),
        sa.Column("pressed_at", UTCDateTime),
        sa.Column("press_fact_id", sa.String(32)),
    )


def downgrade() -> None:
    op.drop_table("buttons")
    op.drop_index("ix_concerns_kind_state", table_name="concerns")
    op.drop_column("action_outbox", "ack_chat_id")
    op.drop_column("concerns", "origin_chat_id")
    op.execute("UPDATE concerns SET kind = 'risk' WHERE approval")
    op.execute("UPDATE concerns SET kind = 'ask' WHERE kind = 'question'")
    for column in (
        "escalation_repeats",
        "escalation_level",
        "acknowledged_at",
        "acknowledged_by",
        "parent_id",
        "due_at",
        "approval",
    ):
        op.drop_column("concerns", column)
