"""Money that matches the bill: each instance's billing basis (hourly, day, month), whether stopping stops its
meter and the provider account it bills to; its power reports (on, off, from when to when, who said so); and
prepaid balances. Every instance already kept gets one report, on from its start (as every figure counted it
so far); the next heartbeat, scan or person's word tells the rest.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from bot.state.schema import ID, UtcDateTime

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rental_instances") as batch:
        batch.add_column(sa.Column("billing", sa.String(8)))
        batch.add_column(sa.Column("stop_billing", sa.String(8)))
        batch.add_column(sa.Column("provider", sa.String(32)))
    reports = op.create_table(
        "power_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("instance_id", sa.Integer, sa.ForeignKey("rental_instances.id"), nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("last_at", UtcDateTime, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("charging", sa.Boolean),
        sa.Column("by", sa.String(ID)),
    )
    op.create_index(
        "uq_power_reports_instance_at", "power_reports", ["instance_id", "at", "state", "source"], unique=True
    )
    op.create_table(
        "prepaid_balances",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("team", sa.String(ID), nullable=False),
        sa.Column("provider", sa.String(32), nullable=False),
        sa.Column("amount", sa.Float, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("at", UtcDateTime, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("recorded_by", sa.String(ID)),
        sa.Column("recorded_at", UtcDateTime, nullable=False),
        sa.Column("alerted_below_h", sa.Float),
    )
    op.create_index("ix_prepaid_balances_team_provider_at", "prepaid_balances", ["team", "provider", "at"])
    instances = sa.table(
        "rental_instances", sa.column("id", sa.Integer), sa.column("started_at", UtcDateTime), sa.column("source")
    )
    rows = op.get_bind().execute(sa.select(instances.c.id, instances.c.started_at)).all()
    if rows:
        op.bulk_insert(
            reports,
            [
                {"instance_id": i, "state": "on", "at": at, "last_at": at, "source": "track", "charging": None}
                for i, at in rows
            ],
        )


def downgrade() -> None:
    op.drop_index("ix_prepaid_balances_team_provider_at", "prepaid_balances")
    op.drop_table("prepaid_balances")
    op.drop_index("uq_power_reports_instance_at", "power_reports")
    op.drop_table("power_reports")
    with op.batch_alter_table("rental_instances") as batch:
        for column in ("provider", "stop_billing", "billing"):
            batch.drop_column(column)
