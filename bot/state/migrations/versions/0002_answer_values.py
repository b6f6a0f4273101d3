"""Keep each answer's parsed value beside its text, so an answer is parsed once, when it is given.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("advisor_conversations") as batch:
        batch.add_column(sa.Column("answer_values", sa.JSON))


def downgrade() -> None:
    with op.batch_alter_table("advisor_conversations") as batch:
        batch.drop_column("answer_values")
