"""One wallet per account (issue 52): a DSW notebook bills to the Alibaba Cloud account ECS does, a HAI server to the
Tencent Cloud account, so their items name that account (`aliyun`, `tencent`) as their provider, and a balance read
through DSW's or HAI's client is that account's balance: one balance, one runway.

Revision ID: 0028
Revises: 0027
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

WALLETS = {"aliyun-dsw": "aliyun", "tencent-hai": "tencent"}


def upgrade() -> None:
    for product, wallet in WALLETS.items():
        for table in ("rental_instances", "prepaid_balances"):
            op.execute(sa.text(f"UPDATE {table} SET provider = :wallet WHERE provider = :product").bindparams(
                wallet=wallet, product=product))  # fmt: skip


def downgrade() -> None:
    """The items' provider goes back to their source (a balance stays the account's: it was one wallet)."""
    for product in WALLETS:
        op.execute(sa.text("UPDATE rental_instances SET provider = :product WHERE source = :product").bindparams(
            product=product))  # fmt: skip
