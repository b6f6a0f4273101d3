"""The Slack request (its inbox key) that tracked an instance: when the reply carrying the heartbeat token
could not be delivered and the work is redone, the redo recognises its own instance and issues a new
token instead of answering "already tracked" with the first one lost. NULL for the terminal and before.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rental_instances", sa.Column("request_key", sa.String(200)))


def downgrade() -> None:
    with op.batch_alter_table("rental_instances") as batch:
        batch.drop_column("request_key")
