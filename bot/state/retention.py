"""The samples table, kept bounded and read by the hour. Every raw sample is folded into its hour (one row per
instance, GPU and hour: the maxima, the count, the first and last sample's time) once, within the hour after it
arrives (`roll_up`, run by `compact`, serve's hourly samples:compact job), so a report reads the hourly rows and
only the raw samples not folded yet (bot/state/usage.py): at 2,000 instances a week is 336,000 hourly rows instead
of millions of raw ones. The raw samples stay `raw_days` for the digest's idle rule, then go; hourly rows go after
`hourly_days`.

The fold is set-based SQL by id: `sample_rollup.through_id` says how far it is. A batch of ids is folded with one
INSERT ... SELECT ... GROUP BY (an hour already kept takes the maxima of both and the count of both: ON CONFLICT DO
UPDATE) and the marker moves in the same transaction, so a crash loses nothing and folds nothing twice, and a late
sample (an agent's buffer of a day) is folded into its hour when it comes. Batches hold about BATCH ids, and the
write lock is let go between them, so Slack's acknowledgements and the heartbeats wait for one batch, never for the
whole fold.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, case, delete, func, select

from bot.state.activity_days import forget_before, forget_folded
from bot.state.conflicts import dialect_insert, insert_for
from bot.state.money_days import forget_before as forget_money_before
from bot.state.schema import as_seconds, gpu_samples, gpu_samples_hourly, greater, lesser, sample_rollup
from bot.state.store import Store

BATCH = 50_000  # sample ids a transaction folds, and raw rows a transaction deletes, about


@dataclass(frozen=True)
class Compacted:
    folded: int  # raw samples folded into hourly rows
    hours: int  # hourly rows written or updated
    deleted: int  # raw samples past their retention (all folded before)
    dropped: int  # hourly rows past their retention


def fold_statement(dialect: str, after_id: int, through_id: int) -> Any:
    """INSERT INTO gpu_samples_hourly the hours of the raw samples with after_id < id <= through_id, merged into
    the hours already kept (an hour folded before 0030 has no first and last time and stays a whole hour)."""
    s, h = gpu_samples.c, gpu_samples_hourly.c
    secs = as_seconds(s.at)
    hour = (secs // 3600 * 3600).label("hour")
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
            func.min(secs),
            func.max(secs),
        )
        .where(s.id > after_id, s.id <= through_id)
        .group_by(s.instance_id, s.gpu, hour)
    )
    statement = dialect_insert(dialect)(gpu_samples_hourly).from_select(
        [
            "instance_id",
            "gpu",
            "hour",
            "samples",
            "utilization_max_pct",
            "memory_used_max_mib",
            "memory_total_mib",
            "power_max_w",
            "first_at",
            "last_at",
        ],
        rows,
    )
    new = statement.excluded
    whole = h.first_at.is_(None)  # kept before 0030: its samples' times are gone, the hour counts as whole
    first, last = as_seconds(h.first_at), as_seconds(h.last_at)
    return statement.on_conflict_do_update(
        index_elements=[h.instance_id, h.gpu, h.hour],
        set_={
            "samples": h.samples + new.samples,
            "utilization_max_pct": greater(dialect, h.utilization_max_pct, new.utilization_max_pct),
            "memory_used_max_mib": greater(dialect, h.memory_used_max_mib, new.memory_used_max_mib),
            "memory_total_mib": greater(dialect, h.memory_total_mib, new.memory_total_mib),
            "power_max_w": greater(dialect, h.power_max_w, new.power_max_w),
            "first_at": case((whole, None), else_=lesser(dialect, first, as_seconds(new.first_at))),
            "last_at": case((whole, None), else_=greater(dialect, last, as_seconds(new.last_at))),
        },
    )


def _last_id(store: Store) -> int:
    """The newest sample's id, once every sample with a lower one is committed: SQLite's writer is one at a time;
    on PostgreSQL ids are drawn before their inserts commit, so the table is locked against writers first (SHARE
    waits for the inserts in flight, for milliseconds, and lets readers on)."""
    with store.writing() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("LOCK TABLE gpu_samples IN SHARE MODE")
        return int(conn.execute(select(func.max(gpu_samples.c.id))).scalar() or 0)


def _mark(conn: Connection, through_id: int) -> None:
    statement = insert_for(conn, sample_rollup).values(id=1, through_id=through_id)
    conn.execute(statement.on_conflict_do_update(index_elements=[sample_rollup.c.id], set_={"through_id": through_id}))


def folded_through() -> Any:
    """The fold's marker, read by the statement that needs it (0 before the first fold)."""
    return func.coalesce(select(sample_rollup.c.through_id).scalar_subquery(), 0)


def roll_up(store: Store) -> tuple[int, int]:
    """Fold every raw sample not folded yet into its hour; (samples folded, hourly rows written: an hour two
    batches wrote counts once)."""
    last = _last_id(store)
    folded = 0
    hours: set[tuple[int, int, int]] = set()
    s, h = gpu_samples.c, gpu_samples_hourly.c
    while True:
        with store.writing() as conn:
            done = int(conn.execute(select(folded_through())).scalar() or 0)
            start = conn.execute(select(func.min(s.id)).where(s.id > done)).scalar()
            if start is None or start > last:
                if done < last:
                    _mark(conn, last)
                return folded, len(hours)
            upto = min(start - 1 + BATCH, last)
            # the marker first: a report keeping whole days (bot/state/activity_days.py) waits for this fold, or
            # this fold for it; then the kept days these samples fall in are forgotten, in the same transaction
            _mark(conn, upto)
            forget_folded(conn, done, upto)
            fold = fold_statement(conn.dialect.name, done, upto).returning(h.instance_id, h.gpu, as_seconds(h.hour))
            hours |= {(int(i), int(g), int(at)) for i, g, at in conn.execute(fold)}  # (psycopg: rowcount -1)
            folded += int(conn.execute(select(func.count()).where(s.id > done, s.id <= upto)).scalar() or 0)


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
    """Fold what is not folded yet, then delete the raw samples past `raw_days` (folded, each) and the hourly rows
    past `hourly_days`."""
    folded, hours = roll_up(store)
    cutoff = now - timedelta(days=raw_days)
    deleted = 0
    s = gpu_samples.c
    for instance_ids, _ in _batches(store, cutoff):
        with store.writing() as conn:  # only what is folded
            gone = delete(gpu_samples).where(s.instance_id.in_(instance_ids), s.at < cutoff, s.id <= folded_through())
            deleted += conn.execute(gone).rowcount
    with store.writing() as conn:
        cutoff = now - timedelta(days=hourly_days)
        dropped = conn.execute(delete(gpu_samples_hourly).where(gpu_samples_hourly.c.hour < cutoff)).rowcount
        forget_before(conn, cutoff)  # the kept days those hours were in
        forget_money_before(conn, cutoff)
    return Compacted(folded, hours, deleted, dropped)
