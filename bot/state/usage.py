"""What reports read of the samples: per instance and local day, the GPU-hours busy and idle, added up by the
database from the raw samples (grouped by hour, each GPU's busiest reading) and the hourly maxima kept after
folding (bot/state/retention.py)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import Integer, case, cast, func, select, union_all

from bot.state.schema import gpu_samples, gpu_samples_hourly
from bot.state.store import Store

Daily = dict[tuple[int, date], tuple[float, float]]  # (instance id, local day) -> (busy, idle GPU-hours)


def _epoch_hour(conn: Any, column: Any) -> Any:
    """A time column as the Unix time of its hour, computed by the database."""
    if conn.dialect.name == "sqlite":  # UTC ISO text: cut at the hour, then strftime('%s')
        return cast(func.strftime("%s", func.substr(column, 1, 13).op("||")(":00:00")), Integer)
    return cast(func.extract("epoch", func.date_trunc("hour", column)), Integer)


def daily_activity(store: Store, instance_ids: list[int], since: datetime, until: datetime, *, offset_s: int,
                   busy_above_pct: float) -> Daily:
    """Per instance and local day (the zone's UTC offset `offset_s`), its GPU-hours busy (a GPU's busiest
    reading of the hour above the threshold) and idle (at or below it), added up by the database from the
    raw samples and the folded hourly maxima: a few rows per instance, whatever the samples' number."""
    out: Daily = {}
    if not instance_ids:
        return out
    s, h = gpu_samples.c, gpu_samples_hourly.c
    with store.reading() as conn:
        raw_hour = _epoch_hour(conn, s.at)
        raw = (select(s.instance_id.label("inst"), s.gpu.label("gpu"), raw_hour.label("hour"),
                      func.max(s.utilization_pct).label("top"))
               .where(s.instance_id.in_(instance_ids), s.at >= since, s.at < until)
               .group_by(s.instance_id, s.gpu, raw_hour))
        folded = (select(h.instance_id.label("inst"), h.gpu.label("gpu"), _epoch_hour(conn, h.hour).label("hour"),
                         h.utilization_max_pct.label("top"))
                  .where(h.instance_id.in_(instance_ids), h.hour >= since, h.hour < until))
        both = union_all(raw, folded).subquery()
        per_hour = (select(both.c.inst, both.c.hour, func.max(both.c.top).label("top"))
                    .group_by(both.c.inst, both.c.gpu, both.c.hour).subquery())
        day = ((per_hour.c.hour + offset_s) // 86400).label("day")  # floor division: days since 1970, local
        busy = func.sum(case((per_hour.c.top > busy_above_pct, 1), else_=0))
        idle = func.sum(case((per_hour.c.top <= busy_above_pct, 1), else_=0))
        query = select(per_hour.c.inst, day, busy, idle).group_by(per_hour.c.inst, day)
        for inst, days, busy_hours, idle_hours in conn.execute(query):
            out[(inst, EPOCH + timedelta(days=int(days)))] = (float(busy_hours), float(idle_hours))
    return out


EPOCH = date(1970, 1, 1)
