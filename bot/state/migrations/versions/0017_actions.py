"""Warn, then act: each channel's (or project's) policy for idle instances (off, notify, stop, and the grace),
and each warning with what came of it (cancelled and why, stopped, failed): the audit of every action.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "act_policies",
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("project", sa.String(80), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("grace_s", sa.Integer(), nullable=False),
        sa.Column("set_by", sa.String(32), nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("team", "channel", "project", name="pk_act_policies"),
    )
    op.create_table(
        "stop_actions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("instance_id", sa.Integer(), sa.ForeignKey("rental_instances.id"), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("message_ts", sa.String(32)),
        sa.Column("lang", sa.String(2)),
        sa.Column("warned_at", UtcDateTime, nullable=False),
        sa.Column("deadline", UtcDateTime, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("requested_at", UtcDateTime),
        sa.Column("decided_at", UtcDateTime),
        sa.Column("detail", sa.Text()),
        sa.Column("figures", sa.JSON()),
        sa.PrimaryKeyConstraint("id", name="pk_stop_actions"),
    )
    op.create_index("ix_stop_actions_status_deadline", "stop_actions", ["status", "deadline"])
    op.create_index("ix_stop_actions_instance_id", "stop_actions", ["instance_id"])


def downgrade() -> None:
    op.drop_index("ix_stop_actions_instance_id", "stop_actions")
    op.drop_index("ix_stop_actions_status_deadline", "stop_actions")
    op.drop_table("stop_actions")
    op.drop_table("act_policies")
