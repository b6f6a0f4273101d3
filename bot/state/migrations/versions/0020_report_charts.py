"""Each channel's last report chart (the Slack file uploaded with it), so App Home can show a person the chart
of the last report of the channels they rent in.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "report_charts",
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("file_id", sa.String(32), nullable=False),
        sa.Column("period_start", sa.Date(), nullable=False),
        sa.Column("period_end", sa.Date(), nullable=False),
        sa.Column("posted_at", UtcDateTime, nullable=False),
        sa.PrimaryKeyConstraint("team", "channel", name="pk_report_charts"),
    )


def downgrade() -> None:
    op.drop_table("report_charts")
