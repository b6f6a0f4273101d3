"""The state tables as the bot first made them (by hand, before Alembic).

A state file from that time already has them: each table is created only where it is missing,
so such a file is taken over as it is.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _missing(name: str) -> bool:
    return not sa.inspect(op.get_bind()).has_table(name)


def upgrade() -> None:
    if _missing("advisor_conversations"):
        op.create_table(
            "advisor_conversations",
            sa.Column("id", sa.String(32), primary_key=True),
            sa.Column("team", sa.String(32), nullable=False),
            sa.Column("channel", sa.String(32), nullable=False),
            sa.Column("thread_ts", sa.String(32)),
            sa.Column("user", sa.String(32), nullable=False),
            sa.Column("lang", sa.String(8), nullable=False),
            sa.Column("answers", sa.JSON, nullable=False),
            sa.Column("step", sa.Integer, nullable=False, server_default="0"),
            sa.Column("status", sa.String(16), nullable=False, server_default="active"),
            sa.Column("question_ts", sa.String(32)),
            sa.Column("note", sa.Text),
            sa.Column("warned_others", sa.Boolean, nullable=False, server_default=sa.false()),
            sa.Column("last_input", sa.String(200)),
            sa.Column("created_at", UtcDateTime, nullable=False),
            sa.Column("updated_at", UtcDateTime, nullable=False),
        )
        op.create_index(
            "ix_advisor_conversations_team_channel_thread_ts", "advisor_conversations", ["team", "channel", "thread_ts"]
        )
    if _missing("advisor_inbox"):
        op.create_table(
            "advisor_inbox",
            sa.Column("key", sa.String(200), primary_key=True),
            sa.Column("kind", sa.String(32), nullable=False),
            sa.Column("body", sa.JSON, nullable=False),
            sa.Column("received_at", UtcDateTime, nullable=False),
            sa.Column("done_at", UtcDateTime),
        )
        op.create_index("ix_advisor_inbox_done_at_received_at", "advisor_inbox", ["done_at", "received_at"])
    if _missing("advisor_user_locales"):
        op.create_table(
            "advisor_user_locales",
            sa.Column("user", sa.String(32), primary_key=True),
            sa.Column("locale", sa.String(32)),
            sa.Column("tz", sa.String(64)),
            sa.Column("fetched_at", UtcDateTime, nullable=False),
        )
    if _missing("advisor_recommendations"):
        op.create_table(
            "advisor_recommendations",
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("team", sa.String(32)),
            sa.Column("user", sa.String(32), nullable=False),
            sa.Column("choice", sa.String(16), nullable=False),
            sa.Column("summary", sa.Text, nullable=False),
            sa.Column("data", sa.JSON, nullable=False),
            sa.Column("created_at", UtcDateTime, nullable=False),
        )
        op.create_index("ix_advisor_recommendations_user_created_at", "advisor_recommendations", ["user", "created_at"])


def downgrade() -> None:
    for name in ("advisor_recommendations", "advisor_user_locales", "advisor_inbox", "advisor_conversations"):
        op.drop_table(name)
