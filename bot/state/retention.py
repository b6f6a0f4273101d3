"""Keep the samples table bounded: raw samples older than `raw_days` are folded into hourly maxima
(one row per instance, GPU and hour), and hourly rows older than `hourly_days` are dropped.

Each batch folds and deletes in one transaction, so a crash loses nothing and folds nothing twice;
a fold into an hour that already has a row takes the maxima of both.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update

from bot.state.schema import gpu_samples, gpu_samples_hourly
from bot.state.store import Store

BATCH = 20_000


@dataclass(frozen=True)
class Compacted:
    folded: int  # raw samples folded into hourly rows
    hours: int  # hourly rows written or updated
    dropped: int  # hourly rows past their retention


def _fold(conn: Any, rows: list[Any]) -> int:
    buckets: dict[tuple[int, int, datetime], dict[str, Any]] = {}
    for r in rows:
        key = (r.instance_id, r.gpu, r.at.replace(minute=0, second=0, microsecond=0))
        b = buckets.setdefault(key, {"samples": 0, "utilization_max_pct": 0.0, "memory_used_max_mib": 0.0,
                                     "memory_total_mib": 0.0, "power_max_w": None})
        b["samples"] += 1
        b["utilization_max_pct"] = max(b["utilization_max_pct"], r.utilization_pct)
        b["memory_used_max_mib"] = max(b["memory_used_max_mib"], r.memory_used_mib)
        b["memory_total_mib"] = max(b["memory_total_mib"], r.memory_total_mib)
        if r.power_w is not None:
            b["power_max_w"] = max(b["power_max_w"] or 0.0, r.power_w)
    h = gpu_samples_hourly.c
    for (instance_id, gpu, hour), b in buckets.items():
        where = (h.instance_id == instance_id, h.gpu == gpu, h.hour == hour)
        old = conn.execute(select(gpu_samples_hourly).where(*where)).first()
        if old is None:
            conn.execute(insert(gpu_samples_hourly).values(instance_id=instance_id, gpu=gpu, hour=hour, **b))
            continue
        power = [p for p in (old.power_max_w, b["power_max_w"]) if p is not None]
        conn.execute(update(gpu_samples_hourly).where(*where).values(
            samples=old.samples + b["samples"],
            utilization_max_pct=max(old.utilization_max_pct, b["utilization_max_pct"]),
            memory_used_max_mib=max(old.memory_used_max_mib, b["memory_used_max_mib"]),
            memory_total_mib=max(old.memory_total_mib, b["memory_total_mib"]),
            power_max_w=max(power) if power else None))
    return len(buckets)


def compact(store: Store, now: datetime, *, raw_days: float, hourly_days: float) -> Compacted:
    cutoff = now - timedelta(days=raw_days)
    folded = hours = 0
    c = gpu_samples.c
    while True:
        with store.writing() as conn:
            rows = list(conn.execute(select(gpu_samples).where(c.at < cutoff).order_by(c.id).limit(BATCH)))
            if not rows:
                break
            hours += _fold(conn, rows)
            conn.execute(delete(gpu_samples).where(c.id.in_([r.id for r in rows])))
        folded += len(rows)
    with store.writing() as conn:
        dropped = conn.execute(delete(gpu_samples_hourly).where(
            gpu_samples_hourly.c.hour < now - timedelta(days=hourly_days))).rowcount
    return Compacted(folded, hours, dropped)
