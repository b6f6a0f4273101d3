"""What reports read of the samples: per instance and local day, the GPU-hours busy and idle, added up by the
database from the hourly rows every sample is folded into (bot/state/retention.py) and the raw samples not folded
yet (at most about the last hour's, each GPU's busiest reading per hour)."""

from __future__ import annotations

import os
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import and_, case, exists, func, select, union_all

from bot.state.activity_days import DAY_S, keep, kept, marker, unfolded, whole_days
from bot.state.retention import folded_through
from bot.state.schema import as_seconds, gpu_samples, gpu_samples_hourly, greater, lesser
from bot.state.store import Store

PARTS = 4
PART_MIN = 250  # instances: below twice this, one query
Daily = dict[tuple[int, date], tuple[float, float]]  # (instance id, local day) -> (busy, idle GPU-hours)


LONE_SAMPLE_S = 60  # what one sample alone in its hour stands for: the agent's default interval


def _raw_hours(instance_ids: list[int], since: datetime, until: datetime) -> Any:
    """The raw samples not folded yet, per GPU and hour: the busiest reading, the first and last time, the count.
    Read by id (the rows after the fold's marker: a range of the table's key) rather than through the instance's
    index, which would visit every raw sample of the period only to skip the folded ones: `instance_id + 0` keeps
    the planner (SQLite's and PostgreSQL's) off that index."""
    s = gpu_samples.c
    secs = as_seconds(s.at)
    hour = (secs // 3600 * 3600).label("hour")
    return (
        select(
            s.instance_id.label("inst"),
            s.gpu.label("gpu"),
            hour,
            func.max(s.utilization_pct).label("top"),
            func.min(secs).label("first"),
            func.max(secs).label("last"),
            func.count().label("n"),
        )
        .where(s.id > folded_through(), (s.instance_id + 0).in_(instance_ids), s.at >= since, s.at < until)
        .group_by(s.instance_id, s.gpu, hour)
    )


def _covered(whole: Any, span: Any, count: Any) -> Any:
    """The share of an hour a GPU's samples cover: their span plus one interval between them (a box started at
    :35 and sampled each minute covers 25 minutes, not the hour), so idle GPU-hours follow the samples' own time,
    as the digest's do; an hour folded before 0030 (no sample times) is whole."""
    step = case((count > 1, span * 1.0 / (count - 1)), else_=LONE_SAMPLE_S)
    return case((whole == 1, 1.0), (span + step < 3600, (span + step) / 3600.0), else_=1.0)


def _daily_query(
    dialect: str, instance_ids: list[int], since: datetime, until: datetime, offset_s: int, busy_above_pct: float
) -> Any:
    """Each GPU-hour is its hourly row, or, where samples of it are not folded yet, that row (if any) and those
    samples together. The hours without unfolded samples (all but about the last hour's) are read as they are,
    not merged: at 2,000 instances a week is 336,000 rows the database would otherwise sort once more."""
    raw = _raw_hours(instance_ids, since, until).cte("unfolded")
    kept = gpu_samples_hourly.alias("kept")
    k = kept.c
    joined = raw.outerjoin(
        kept, and_(k.instance_id == raw.c.inst, k.gpu == raw.c.gpu, as_seconds(k.hour) == raw.c.hour)
    )
    span = greater(dialect, raw.c.last, as_seconds(k.last_at)) - lesser(dialect, raw.c.first, as_seconds(k.first_at))
    merged = select(
        raw.c.inst,
        raw.c.hour,
        greater(dialect, raw.c.top, k.utilization_max_pct).label("top"),
        _covered(
            case((and_(k.instance_id.is_not(None), k.first_at.is_(None)), 1), else_=0),
            span,
            raw.c.n + func.coalesce(k.samples, 0),
        ).label("covered"),
    ).select_from(joined)
    h, u = gpu_samples_hourly.c, raw.alias("u")
    alone = select(
        h.instance_id,
        as_seconds(h.hour),
        h.utilization_max_pct,
        _covered(case((h.first_at.is_(None), 1), else_=0), as_seconds(h.last_at) - as_seconds(h.first_at), h.samples),
    ).where(
        h.instance_id.in_(instance_ids),
        h.hour >= since,
        h.hour < until,
        # an anti-join (SQLite indexes the unfolded hours for it; a row-value NOT IN compared each row with all)
        ~exists().where(u.c.inst == h.instance_id, u.c.gpu == h.gpu, u.c.hour == as_seconds(h.hour)),
    )
    hours = union_all(merged, alone).subquery()
    day = ((hours.c.hour + offset_s) // 86400).label("day")  # floor division: days since 1970, local
    busy = func.sum(case((hours.c.top > busy_above_pct, hours.c.covered), else_=0))
    idle = func.sum(case((hours.c.top <= busy_above_pct, hours.c.covered), else_=0))
    return select(hours.c.inst, day, busy, idle).group_by(hours.c.inst, day)


def _parts(instance_ids: list[int]) -> list[list[int]]:
    """The instances split for reading side by side: one part per core (at most PARTS), each of at least
    PART_MIN instances, so that a small team is one query."""
    count = max(1, min(PARTS, os.cpu_count() or 1, len(instance_ids) // PART_MIN))
    size = -(-len(instance_ids) // count)
    return [instance_ids[k : k + size] for k in range(0, len(instance_ids), size)]


def daily_activity(
    store: Store, instance_ids: list[int], since: datetime, until: datetime, *, offset_s: int, busy_above_pct: float
) -> Daily:
    """Per instance and local day (the zone's UTC offset `offset_s`), its GPU-hours busy (a GPU's busiest
    reading of the hour above the threshold) and idle (at or below it), added up by the database from the
    raw samples and the folded hourly maxima: a few rows per instance, whatever the samples' number. Whole days
    added up once are kept (bot/state/activity_days.py): a month's report adds up only what they do not hold
    (the part of a day at either end, days with samples not folded yet, days not kept yet, which it keeps)."""
    if not instance_ids:
        return {}
    days = whole_days(since, until, offset_s) if offset_s % 3600 == 0 else range(0)  # an hour is one day's
    through, held, fresh = None, {}, set()
    if days:
        with store.reading() as conn:
            through = marker(conn)
            if through is not None:
                held = kept(conn, instance_ids, days, offset_s, busy_above_pct)
                fresh = unfolded(conn, instance_ids, days, offset_s, through)
    # each instance's days are read from what is kept up to its first whole day not kept (or with samples not folded
    # yet), and added up from there on: usually yesterday, or today's part. Instances alike are read together.
    first: dict[int, list[int]] = defaultdict(list)
    for i in instance_ids:
        first[next((d for d in days if (i, d) not in held or (i, d) in fresh), days.stop)].append(i)
    found = _added_up(store, instance_ids, since, _at(days.start, offset_s), offset_s, busy_above_pct) if days else {}
    for day, ids in sorted(first.items()):
        found |= _added_up(store, ids, _at(day, offset_s) if days else since, until, offset_s, busy_above_pct)
        found |= {(i, d): held[(i, d)] for i in ids for d in range(days.start, day) if any(held[(i, d)])}
    if through is not None:
        added = [(i, d) for day, ids in first.items() for i in ids for d in range(day, days.stop)]
        keep(store, [(k, found.get(k, (0.0, 0.0))) for k in added if k not in fresh], offset_s, busy_above_pct, through)
    return {(inst, EPOCH + timedelta(days=day)): figures for (inst, day), figures in found.items()}


def _at(day: int, offset_s: int) -> datetime:
    """The first moment of a local day (days since 1970 at `offset_s`)."""
    return datetime.fromtimestamp(day * DAY_S - offset_s, UTC)


def _added_up(
    store: Store, instance_ids: list[int], since: datetime, until: datetime, offset_s: int, busy_above_pct: float
) -> dict[tuple[int, int], tuple[float, float]]:
    """The days of [since, until) added up by the database, keyed by local day since 1970. A large team is read in
    parts on several connections at once (the database groups a week of raw samples by hour with a sort, and each
    part's sort runs on its own core; SQLite's WAL lets readers run together)."""
    if not instance_ids or until <= since:
        return {}

    def read(part: list[int]) -> list[Any]:
        with store.reading() as conn:
            return list(conn.execute(_daily_query(conn.dialect.name, part, since, until, offset_s, busy_above_pct)))

    parts = _parts(instance_ids)
    if len(parts) == 1:
        results = [read(parts[0])]
    else:
        with ThreadPoolExecutor(len(parts), thread_name_prefix="report-read") as pool:
            results = list(pool.map(read, parts))
    return {(int(i), int(d)): (float(b), float(n)) for rows in results for i, d, b, n in rows}


EPOCH = date(1970, 1, 1)
