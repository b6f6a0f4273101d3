"""Each instance's figures of a whole local day of a report's zone (its money, GPU-hours and hours on and off), kept
once the day has ended, so a month's report reads them instead of making them again from the power timelines
(bot/state/money_days.py); and the marker power reports move when they change a day that may be kept. Starts empty:
the days are made again as reports ask for them.

Revision ID: 0033
Revises: 0032
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

# written out here, not imported: a migration stays as it ran, whatever bot/state/money_days.py becomes
FIGURES = (
    "cost",
    "idle_cost",
    "gpu_hours",
    "busy_gpu_hours",
    "idle_gpu_hours",
    "unknown_gpu_hours",
    "billed_hours",
    "on_hours",
    "off_hours",
    "unknown_hours",
)


def upgrade() -> None:
    op.create_table(
        "money_days",
        sa.Column("instance_id", sa.Integer(), sa.ForeignKey("rental_instances.id"), nullable=False),
        sa.Column("zone", sa.String(64), nullable=False),
        sa.Column("offset_s", sa.Integer(), nullable=False),
        sa.Column("busy_above_pct", sa.Float(), nullable=False),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("inputs", sa.String(32), nullable=False),
        sa.Column("busy_in", sa.Float(), nullable=False),
        sa.Column("idle_in", sa.Float(), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("accrued", sa.Float(), nullable=True),
        *(sa.Column(name, sa.BigInteger(), nullable=False) for name in FIGURES),  # in ten-thousandths
        sa.PrimaryKeyConstraint("instance_id", "zone", "offset_s", "busy_above_pct", "day", name="pk_money_days"),
    )
    op.create_table(
        "money_epoch",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("moves", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_money_epoch"),
    )
    # its one row from the start: a report keeping days locks it, and a power report moves it
    op.execute("INSERT INTO money_epoch (id, moves) VALUES (1, 0)")


def downgrade() -> None:
    op.drop_table("money_epoch")
    op.drop_table("money_days")
