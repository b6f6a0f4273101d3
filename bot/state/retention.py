"""Keep the samples table bounded: raw samples older than `raw_days` are folded into hourly maxima
(one row per instance, GPU and hour), and hourly rows older than `hourly_days` are dropped.

The fold is set-based SQL: for a batch of instances, one INSERT ... SELECT ... GROUP BY writes their hours
(an hour that already has a row takes the maxima of both: ON CONFLICT DO UPDATE) and one DELETE removes the
raw rows folded, in one transaction, so a crash loses nothing and folds nothing twice. Batches hold about
BATCH raw rows, and the write lock is let go between them, so Slack's acknowledgements and the heartbeats
wait for one batch, never for the whole fold.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from bot.state.schema import as_seconds, gpu_samples, gpu_samples_hourly
from bot.state.store import Store

BATCH = 50_000  # raw rows a transaction folds, about (an instance's rows are never split)


@dataclass(frozen=True)
class Compacted:
    folded: int  # raw samples folded into hourly rows
    hours: int  # hourly rows written or updated
    dropped: int  # hourly rows past their retention


def _greater(dialect: str, a: Any, b: Any) -> Any:
    """The larger of two values, a NULL counting as absent (SQLite's two-argument max() is NULL if either is)."""
    if dialect == "postgresql":
        return func.greatest(a, b)  # ignores NULLs
    return func.max(func.coalesce(a, b), func.coalesce(b, a))


def fold_statement(dialect: str, instance_ids: list[int] | None, cutoff: datetime) -> Any:
    """INSERT INTO gpu_samples_hourly SELECT the hourly maxima of the raw rows before `cutoff` (of
    `instance_ids`, or all), merged into hours already kept."""
    s, h = gpu_samples.c, gpu_samples_hourly.c
    hour = (as_seconds(s.at) // 3600 * 3600).label("hour")
    where = [s.at < cutoff] + ([s.instance_id.in_(instance_ids)] if instance_ids is not None else [])
    rows = (
        select(
            s.instance_id,
            s.gpu,
            hour,
            func.count().label("samples"),
            func.max(s.utilization_pct),
            func.max(s.memory_used_mib),
            func.max(s.memory_total_mib),
            func.max(s.power_w),
        )
        .where(*where)
        .group_by(s.instance_id, s.gpu, hour)
    )
    make = pg_insert if dialect == "postgresql" else sqlite_insert
    statement = make(gpu_samples_hourly).from_select(
        [
            "instance_id",
            "gpu",
            "hour",
            "samples",
            "utilization_max_pct",
            "memory_used_max_mib",
            "memory_total_mib",
            "power_max_w",
        ],
        rows,
    )
    new = statement.excluded
    return statement.on_conflict_do_update(
        index_elements=[h.instance_id, h.gpu, h.hour],
        set_={
            "samples": h.samples + new.samples,
            "utilization_max_pct": _greater(dialect, h.utilization_max_pct, new.utilization_max_pct),
            "memory_used_max_mib": _greater(dialect, h.memory_used_max_mib, new.memory_used_max_mib),
            "memory_total_mib": _greater(dialect, h.memory_total_mib, new.memory_total_mib),
            "power_max_w": _greater(dialect, h.power_max_w, new.power_max_w),
        },
    )


def _batches(store: Store, cutoff: datetime) -> Iterator[tuple[list[int], int]]:
    """Instances with raw rows before `cutoff`, packed into batches of about BATCH rows."""
    s = gpu_samples.c
    with store.reading() as conn:
        counts = list(
            conn.execute(
                select(s.instance_id, func.count()).where(s.at < cutoff).group_by(s.instance_id).order_by(s.instance_id)
            )
        )
    batch: list[int] = []
    rows = 0
    for instance_id, count in counts:
        if batch and rows + count > BATCH:
            yield batch, rows
            batch, rows = [], 0
        batch.append(instance_id)
        rows += count
    if batch:
        yield batch, rows


def compact(store: Store, now: datetime, *, raw_days: float, hourly_days: float) -> Compacted:
    cutoff = now - timedelta(days=raw_days)
    folded = hours = 0
    s = gpu_samples.c
    for instance_ids, _ in _batches(store, cutoff):
        with store.writing() as conn:
            fold = fold_statement(conn.dialect.name, instance_ids, cutoff).returning(gpu_samples_hourly.c.gpu)
            hours += len(conn.execute(fold).all())  # (rowcount of INSERT ... SELECT is -1 on psycopg)
            folded += conn.execute(delete(gpu_samples).where(s.instance_id.in_(instance_ids), s.at < cutoff)).rowcount
    with store.writing() as conn:
        dropped = conn.execute(
            delete(gpu_samples_hourly).where(gpu_samples_hourly.c.hour < now - timedelta(days=hourly_days))
        ).rowcount
    return Compacted(folded, hours, dropped)
