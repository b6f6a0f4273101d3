"""An instance's own idle rule: the minutes after which the platform stops it by itself when idle (a PAI-DSW
notebook's idle shutdown, read at discovery), so the digest can say it beside the instance. NULL: none known.

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rental_instances", sa.Column("idle_rule_minutes", sa.Integer()))


def downgrade() -> None:
    with op.batch_alter_table("rental_instances") as batch:
        batch.drop_column("idle_rule_minutes")
