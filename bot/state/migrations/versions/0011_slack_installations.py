"""Installing into many workspaces: slack_sdk's installation, bot and OAuth state tables, as its
SQLAlchemy stores define them (slack_sdk 3.x), created here so one set of migrations makes every table.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from alembic import op

from bot.state.schema import slack_tables

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in slack_tables():
        table.create(op.get_bind())


def downgrade() -> None:
    for table in reversed(slack_tables()):
        table.drop(op.get_bind())
