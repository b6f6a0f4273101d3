"""A channel's digest paused until a day (`明天不要提醒`, `pause the reminders until monday`): the first local day it
is sent again. NULL: not paused. The time, days and language are kept, as `remind off` keeps them.

Revision ID: 0035
Revises: 0034
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("digest_schedules", sa.Column("resume_on", sa.Date()))


def downgrade() -> None:
    with op.batch_alter_table("digest_schedules") as batch:
        batch.drop_column("resume_on")
