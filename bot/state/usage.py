"""Each GPU's busiest reading per hour, for reports: raw samples grouped by the database (one row per
instance, GPU and hour), and the hourly maxima kept after folding (bot/state/retention.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select

from bot.state.schema import gpu_samples, gpu_samples_hourly
from bot.state.store import Store

Hourly = dict[tuple[int, int, datetime], float]  # (instance id, GPU, hour in UTC) -> highest utilisation %


def _hour_of(conn: Any) -> Any:
    """The hour a raw sample's time falls in, as the database says it: ISO text cut at the hour on SQLite
    (times are stored as UTC text), date_trunc on PostgreSQL."""
    if conn.dialect.name == "sqlite":
        return func.substr(gpu_samples.c.at, 1, 13)
    return func.date_trunc("hour", gpu_samples.c.at)


def _as_hour(value: Any) -> datetime:
    if isinstance(value, str):
        return datetime.fromisoformat(value + ":00:00").replace(tzinfo=UTC)
    moment: datetime = value
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def hourly_max(store: Store, instance_ids: list[int], since: datetime, until: datetime) -> Hourly:
    """The highest utilisation of each GPU of `instance_ids` in each hour of [since, until)."""
    out: Hourly = {}
    if not instance_ids:
        return out
    s, h = gpu_samples.c, gpu_samples_hourly.c
    with store.reading() as conn:
        hour = _hour_of(conn).label("hour")
        raw = (select(s.instance_id, s.gpu, hour, func.max(s.utilization_pct))
               .where(s.instance_id.in_(instance_ids), s.at >= since, s.at < until)
               .group_by(s.instance_id, s.gpu, hour))
        for instance_id, gpu, at, top in conn.execute(raw):
            key = (instance_id, gpu, _as_hour(at))
            out[key] = max(out.get(key, 0.0), float(top))
        folded = select(h.instance_id, h.gpu, h.hour, h.utilization_max_pct).where(
            h.instance_id.in_(instance_ids), h.hour >= since, h.hour < until)
        for instance_id, gpu, at, top in conn.execute(folded):
            key = (instance_id, gpu, _as_hour(at))
            out[key] = max(out.get(key, 0.0), float(top))
    return out
