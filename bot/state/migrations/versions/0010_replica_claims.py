"""Replicas: who is doing an inbox item's work (and since when), and one row per run of a scheduled job.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("advisor_inbox") as batch:
        batch.add_column(sa.Column("claimed_by", sa.String(80)))
        batch.add_column(sa.Column("claimed_at", UtcDateTime))
    op.create_table(
        "job_runs",
        sa.Column("job", sa.String(64), primary_key=True),
        sa.Column("slot", sa.String(40), primary_key=True),
        sa.Column("claimed_by", sa.String(80), nullable=False),
        sa.Column("claimed_at", UtcDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("job_runs")
    with op.batch_alter_table("advisor_inbox") as batch:
        batch.drop_column("claimed_at")
        batch.drop_column("claimed_by")
