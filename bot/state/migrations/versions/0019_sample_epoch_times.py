"""GPU samples' times as whole Unix seconds: 32 characters of ISO text (and the same again in two indexes) were
most of a sample's 136 bytes on SQLite; an integer takes 4-6 bytes, and an hour or a day is integer division
in SQL. One index (instance, time, GPU) now keeps samples once and serves every time-range read.

Existing rows are converted in place: a time's fraction of a second is dropped, and two samples of one GPU in
the same second keep the first. gpu_samples_hourly.hour is converted the same way.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None

SQLITE_SECONDS = "CAST(strftime('%s', substr({0}, 1, 19)) AS INTEGER)"  # '2026-12-01T12:31:19.5+00:00' -> 1796...
PG_SECONDS = "floor(extract(epoch from {0}))::bigint"
PG_TIME = "to_timestamp({0})"
SQLITE_TIME = "strftime('%Y-%m-%dT%H:%M:%S.000000+00:00', {0}, 'unixepoch')"

SAMPLE_COLUMNS = "id, instance_id, at, gpu, utilization_pct, memory_used_mib, memory_total_mib, power_w"
HOURLY_COLUMNS = (
    "instance_id, gpu, hour, samples, utilization_max_pct, memory_used_max_mib, memory_total_mib, power_max_w"
)


def _samples_table(name: str, at: Any) -> None:
    op.create_table(
        name,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("instance_id", sa.Integer, sa.ForeignKey("rental_instances.id"), nullable=False),
        sa.Column("at", at, nullable=False),
        sa.Column("gpu", sa.Integer, nullable=False),
        sa.Column("utilization_pct", sa.Float, nullable=False),
        sa.Column("memory_used_mib", sa.Float, nullable=False),
        sa.Column("memory_total_mib", sa.Float, nullable=False),
        sa.Column("power_w", sa.Float),
    )


def _hourly_table(name: str, hour: Any) -> None:
    op.create_table(
        name,
        sa.Column("instance_id", sa.Integer, sa.ForeignKey("rental_instances.id"), primary_key=True),
        sa.Column("gpu", sa.Integer, primary_key=True),
        sa.Column("hour", hour, primary_key=True),
        sa.Column("samples", sa.Integer, nullable=False),
        sa.Column("utilization_max_pct", sa.Float, nullable=False),
        sa.Column("memory_used_max_mib", sa.Float, nullable=False),
        sa.Column("memory_total_mib", sa.Float, nullable=False),
        sa.Column("power_max_w", sa.Float),
    )


def _sqlite_copy(
    table: str,
    columns: str,
    time_column: str,
    convert: str,
    make: Callable[[str, Any], None],
    time_type: Any,
    unique: tuple[str, list[str]] | None = None,
) -> None:
    """SQLite cannot change a column's type: a new table (with its unique index, so a repeat is skipped), the
    rows copied across converted, the first of repeats kept, then renamed (its indexes follow it)."""
    new = f"{table}_new"
    make(new, time_type)
    if unique:
        op.create_index(unique[0], new, unique[1], unique=True)
    select = ", ".join(convert.format(c) if c == time_column else c for c in columns.split(", "))
    op.execute(f"INSERT OR IGNORE INTO {new} ({columns}) SELECT {select} FROM {table} ORDER BY 1")
    op.drop_table(table)
    op.rename_table(new, table)


UNIQUE = ("uq_gpu_samples_instance_at_gpu", ["instance_id", "at", "gpu"])


def upgrade() -> None:
    op.drop_index("ix_gpu_samples_instance_id_at", "gpu_samples")
    op.drop_index("uq_gpu_samples_instance_gpu_at", "gpu_samples")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy("gpu_samples", SAMPLE_COLUMNS, "at", SQLITE_SECONDS, _samples_table, sa.BigInteger, UNIQUE)
        _sqlite_copy("gpu_samples_hourly", HOURLY_COLUMNS, "hour", SQLITE_SECONDS, _hourly_table, sa.BigInteger)
    else:
        op.execute(
            "DELETE FROM gpu_samples a USING gpu_samples b WHERE a.instance_id = b.instance_id "
            "AND a.gpu = b.gpu AND floor(extract(epoch from a.at)) = floor(extract(epoch from b.at)) "
            "AND a.id > b.id"
        )
        op.alter_column("gpu_samples", "at", type_=sa.BigInteger, postgresql_using=PG_SECONDS.format("at"))
        op.alter_column("gpu_samples_hourly", "hour", type_=sa.BigInteger, postgresql_using=PG_SECONDS.format("hour"))
        op.create_index(UNIQUE[0], "gpu_samples", UNIQUE[1], unique=True)


def downgrade() -> None:
    op.drop_index("uq_gpu_samples_instance_at_gpu", "gpu_samples")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_copy("gpu_samples", SAMPLE_COLUMNS, "at", SQLITE_TIME, _samples_table, sa.String(40))
        _sqlite_copy("gpu_samples_hourly", HOURLY_COLUMNS, "hour", SQLITE_TIME, _hourly_table, sa.String(40))
    else:
        op.alter_column("gpu_samples", "at", type_=sa.DateTime(timezone=True), postgresql_using=PG_TIME.format("at"))
        op.alter_column(
            "gpu_samples_hourly", "hour", type_=sa.DateTime(timezone=True), postgresql_using=PG_TIME.format("hour")
        )
    op.create_index("ix_gpu_samples_instance_id_at", "gpu_samples", ["instance_id", "at"])
    op.create_index("uq_gpu_samples_instance_gpu_at", "gpu_samples", ["instance_id", "gpu", "at"], unique=True)
