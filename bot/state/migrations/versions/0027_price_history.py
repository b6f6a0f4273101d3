"""A found item's price follows its source (issue 52): each scan prices it again, and a price set by hand (`billing
NAME --price`) is kept from then on. `price_by`: who set the price by hand (NULL: its source's, which a scan may
change); `price_since`: when the current price began (NULL: from the start); `price_history`: the prices before,
each until the moment the next began, so money already billed stays at the price it was billed at.

Revision ID: 0027
Revises: 0026
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import ID, UtcDateTime

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rental_instances", sa.Column("price_by", sa.String(ID)))
    op.add_column("rental_instances", sa.Column("price_since", UtcDateTime))
    op.create_table(
        "price_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("instance_id", sa.Integer, nullable=False),
        sa.Column("until", UtcDateTime, nullable=False),
        sa.Column("price", sa.Float),
        sa.Column("unit", sa.String(8), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
    )
    op.create_index("ix_price_history_instance_id", "price_history", ["instance_id"])


def downgrade() -> None:
    op.drop_index("ix_price_history_instance_id", "price_history")
    op.drop_table("price_history")
    with op.batch_alter_table("rental_instances") as batch:
        batch.drop_column("price_since")
        batch.drop_column("price_by")
