"""Each channel's digest time, zone and working days (`/gpu-advise remind at ...`, `remind off`).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "digest_schedules",
        sa.Column("team", sa.String(32), primary_key=True),
        sa.Column("channel", sa.String(32), primary_key=True),
        sa.Column("at_time", sa.String(5), nullable=False),
        sa.Column("zone", sa.String(64), nullable=False),
        sa.Column("days", sa.String(40), nullable=False),
        sa.Column("enabled", sa.Boolean, nullable=False),
        sa.Column("set_by", sa.String(32), nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("digest_schedules")
