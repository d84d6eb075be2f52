"""Action ledger, concerns and the action outbox (requested actions not yet executed).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from kernel.db import UTCDateTime

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "actions",
        sa.Column("pk", PK, primary_key=True, autoincrement=True),
        sa.Column("action_id", sa.String(32), nullable=False, unique=True),
        sa.Column("action_type", sa.String(20), nullable=False, index=True),
        sa.Column("decision_ref", sa.String(32), nullable=False, index=True),
        sa.Column("target_person_id", sa.String(64)),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("content_preview", sa.String(200), nullable=False),
        sa.Column("result", sa.String(10), nullable=False),
        sa.Column("result_detail", sa.JSON, nullable=False),
        sa.Column("timestamp", UTCDateTime, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("concern_id", sa.String(32)),
        sa.Column("notification_type", sa.String(64)),
        sa.Column("priority", sa.String(2), nullable=False),
        sa.Column("proactive", sa.Boolean, nullable=False),
        sa.Column("request_key", sa.String(120), unique=True),
    )
    op.create_index("ix_actions_target_created", "actions", ["target_person_id", "created_at"])
    op.create_index("ix_actions_concern_target", "actions", ["concern_id", "target_person_id", "created_at"])
    op.create_index("ix_actions_result_created", "actions", ["result", "created_at"])
    op.create_table(
        "concerns",
        sa.Column("concern_id", sa.String(32), primary_key=True),
        sa.Column("originator_id", sa.String(64), nullable=False, index=True),
        sa.Column("target_person_id", sa.String(64), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("priority", sa.String(2), nullable=False),
        sa.Column("deadline", UTCDateTime),
        sa.Column("origin_channel", sa.String(16)),
        sa.Column("state", sa.String(16), nullable=False, index=True),
        sa.Column("follow_up_count", sa.Integer, nullable=False),
        sa.Column("next_follow_up_at", UTCDateTime, index=True),
        sa.Column("answer", sa.Text),
        sa.Column("answered_by", sa.String(64)),
        sa.Column("escalated_to", sa.String(64)),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("source_fact_id", sa.String(32)),
        sa.Column("message_refs", sa.JSON, nullable=False),
        sa.Column("pending_deliveries", sa.JSON, nullable=False),
        sa.Column("resolved_at", UTCDateTime),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
    )
    op.create_index("ix_concerns_target_state", "concerns", ["target_person_id", "state"])
    op.create_table(
        "action_outbox",
        sa.Column("id", PK, primary_key=True, autoincrement=True),
        sa.Column("request_key", sa.String(120), nullable=False, unique=True),
        sa.Column("request", sa.JSON, nullable=False),
        sa.Column("concern_id", sa.String(32)),
        sa.Column("concern_version", sa.Integer),
        sa.Column("purpose", sa.String(24), nullable=False),
        sa.Column("ack_person_id", sa.String(64)),
        sa.Column("ack_channel", sa.String(16)),
        sa.Column("state", sa.String(12), nullable=False, index=True),
        sa.Column("action_id", sa.String(32)),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("action_outbox")
    op.drop_table("concerns")
    op.drop_table("actions")
