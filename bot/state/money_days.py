"""Each instance's figures of a whole local day (its money, GPU-hours, hours on and off: rules/report.py's Row), kept
once the day has ended, so that a month's report at 2,000 instances reads 56,000 rows instead of making them again
from a month of power timelines; and the report's sums, added up by the database over them (`sums`).

A kept day is the figure the report would make now, and stays so:
- it is kept only whole (ended before the report's moment), only in a zone whose days are whole hours from UTC (a
  power report's hour is then in one day of each zone), and keyed by the zone, the UTC offset its GPU-hours were
  counted in and the busy threshold;
- it holds a digest of what it was made from on the instance (price, unit, billing, stop billing, cards, share,
  currency, start, release, earlier prices, the silences that end a stretch) and the day's busy and idle GPU-hours
  (bot/state/usage.py): a report uses it only while both are the same, so a price changed, a late sample folded or
  an hour forgotten by retention makes the day again, and keeps the new figure;
- a power report that reaches back into a day that may have ended (before this hour began: every whole hour is some
  zone's midnight) moves the marker, then forgets the instance's kept days from the day before its time on, in the
  transaction that keeps it (bot/state/power.py);
- a day made is kept only if the marker has not moved since the report read the timelines it was made from (on
  PostgreSQL the marker's row is locked for the write, so a power report waits for it, or it for the report).
A refused write is logged and never fails the report: the day is made again next time."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, bindparam, case, delete, func, select, update
from sqlalchemy.exc import SQLAlchemyError

from bot.state.activity_days import marker as fold_marker
from bot.state.activity_days import unfolded
from bot.state.conflicts import insert_for
from bot.state.schema import activity_days, money_days, money_epoch, rental_instances
from bot.state.store import Store, StoreBusy, StoreUnavailable
from rules.report import Sums

log = logging.getLogger(__name__)

EPOCH = date(1970, 1, 1)
KEEP_BATCH = 5000  # days written a transaction: the write lock is let go between them
PART = 900  # instances a statement reads (SQLite's bound parameters)
# a Row's figures, as kept (rules/report.py)
FIGURES = (
    "cost",
    "idle_cost",
    "gpu_hours",
    "busy_gpu_hours",
    "idle_gpu_hours",
    "unknown_gpu_hours",
    "billed_hours",
    "on_hours",
    "off_hours",
    "unknown_hours",
)
_SIGNED = ("price", "unit", "currency", "billing", "stop_billing", "cards", "share", "started_at", "released_at")


@dataclass(frozen=True)
class Where:
    """The days a report counts: its zone, the offset its GPU-hours were counted in and the busy threshold."""

    zone: str
    offset_s: int
    busy_above_pct: float


def day_number(day: date) -> int:
    return (day - EPOCH).days


def inputs(inst: Any, silences: Sequence[Any]) -> str:
    """A digest of what a day of `inst` is made from on the instance itself, and the metering's silences."""
    signed = [repr(getattr(inst, name, None)) for name in _SIGNED]
    signed += [repr((p.until, p.price, p.unit, p.currency, p.billing)) for p in getattr(inst, "earlier_prices", ())]
    signed += [repr(s) for s in silences]
    return hashlib.blake2b("\x1f".join(signed).encode(), digest_size=16).hexdigest()


def moves(conn: Connection) -> int:
    """The marker power reports move (0 before the first)."""
    return int(conn.execute(select(money_epoch.c.moves).where(money_epoch.c.id == 1)).scalar() or 0)


KeptRow = tuple[Any, ...]  # inputs, busy_in, idle_in, currency, accrued, then FIGURES in ten-thousandths
KEY = ("instance_id", "zone", "offset_s", "busy_above_pct", "day")
_KEPT = ("inputs", "busy_in", "idle_in", "currency", "accrued", *FIGURES)  # a KeptRow's columns


def _days_of(instance_ids: Sequence[int], where: Where, first: date, last: date) -> list[Any]:
    """The kept days of these instances in [first, last], counted as `where` says."""
    m = money_days.c
    return [
        m.instance_id.in_(instance_ids),
        m.zone == where.zone,
        m.offset_s == where.offset_s,
        m.busy_above_pct == where.busy_above_pct,
        m.day >= day_number(first),
        m.day <= day_number(last),
    ]


def kept(
    conn: Connection, instance_ids: list[int], where: Where, first: date, last: date
) -> dict[tuple[int, date], KeptRow]:
    """The kept days of [first, last] of these instances, as read (a month's are 56,000 rows at 2,000 instances: turned
    into a Row only when used)."""
    m = money_days.c
    out: dict[tuple[int, date], KeptRow] = {}
    dates = {day_number(first) + n: first + timedelta(days=n) for n in range((last - first).days + 1)}
    for start in range(0, len(instance_ids), PART):
        query = select(
            m.instance_id, m.day, m.inputs, m.busy_in, m.idle_in, m.currency, m.accrued, *(m[f] for f in FIGURES)
        ).where(*_days_of(instance_ids[start : start + PART], where, first, last))
        out.update({(row[0], dates[row[1]]): tuple(row[2:]) for row in conn.execute(query).all()})  # fetched at once
    return out


Whole = tuple[str, int, int, int, int]  # inputs; days kept (one a row); of them, made from the GPU-hours kept for their
# day now; the first and the last (days since 1970)


def whole(conn: Connection, instance_ids: list[int], where: Where, first: date, last: date) -> dict[int, list[Whole]]:
    """Per instance, its kept days of [first, last] grouped by the inputs they were made from: how many, and how many
    were made from the busy and idle GPU-hours kept for their day now (bot/state/activity_days.py, the same threshold
    and offset); the first and the last. The database compares each day with its GPU-hours, so a report whose instances
    have every day kept and true reads a row an instance, not a row a day (bot/report/ledger.py)."""
    m, a = money_days.c, activity_days.c
    same = case((and_(a.busy_hours == m.busy_in, a.idle_hours == m.idle_in), 1), else_=0)
    joined = money_days.outerjoin(
        activity_days,
        and_(
            a.instance_id == m.instance_id,
            a.offset_s == m.offset_s,
            a.busy_above_pct == m.busy_above_pct,
            a.day == m.day,
        ),
    )
    out: dict[int, list[Whole]] = {}
    for start in range(0, len(instance_ids), PART):
        query = (
            select(m.instance_id, m.inputs, func.count(), func.sum(same), func.min(m.day), func.max(m.day))
            .select_from(joined)
            .where(*_days_of(instance_ids[start : start + PART], where, first, last))
            .group_by(m.instance_id, m.inputs)
        )
        for i, made_from, days, true, lo, hi in conn.execute(query).all():
            out.setdefault(int(i), []).append((str(made_from), int(days), int(true or 0), int(lo), int(hi)))
    return out


def checked(
    conn: Connection, instance_ids: list[int], where: Where, first: date, last: date
) -> tuple[dict[int, list[Whole]], set[tuple[int, int]]] | None:
    """`whole` of these instances' days of [first, last], and those of their days with samples waiting for the fold
    (their GPU-hours are added up from the samples, not kept: bot/state/activity_days.py); None before the first fold,
    when no day's GPU-hours are kept to compare with."""
    fold = fold_marker(conn)  # the fold's: GPU-hours are kept only once it ran
    if fold is None:
        return None
    days = range(day_number(first), day_number(last) + 1)
    return whole(conn, instance_ids, where, first, last), unfolded(conn, instance_ids, days, where.offset_s, fold)


def keep(
    store: Store, where: Where, days: Iterable[tuple[int, date, KeptRow]], stale: Iterable[tuple[int, date]], seen: int
) -> bool:
    """Keep days made while the marker read `seen`, and forget the `stale` ones (kept days of these instances the
    report neither used nor made again: a start moved later); nothing once the marker has moved. Whether all of it was
    done. In key order, so two reports keeping days at once take their rows' locks in one order (PostgreSQL); a day
    kept already with other inputs is replaced."""
    rows = [(i, where.zone, where.offset_s, where.busy_above_pct, day_number(d), *k) for i, d, k in sorted(days)]
    gone = [{"b_i": i, "b_d": day_number(d)} for i, d in sorted(stale)]
    written = 0
    try:
        for start in range(0, max(len(rows), 1), KEEP_BATCH):
            with store.writing() as conn:
                now = conn.execute(
                    select(money_epoch.c.moves).where(money_epoch.c.id == 1).with_for_update(read=True)
                ).scalar()
                if int(now or 0) != seen:
                    return False  # a power report reached back since the timelines were read: made again next time
                if start == 0 and gone:
                    _forget(conn, where, gone)
                batch = rows[start : start + KEEP_BATCH]
                if batch:
                    _upsert(conn, batch)
                written += len(batch)
    except (SQLAlchemyError, StoreBusy, StoreUnavailable) as exc:
        log.warning("kept %d of %d days of money, not the rest (%s)", written, len(rows), type(exc).__name__)
        return False
    return True


def _forget(conn: Connection, where: Where, gone: list[dict[str, Any]]) -> None:
    m = money_days.c
    conn.execute(
        delete(money_days).where(
            m.instance_id == bindparam("b_i"),
            m.zone == where.zone,
            m.offset_s == where.offset_s,
            m.busy_above_pct == where.busy_above_pct,
            m.day == bindparam("b_d"),
        ),
        gone,
    )


def _upsert(conn: Connection, rows: list[tuple[Any, ...]]) -> None:
    """The rows (KEY then a KeptRow) inserted or, kept already, replaced: the statement SQLAlchemy compiles for the
    dialect, run by the driver with the rows as they are (SQLAlchemy's own executemany turns 56,000 rows into
    parameter dictionaries and processes each: 0.5 s of a month's 0.7 s on SQLite)."""
    statement = insert_for(conn, money_days)
    upsert = statement.on_conflict_do_update(index_elements=list(KEY), set_={c: statement.excluded[c] for c in _KEPT})
    compiled = upsert.compile(dialect=conn.dialect)
    names = (*KEY, *_KEPT)
    if compiled.positional:
        order = [names.index(name) for name in compiled.positiontup or ()]
        conn.exec_driver_sql(str(compiled), [tuple(row[n] for n in order) for row in rows])
    else:
        conn.exec_driver_sql(str(compiled), [dict(zip(names, row, strict=True)) for row in rows])


def _hour_began(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def forget_from(conn: Connection, changed: Iterable[tuple[int, datetime]], now: datetime) -> None:
    """In a power report's transaction: each (instance, time from which its timeline changed) that reaches before
    this hour began (a day that may have ended in some zone) moves the marker, then forgets the instance's kept days
    from the day before that time's UTC day (the earliest local day it is in, west of UTC) on."""
    began = _hour_began(now)
    earliest: dict[int, datetime] = {}
    for instance_id, at in changed:
        if at < began and (instance_id not in earliest or at < earliest[instance_id]):
            earliest[instance_id] = at
    if not earliest:
        return
    conn.execute(update(money_epoch).where(money_epoch.c.id == 1).values(moves=money_epoch.c.moves + 1))
    m = money_days.c
    gone = delete(money_days).where(m.instance_id == bindparam("b_i"), m.day >= bindparam("b_d"))
    conn.execute(
        gone,
        [{"b_i": i, "b_d": day_number(at.astimezone(UTC).date()) - 1} for i, at in sorted(earliest.items())],
    )


def forget_before(conn: Connection, cutoff: datetime) -> int:
    """Forget the kept days wholly before `cutoff` in every zone (the hourly rows' retention has deleted their hours;
    a kept day older than its GPU-hours would not be used again)."""
    gone = delete(money_days).where(money_days.c.day < day_number(cutoff.astimezone(UTC).date()) - 1)
    return int(conn.execute(gone).rowcount or 0)


Asked = tuple[date, date, bool]  # the first and last day; per channel or not
Group = tuple[str, str, str, str]  # channel ("" when not per channel), owner, project ("" for none), currency


def sums(
    store: Store, where: Where, instance_ids: Sequence[int], asked: Asked, seen: int
) -> dict[Group, tuple[Sums, int]] | None:
    """The kept days of these instances added up by the database (bot/report/sums.py), per channel (or all), owner,
    project and currency, in ten-thousandths, with how many days each group holds: one statement a few hundred
    instances at a time gives the totals and both rankings. None once the marker has moved from `seen` (read after
    the sums: if it has not moved, nothing they read was forgotten or made again since the report read its
    timelines). Per channel, every channel at once: a weekly report is posted to each of 500 channels."""
    first, last, per_channel = asked
    m, i = money_days.c, rental_instances.c
    summed = (m.cost, m.idle_cost, m.gpu_hours, m.busy_gpu_hours, m.idle_gpu_hours, m.unknown_gpu_hours)
    figures: list[Any] = [*(func.sum(c) for c in summed), func.count()]  # each group's sums, and how many days
    named = [func.coalesce(i.owner, ""), func.coalesce(i.project, ""), m.currency]
    grouped = [i.channel, *named] if per_channel else named
    ids = sorted(instance_ids)
    out: dict[Group, list[int]] = {}
    with store.reading() as conn:
        for start in range(0, len(ids), PART):
            query = (
                select(*grouped, *figures)
                .select_from(money_days.join(rental_instances, i.id == m.instance_id))
                .where(*_days_of(ids[start : start + PART], where, first, last))
                .group_by(*grouped)
            )
            for row in conn.execute(query).all():
                keys = [str(v) for v in row[: len(grouped)]]
                group = (keys[0], keys[1], keys[2], keys[3]) if per_channel else ("", keys[0], keys[1], keys[2])
                values = [int(v or 0) for v in row[len(grouped) :]]
                kept = out.get(group)
                out[group] = values if kept is None else [a + b for a, b in zip(kept, values, strict=True)]
        if moves(conn) != seen:
            return None
    return {k: ((v[0], v[1], v[2], v[3], v[4], v[5]), v[6]) for k, v in out.items()}
