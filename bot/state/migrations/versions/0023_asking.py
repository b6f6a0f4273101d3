"""The question a conversation is posting: its key is kept before the post and cleared with the message's id, so
a work process killed between the two finds the message it posted (by that key, in the chat) instead of asking
the same question again. NULL when nothing is being posted, and for every conversation before.

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("advisor_conversations", sa.Column("asking", sa.String(80)))


def downgrade() -> None:
    with op.batch_alter_table("advisor_conversations") as batch:
        batch.drop_column("asking")
