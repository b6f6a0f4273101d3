"""An instance's own idle rule gains its threshold: the GPU utilisation (%) under which its platform counts it idle,
where the rule has one (a PAI-DSW notebook's GpuPercentThreshold, Volcengine ML Platform's low-utilization
shutdown), so `discover --json` can say it beside the minutes. NULL: none known, or a rule without one.

Revision ID: 0031
Revises: 0030
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rental_instances", sa.Column("idle_rule_threshold_pct", sa.Float()))


def downgrade() -> None:
    with op.batch_alter_table("rental_instances") as batch:
        batch.drop_column("idle_rule_threshold_pct")
