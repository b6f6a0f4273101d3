"""Each instance's whole local days of busy and idle GPU-hours, kept once the report has added them up from the hourly
rows, so a month's report reads a row a day instead of 24 (bot/state/usage.py). Starts empty: the days are added up
again as reports ask for them.

Revision ID: 0032
Revises: 0031
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "activity_days",
        sa.Column("instance_id", sa.Integer(), sa.ForeignKey("rental_instances.id"), nullable=False),
        sa.Column("offset_s", sa.Integer(), nullable=False),
        sa.Column("busy_above_pct", sa.Float(), nullable=False),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("busy_hours", sa.Float(), nullable=False),
        sa.Column("idle_hours", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("instance_id", "offset_s", "busy_above_pct", "day", name="pk_activity_days"),
    )


def downgrade() -> None:
    op.drop_table("activity_days")
