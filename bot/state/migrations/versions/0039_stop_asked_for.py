"""A stop asked for at a time (`训练机 明天早上9点关`, `power box1 off at=21:00` with a time to come): the bot
stopped boxes only when its idle policy said so, and a person who knew the job ends at nine had no way to have it
stopped then. `stop_actions.asked_by`: who asked for the stop; NULL for the idle policy's warnings, as before.

Revision ID: 0039
Revises: 0038
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import ID

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("stop_actions", sa.Column("asked_by", sa.String(ID)))


def downgrade() -> None:
    with op.batch_alter_table("stop_actions") as batch:
        batch.drop_column("asked_by")
