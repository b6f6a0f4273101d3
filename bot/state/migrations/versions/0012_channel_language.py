"""A channel's language for its digests, warnings and their updates (`/gpu-advise remind lang en`, or the
language of whoever set the schedule); NULL: the workspace default.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("digest_schedules", sa.Column("lang", sa.String(2)))


def downgrade() -> None:
    with op.batch_alter_table("digest_schedules") as batch:
        batch.drop_column("lang")
