"""GPU boxes that enroll themselves: enrollment tokens (only their hash), and on each instance where it came
from (`source`: track, agent, aws, k8s), the cloud's id (`provider_id`) and an enrolled box's machine id.
An enrolled card the price cache does not know has no price yet, so `price` may be NULL.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import UtcDateTime

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rental_instances") as batch:
        batch.add_column(sa.Column("source", sa.String(16), nullable=False, server_default="track"))
        batch.add_column(sa.Column("provider_id", sa.String(200)))
        batch.add_column(sa.Column("machine_id", sa.String(64)))
        batch.alter_column("price", existing_type=sa.Float(), nullable=True)
    op.create_index("ix_rental_instances_team_machine_id", "rental_instances", ["team", "machine_id"])
    op.create_index("ix_rental_instances_team_provider_id", "rental_instances", ["team", "provider_id"])
    op.add_column("rental_storage", sa.Column("source", sa.String(16), nullable=False, server_default="track"))
    op.add_column("rental_storage", sa.Column("provider_id", sa.String(200)))
    op.create_index("ix_rental_storage_team_provider_id", "rental_storage", ["team", "provider_id"])
    op.create_table(
        "enroll_tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("team", sa.String(32), nullable=False),
        sa.Column("channel", sa.String(32), nullable=False),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("project", sa.String(80)),
        sa.Column("uses_left", sa.Integer(), nullable=False),
        sa.Column("expires_at", UtcDateTime, nullable=False),
        sa.Column("created_by", sa.String(32), nullable=False),
        sa.Column("created_at", UtcDateTime, nullable=False),
        sa.Column("request_key", sa.String(200)),
        sa.PrimaryKeyConstraint("token_hash", name="pk_enroll_tokens"),
    )


def downgrade() -> None:
    op.drop_table("enroll_tokens")
    op.drop_index("ix_rental_storage_team_provider_id", "rental_storage")
    with op.batch_alter_table("rental_storage") as batch:
        batch.drop_column("provider_id")
        batch.drop_column("source")
    op.drop_index("ix_rental_instances_team_provider_id", "rental_instances")
    op.drop_index("ix_rental_instances_team_machine_id", "rental_instances")
    with op.batch_alter_table("rental_instances") as batch:
        batch.alter_column("price", existing_type=sa.Float(), nullable=False)
        batch.drop_column("machine_id")
        batch.drop_column("provider_id")
        batch.drop_column("source")
