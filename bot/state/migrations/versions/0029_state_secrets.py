"""A state's own secrets (issue 48): the key the board's links are signed with, made once by the first process
that needs it and read by every replica from the state, so a link made by one replica opens on another.

Revision ID: 0029
Revises: 0028
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0029"
down_revision = "0028"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "state_secrets",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("state_secrets")
