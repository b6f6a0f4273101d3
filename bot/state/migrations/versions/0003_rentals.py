"""What a team rents (instances and storage) and what their agents report (GPU samples, disks).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rental_instances",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("project", sa.String(80)),
        sa.Column("gpu", sa.String(32), nullable=False),
        sa.Column("cards", sa.Integer, nullable=False, server_default="1"),
        sa.Column("share", sa.Float),
        sa.Column("unit", sa.String(8), nullable=False),
        sa.Column("price", sa.Float, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("started_at", UtcDateTime, nullable=False),
        sa.Column("released_at", UtcDateTime),
        sa.UniqueConstraint("team", "name", name="uq_rental_instances_team_name"),
    )
    op.create_index("ix_rental_instances_token_hash", "rental_instances", ["token_hash"])
    op.create_table(
        "rental_storage",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("project", sa.String(80)),
        sa.Column("size_gb", sa.Float, nullable=False),
        sa.Column("price_gb_month", sa.Float, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("instance_id", sa.Integer, sa.ForeignKey("rental_instances.id")),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("deleted_at", UtcDateTime),
        sa.UniqueConstraint("team", "name", name="uq_rental_storage_team_name"),
    )
    op.create_table(
        "gpu_samples",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("instance_id", sa.Integer, sa.ForeignKey("rental_instances.id"), nullable=False),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("gpu", sa.Integer, nullable=False),
        sa.Column("utilization_pct", sa.Float, nullable=False),
        sa.Column("memory_used_mib", sa.Float, nullable=False),
        sa.Column("memory_total_mib", sa.Float, nullable=False),
        sa.Column("power_w", sa.Float),
    )
    op.create_index("ix_gpu_samples_instance_id_at", "gpu_samples", ["instance_id", "at"])
    op.create_table(
        "disk_reports",
        sa.Column("instance_id", sa.Integer, sa.ForeignKey("rental_instances.id"), primary_key=True),
        sa.Column("path", sa.String(400), primary_key=True),
        sa.Column("size_gb", sa.Float, nullable=False),
        sa.Column("newest_mtime", UtcDateTime),
        sa.Column("reported_at", UtcDateTime, nullable=False),
    )


def downgrade() -> None:
    for name in ("disk_reports", "gpu_samples", "rental_storage", "rental_instances"):
        op.drop_table(name)
