"""Hourly maxima of GPU samples: raw samples older than the retention are folded into these.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gpu_samples_hourly",
        sa.Column("instance_id", sa.Integer, sa.ForeignKey("rental_instances.id"), primary_key=True),
        sa.Column("gpu", sa.Integer, primary_key=True),
        sa.Column("hour", UtcDateTime, primary_key=True),
        sa.Column("samples", sa.Integer, nullable=False),
        sa.Column("utilization_max_pct", sa.Float, nullable=False),
        sa.Column("memory_used_max_mib", sa.Float, nullable=False),
        sa.Column("memory_total_mib", sa.Float, nullable=False),
        sa.Column("power_max_w", sa.Float),
    )


def downgrade() -> None:
    op.drop_table("gpu_samples_hourly")
