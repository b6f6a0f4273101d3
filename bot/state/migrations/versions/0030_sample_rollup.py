"""Reports read hours, not minutes (issue 50): every raw sample is folded into its hour once, within the hour
after it arrives, instead of only when it is past the retention; a report reads the hourly rows and only the raw
samples not folded yet. The hourly rows gain the hour's first and last sample time, so the share of the hour the
samples cover (a box started at :35) is known from them as from the raw samples; hours folded before keep NULL
and count as whole, as they did. `sample_rollup.through_id`: every sample of that id or lower is folded.

Revision ID: 0030
Revises: 0029
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("gpu_samples_hourly", sa.Column("first_at", sa.BigInteger()))
    op.add_column("gpu_samples_hourly", sa.Column("last_at", sa.BigInteger()))
    op.create_table(
        "sample_rollup",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("through_id", sa.BigInteger(), nullable=False),
    )


def downgrade() -> None:
    """The raw samples stay (the digest's idle rule reads them): the older release merges an hour it finds both
    raw and folded by its maxima, so its figures are the same; only its count of samples in such hours grows."""
    op.drop_table("sample_rollup")
    with op.batch_alter_table("gpu_samples_hourly") as batch:
        batch.drop_column("last_at")
        batch.drop_column("first_at")
