"""Digests sent: one row per workspace, channel, kind and local date, claimed before posting.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "digest_sends",
        sa.Column("team", sa.String(32), primary_key=True),
        sa.Column("channel", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("local_date", sa.Date, primary_key=True),
        sa.Column("claimed_at", UtcDateTime, nullable=False),
        sa.Column("sent_at", UtcDateTime),
        sa.Column("ts", sa.String(32)),
        sa.Column("items", sa.Integer, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    op.drop_table("digest_sends")
