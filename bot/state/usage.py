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


def _raw_hours(conn: Any, instance_ids: list[int], since: datetime, until: datetime) -> Any:
    """Each GPU's busiest raw sample per hour. On SQLite the samples are grouped by their time's text cut at
    the hour (cheap), and only each group's hour is turned into a Unix time (strftime once a group, not once
    a sample)."""
    s = gpu_samples.c
    where = (s.instance_id.in_(instance_ids), s.at >= since, s.at < until)
    if conn.dialect.name != "sqlite":
        hour = _epoch_hour(conn, s.at)
        return (select(s.instance_id.label("inst"), s.gpu.label("gpu"), hour.label("hour"),
                       func.max(s.utilization_pct).label("top")).where(*where).group_by(s.instance_id, s.gpu, hour))
    text_hour = func.substr(s.at, 1, 13)
    grouped = (select(s.instance_id.label("inst"), s.gpu.label("gpu"), text_hour.label("hour_text"),
                      func.max(s.utilization_pct).label("top")).where(*where)
               .group_by(s.instance_id, s.gpu, text_hour).subquery())
    epoch = cast(func.strftime("%s", grouped.c.hour_text.op("||")(":00:00")), Integer)
    return select(grouped.c.inst, grouped.c.gpu, epoch.label("hour"), grouped.c.top)


def daily_activity(store: Store, instance_ids: list[int], since: datetime, until: datetime, *, offset_s: int,
                   busy_above_pct: float) -> Daily:
    """Per instance and local day (the zone's UTC offset `offset_s`), its GPU-hours busy (a GPU's busiest
    reading of the hour above the threshold) and idle (at or below it), added up by the database from the
    raw samples and the folded hourly maxima: a few rows per instance, whatever the samples' number."""
    out: Daily = {}
    if not instance_ids:
        return out
    h = gpu_samples_hourly.c
    with store.reading() as conn:
        raw = _raw_hours(conn, instance_ids, since, until)
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
