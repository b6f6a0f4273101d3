"""A month's budget per project (`/gpu-advise budget PROJECT 20000`), shown beside its spend in the digest.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "project_budgets",
        sa.Column("team", sa.String(32), primary_key=True),
        sa.Column("project", sa.String(80), primary_key=True),
        sa.Column("amount", sa.Float, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("set_by", sa.String(32), nullable=False),
        sa.Column("updated_at", UtcDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("project_budgets")
