"""When each instance was last seen busy, kept as samples arrive, so the digest finds when a quiet
stretch began with one index seek per instance instead of reading a day of samples.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rental_instances", sa.Column("last_busy_at", UtcDateTime))


def downgrade() -> None:
    with op.batch_alter_table("rental_instances") as batch:
        batch.drop_column("last_busy_at")
