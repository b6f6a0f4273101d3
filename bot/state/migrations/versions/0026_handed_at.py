"""When a stop asked of an agent was first handed to it (in a heartbeat's answer): a box whose agent ran the stop
command and went down before it could say so is then known to have stopped, and a stop handed once is never
handed again to the box booting afterwards (it would shut down at boot). NULL: not handed yet.

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("stop_actions", sa.Column("handed_at", UtcDateTime))


def downgrade() -> None:
    with op.batch_alter_table("stop_actions") as batch:
        batch.drop_column("handed_at")
