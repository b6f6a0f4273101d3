"""What the idle rule needs of each GPU's samples over the window (rules/idle.GpuWindow), added up by the
database: the first and last sample, the longest gap between two (a window function), the busiest reading and
the least memory share. The digest reads a few numbers per GPU instead of every sample of every instance."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, case, cast, func, select

from bot.state.schema import as_seconds, gpu_samples
from bot.state.store import Store
from rules.idle import GpuWindow

CHUNK = 5_000  # instance ids a query names at most (SQLite's and psycopg's bound parameter limits)


def window_query(instance_ids: list[int], start: datetime, now: datetime) -> Any:
    """One row per instance and GPU: id, GPU, first and last time, longest gap (s), busiest %, least share."""
    s = gpu_samples.c
    at = as_seconds(s.at)
    previous = func.lag(at).over(partition_by=(s.instance_id, s.gpu), order_by=s.at)
    share = case((s.memory_total_mib > 0, s.memory_used_mib / s.memory_total_mib), else_=0.0)
    rows = (
        select(
            s.instance_id,
            s.gpu,
            s.at,
            (at - previous).label("gap"),
            s.utilization_pct,
            cast(share, Float).label("share"),
        )
        .where(s.instance_id.in_(instance_ids), s.at >= start, s.at <= now)
        .subquery()
    )
    return (
        select(
            rows.c.instance_id,
            rows.c.gpu,
            func.min(rows.c.at),
            func.max(rows.c.at),
            func.coalesce(func.max(rows.c.gap), 0),
            func.max(rows.c.utilization_pct),
            func.min(rows.c.share),
        )
        .group_by(rows.c.instance_id, rows.c.gpu)
        .order_by(rows.c.instance_id, rows.c.gpu)
    )


def gpu_windows(store: Store, instance_ids: list[int], start: datetime, now: datetime) -> dict[int, list[GpuWindow]]:
    """Per instance, its GPUs' summaries of the samples from `start` to `now` (both included); an instance with
    no samples there maps to an empty list."""
    found: dict[int, list[GpuWindow]] = {i: [] for i in instance_ids}
    for first in range(0, len(instance_ids), CHUNK):
        with store.reading() as conn:
            query = window_query(instance_ids[first : first + CHUNK], start, now)
            for inst, gpu, earliest, latest, gap, busiest, least in conn.execute(query):
                found[inst].append(GpuWindow(gpu, earliest, latest, float(gap), float(busiest), float(least)))
    return found
