"""Whole local days of each instance's busy and idle GPU-hours, kept once the report has added them up from the hourly
rows (bot/state/usage.py), so that a month's report at 2,000 instances reads 60,000 rows instead of 1.3 million.

A kept day is the figure the hourly rows give, and stays so:
- a day is kept only whole (its last hour before the report's end), and only when no raw sample of it waits to be
  folded (those days are added up from the samples each time, as before);
- the fold (bot/state/retention.py) forgets, in the transaction that folds them, every kept day its samples fall in
  (a late sample, an agent's buffer of a day, changes its day's figure), and moves its marker first;
- a day added up is kept only if the fold's marker has not moved since the day was read (on PostgreSQL the marker's
  row is locked for the write, so a fold waits for it, or it for the fold);
- the hourly rows' retention forgets the kept days it reaches into.
A day without samples is kept as 0 and 0: it says "nothing", as a day the hourly rows have nothing of."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Connection, bindparam, cast, delete, select
from sqlalchemy.exc import SQLAlchemyError

from bot.state.conflicts import insert_for
from bot.state.schema import activity_days, as_seconds, gpu_samples, sample_rollup
from bot.state.store import Store, StoreBusy, StoreUnavailable

log = logging.getLogger(__name__)

DAY_S = 86400
KEEP_BATCH = 5000  # days written a transaction: the write lock is let go between them
Key = tuple[int, int]  # (instance id, local day since 1970)


def epoch(moment: datetime) -> int:
    """Unix seconds, as EpochTime keeps a time."""
    return math.floor(moment.timestamp())


def whole_days(since: datetime, until: datetime, offset_s: int) -> range:
    """The local days wholly inside [since, until), in days since 1970 (empty when none is)."""
    first = -(-(epoch(since) + offset_s) // DAY_S)
    return range(first, max(first, (epoch(until) + offset_s) // DAY_S))


def marker(conn: Connection) -> int | None:
    """The fold's marker (bot/state/retention.py), None before the first fold: no day is kept until then."""
    found = conn.execute(select(sample_rollup.c.through_id).where(sample_rollup.c.id == 1)).scalar()
    return None if found is None else int(found)


def kept(
    conn: Connection, instance_ids: list[int], days: range, offset_s: int, busy_above_pct: float
) -> dict[Key, tuple[float, float]]:
    a = activity_days.c
    out: dict[Key, tuple[float, float]] = {}
    for start in range(0, len(instance_ids), 900):
        query = select(a.instance_id, a.day, a.busy_hours, a.idle_hours).where(
            a.instance_id.in_(instance_ids[start : start + 900]),
            a.offset_s == offset_s,
            a.busy_above_pct == busy_above_pct,
            a.day >= days.start,
            a.day < days.stop,
        )
        out.update({(int(i), int(d)): (float(b), float(n)) for i, d, b, n in conn.execute(query)})
    return out


def unfolded(conn: Connection, instance_ids: list[int], days: range, offset_s: int, through: int) -> set[Key]:
    """Of `days`, those with raw samples the fold has not taken yet: added up from the samples, never kept. Read by
    id, as the report reads them (bot/state/usage.py): the samples not folded are the table's last ids."""
    s, secs = gpu_samples.c, as_seconds(gpu_samples.c.at)
    day = (secs + offset_s) // DAY_S
    first, stop = days.start * DAY_S - offset_s, days.stop * DAY_S - offset_s
    # grouped by day first: grouped by instance first, SQLite's planner walks the (instance_id, at, gpu) index whole
    # for its order (2.9 million entries, 0.13 s) instead of the last ids
    query = (
        select(s.instance_id, day)
        .where(s.id > through, (s.instance_id + 0).in_(instance_ids), secs >= first, secs < stop)
        .group_by(day, s.instance_id)
    )
    return {(int(i), int(d)) for i, d in conn.execute(query)}


def keep(
    store: Store,
    days: Iterable[tuple[Key, tuple[float, float]]],
    offset_s: int,
    busy_above_pct: float,
    through: int,
) -> int:
    """Keep whole days added up while the fold's marker read `through`; none once it has moved. Returns how many.
    In key order, so that two reports keeping days at once take their rows' locks in one order (PostgreSQL), and
    never failing the report that asked: a day not kept is added up again next time."""
    rows = [
        {"instance_id": i, "offset_s": offset_s, "busy_above_pct": busy_above_pct, "day": d, "busy_hours": b,
         "idle_hours": n}
        for (i, d), (b, n) in sorted(days)
    ]  # fmt: skip
    written = 0
    try:
        for start in range(0, len(rows), KEEP_BATCH):
            with store.writing() as conn:
                now = conn.execute(
                    select(sample_rollup.c.through_id).where(sample_rollup.c.id == 1).with_for_update(read=True)
                ).scalar()
                if now is None or int(now) != through:
                    return written  # folded since they were read: added up again next time
                batch = rows[start : start + KEEP_BATCH]
                conn.execute(insert_for(conn, activity_days).on_conflict_do_nothing(), batch)
                written += len(batch)
    except (SQLAlchemyError, StoreBusy, StoreUnavailable) as exc:
        log.warning("kept %d of %d days of GPU-hours, not the rest (%s)", written, len(rows), type(exc).__name__)
    return written


def forget_folded(conn: Connection, after_id: int, through_id: int) -> None:
    """In the fold's transaction: forget the kept days the samples after_id < id <= through_id fall in. Their hours
    are read first (an hour's fold touches one or two an instance; a late buffer a day's more): kept days are only of
    zones a whole number of hours from UTC, so each hour is in one day of each offset kept."""
    s, a = gpu_samples.c, activity_days.c
    hours = conn.execute(
        select(s.instance_id, as_seconds(s.at) // 3600).where(s.id > after_id, s.id <= through_id).distinct()
    ).all()
    offsets = [int(o) for (o,) in conn.execute(select(a.offset_s).distinct())] if hours else []
    days = {(int(i), o, (int(h) * 3600 + o) // DAY_S) for i, h in hours for o in offsets}
    if days:
        gone = delete(activity_days).where(
            a.instance_id == bindparam("b_i"), a.offset_s == bindparam("b_o"), a.day == bindparam("b_d")
        )
        conn.execute(gone, [{"b_i": i, "b_o": o, "b_d": d} for i, o, d in sorted(days)])


def forget_before(conn: Connection, cutoff: datetime) -> int:
    """Forget the kept days that begin before `cutoff`, where the hourly rows' retention has deleted hours."""
    gone = delete(activity_days).where(_first_second(activity_days.c.day, activity_days.c.offset_s) < epoch(cutoff))
    return int(conn.execute(gone).rowcount or 0)


def _first_second(day: Any, offset_s: Any) -> Any:
    """A kept day's first second (Unix time), in SQL: in 64 bits (PostgreSQL's integers would overflow in 2038)."""
    return cast(day, BigInteger) * DAY_S - offset_s
