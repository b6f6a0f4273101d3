"""An earlier price keeps how it was billed (hourly, day, month): `训练机 改成包月 38000` after two days at ¥120 an
hour billed those two days as a month at ¥120 × 720 (¥86,400), since the piece before the change was billed on the
item's new basis. NULL (rows from before): as the item is billed now, as they were read before.

Revision ID: 0037
Revises: 0036
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("price_history", sa.Column("billing", sa.String(8)))


def downgrade() -> None:
    with op.batch_alter_table("price_history") as batch:
        batch.drop_column("billing")
