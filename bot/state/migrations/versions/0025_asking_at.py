"""When a conversation began posting the message named by `asking`: a redo soon after (a work process killed
mid-send and started again) may not see in the chat a message the chat is still storing, so it waits until the
send has settled before it looks for the message and posts it again. NULL when nothing is being posted.

Revision ID: 0025
Revises: 0024
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("advisor_conversations", sa.Column("asking_at", UtcDateTime))


def downgrade() -> None:
    with op.batch_alter_table("advisor_conversations") as batch:
        batch.drop_column("asking_at")
