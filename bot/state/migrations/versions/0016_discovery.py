"""Cloud discovery: what the cloud says of each instance (state, region, launch time, spot) and volume
(attached or not), who released an instance (a person, the cloud, the bot), items an admin marked "Not
ours", and each discovery source's last run (for /healthz).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rental_instances", sa.Column("cloud_state", sa.String(16)))
    op.add_column("rental_instances", sa.Column("provider_region", sa.String(32)))
    op.add_column("rental_instances", sa.Column("launched_at", UtcDateTime))
    op.add_column("rental_instances", sa.Column("spot", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("rental_instances", sa.Column("released_by", sa.String(32)))
    op.add_column("rental_instances", sa.Column("hidden_by", sa.String(32)))
    op.add_column("rental_storage", sa.Column("cloud_state", sa.String(16)))
    op.add_column("rental_storage", sa.Column("provider_region", sa.String(32)))
    op.add_column("rental_storage", sa.Column("hidden_by", sa.String(32)))
    op.create_table(
        "discovery_runs",
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("last_run_at", UtcDateTime, nullable=False),
        sa.Column("last_ok_at", UtcDateTime),
        sa.Column("found", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("error", sa.Text()),
        sa.PrimaryKeyConstraint("source", name="pk_discovery_runs"),
    )


def downgrade() -> None:
    op.drop_table("discovery_runs")
    with op.batch_alter_table("rental_storage") as batch:
        for column in ("hidden_by", "provider_region", "cloud_state"):
            batch.drop_column(column)
    with op.batch_alter_table("rental_instances") as batch:
        for column in ("hidden_by", "released_by", "spot", "launched_at", "provider_region", "cloud_state"):
            batch.drop_column(column)
