"""One row per (instance, GPU, time) in gpu_samples, enforced by the database: two replicas receiving the
same heartbeat at once kept repeated samples twice. Repeats already kept are removed (the first stays).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        "DELETE FROM gpu_samples WHERE id NOT IN "
        "(SELECT first FROM (SELECT MIN(id) AS first FROM gpu_samples GROUP BY instance_id, gpu, at) AS kept)"
    )
    op.create_index("uq_gpu_samples_instance_gpu_at", "gpu_samples", ["instance_id", "gpu", "at"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_gpu_samples_instance_gpu_at", "gpu_samples")
