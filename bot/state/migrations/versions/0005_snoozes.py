"""Reminder answers: "still needed" snoozes an instance, "keep" keeps storage out of the digest a while.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rental_instances", sa.Column("snoozed_until", UtcDateTime))
    op.add_column("rental_storage", sa.Column("kept_until", UtcDateTime))


def downgrade() -> None:
    with op.batch_alter_table("rental_storage") as batch:
        batch.drop_column("kept_until")
    with op.batch_alter_table("rental_instances") as batch:
        batch.drop_column("snoozed_until")
