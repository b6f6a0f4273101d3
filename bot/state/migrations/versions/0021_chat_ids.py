"""Room for Feishu's ids: a chat (oc_…), a user (ou_…) and a message (om_…) are 35 characters, a tenant
`feishu:` + its key; the columns that hold a team, a channel, a person or a message id grow from 32 to 64
characters. Existing rows are Slack's and keep their values (a Slack id has no prefix: its platform is Slack).

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

WIDENED = {
    "advisor_conversations": ("team", "channel", "thread_ts", "user", "question_ts"),
    "advisor_user_locales": ("user",),
    "advisor_recommendations": ("team", "user"),
    "rental_instances": ("team", "channel", "owner", "released_by", "hidden_by"),
    "enroll_tokens": ("team", "channel", "owner", "created_by"),
    "rental_storage": ("team", "channel", "owner", "hidden_by"),
    "digest_sends": ("team", "channel", "ts"),
    "digest_schedules": ("team", "channel", "set_by"),
    "project_budgets": ("team", "set_by"),
    "act_policies": ("team", "channel", "set_by"),
    "stop_actions": ("team", "channel", "message_ts"),
    "report_channels": ("team", "channel", "set_by"),
    "report_charts": ("team", "channel", "file_id"),
    "budget_alerts": ("team",),
}


def _resize(old: int, new: int) -> None:
    for table, columns in WIDENED.items():
        with op.batch_alter_table(table) as batch:  # SQLite: the table is copied; PostgreSQL: ALTER COLUMN
            for column in columns:
                batch.alter_column(column, type_=sa.String(new), existing_type=sa.String(old))


def upgrade() -> None:
    _resize(32, 64)


def downgrade() -> None:
    _resize(64, 32)
