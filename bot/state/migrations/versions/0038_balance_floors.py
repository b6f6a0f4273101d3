"""An amount a provider's prepaid balance is told below (`余额低于500提醒我`, `balance autodl alert 500`): the runway
alerts told hours left only, and a team paying from a wallet thinks in money. `balance_floors`: one amount a team and
provider (`*`: every provider), in a currency or in each balance's own; `prepaid_balances.alerted_floor`: the amount
already told for that balance (a new balance, a top-up, starts afresh).

Revision ID: 0038
Revises: 0037
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import ID, UtcDateTime

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("prepaid_balances", sa.Column("alerted_floor", sa.Float))
    op.create_table(
        "balance_floors",
        sa.Column("team", sa.String(ID), primary_key=True),
        sa.Column("provider", sa.String(32), primary_key=True),
        sa.Column("amount", sa.Float, nullable=False),
        sa.Column("currency", sa.String(3)),
        sa.Column("channel", sa.String(ID)),
        sa.Column("set_by", sa.String(ID)),
        sa.Column("set_at", UtcDateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("balance_floors")
    with op.batch_alter_table("prepaid_balances") as batch:
        batch.drop_column("alerted_floor")
