"""A prepaid balance keeps the request that recorded it, where one did: a top-up (`balance autodl +2000`) adds to
what is left, so a request redone (its answer not delivered, the process stopped) must find its top-up made rather
than add it twice. NULL: typed as a balance, read from an API, or from the terminal.

Revision ID: 0034
Revises: 0033
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("prepaid_balances", sa.Column("request_key", sa.String(200)))


def downgrade() -> None:
    with op.batch_alter_table("prepaid_balances") as batch:
        batch.drop_column("request_key")
