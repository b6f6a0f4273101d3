"""Budget alerts: each threshold a project's monthly spend crossed, claimed before its alert is posted, so each
goes out once per project, threshold and month across replicas and restarts; and each channel's weekly report
turned off or on.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "budget_alerts",
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("project", sa.String(80), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("month", sa.String(7), nullable=False),
        sa.Column("threshold_pct", sa.Float(), nullable=False),
        sa.Column("claimed_at", UtcDateTime, nullable=False),
        sa.Column("alerted", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("team", "project", "currency", "month", "threshold_pct", name="pk_budget_alerts"),
    )

    op.create_table(
        "report_channels",
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("set_by", sa.String(32), nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("team", "channel", name="pk_report_channels"),
    )


def downgrade() -> None:
    op.drop_table("report_channels")
    op.drop_table("budget_alerts")
