"""The report's ledger of days made once (rules/report.py's Ledger over bot/state/money_days.py): a report reads the
kept days of its instances, uses each one still true (made from the instance's money fields as they are and the day's
GPU-hours as read now), makes the others and keeps those that have ended. With every day of an instance before today
kept, its power timeline is read from today on only (`since`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.state import money_days
from bot.state.money_days import KeptRow, Where
from bot.state.store import Store
from rules.report import UNIT, Row, instance_row, keepable, report_days

Groups = dict[datetime | None, list[Any]]  # instances by the moment their timelines are read from (None: the report's)


class KeptDays:
    def __init__(
        self,
        store: Store,
        where: Where,
        instances: Sequence[Any],
        first: date,
        last: date,
        *,
        until: datetime,
        silences: Sequence[Any],
        seen: int | None = None,
    ) -> None:
        """The kept days of [first, last] of `instances`, for a report up to `until`. `seen`: the marker as read
        before the timelines this report makes days from (None: read here, before any is read)."""
        self.store, self.where, self.until, self.zone = store, where, until, ZoneInfo(where.zone)
        self.digests = {i.id: money_days.inputs(i, silences) for i in instances}
        ids = sorted(self.digests)
        with store.reading() as conn:
            self.seen = money_days.moves(conn) if seen is None else seen
            self.kept = money_days.kept(conn, ids, where, first, last) if ids else {}
        self.fresh: list[tuple[int, date, KeptRow]] = []
        self.used: set[tuple[int, date]] = set()  # kept days read true
        self.through = _through(first, last, self.zone, until)

    def row(self, inst: Any, day: date, activity: tuple[float, float]) -> Row | None:
        found = self.kept.get((inst.id, day))
        if found is None or not keepable(day, self.zone, self.until) or not self._true(inst, found, activity):
            return None  # not kept, or not ended by this report's end (a report of an earlier moment), or not true
        self.used.add((inst.id, day))
        _inputs, _busy, _idle, _currency, accrued, cost, _idle_cost, *hours = found  # as money_days keeps it
        return instance_row(inst, day, cost / UNIT, accrued, [v / UNIT for v in hours])

    def _true(self, inst: Any, found: KeptRow, activity: tuple[float, float]) -> bool:
        inputs, busy, idle, *_ = found
        return inputs == self.digests.get(inst.id) and (busy, idle) == activity

    def made(self, inst: Any, day: date, activity: tuple[float, float], row: Row) -> None:
        if not keepable(day, self.zone, self.until):
            return
        r = row
        figures = (r.cost, r.idle_cost, r.gpu_hours, r.busy_gpu_hours, r.idle_gpu_hours, r.unknown_gpu_hours,
                   r.billed_hours, r.on_hours, r.off_hours, r.unknown_hours)  # fmt: skip  # FIGURES' order
        kept = (self.digests[inst.id], *activity, r.currency, r.accrued, *[round(v * UNIT) for v in figures])
        self.fresh.append((inst.id, day, kept))

    def since(self, instances: Iterable[Any], days: Sequence[tuple[date, datetime, datetime]], daily: Any) -> Groups:
        """The instances by the moment their power timelines need reading from: the start of their first day of
        `days` (each day, its first moment and its end) not kept true; None (the report's own reading) for one whose
        first day is not, or released during the report (what a release saved reads the week before it)."""
        out: Groups = defaultdict(list)
        for inst in instances:
            out[self._first_unkept(inst, days, daily)].append(inst)
        return out

    def _first_unkept(self, inst: Any, days: Sequence[tuple[date, datetime, datetime]], daily: Any) -> datetime | None:
        if inst.released_at is not None and inst.released_at < self.until:
            return None
        mine = [(day, lo) for day, lo, hi in days if hi > inst.started_at]
        for n, (day, lo) in enumerate(mine):
            found = self.kept.get((inst.id, day))
            activity = daily.get((inst.id, day), (0.0, 0.0))
            if found is None or not keepable(day, self.zone, self.until) or not self._true(inst, found, activity):
                return None if n == 0 else lo
        return self.until if mine else None  # every day kept: no timeline to read

    def keep(self) -> bool:
        """Keep the days made that have ended, and forget the kept days of these instances neither used nor made again
        (none of it once a power report has reached back since `seen`): whether the kept days are now exactly the
        report's days up to `through`, for the database to add up (bot/report/sums.py)."""
        made, self.fresh = self.fresh, []
        stale = {
            k
            for k in set(self.kept) - self.used - {(i, d) for i, d, _ in made}
            if keepable(k[1], self.zone, self.until)
        }
        if not made and not stale:
            return self.through is not None
        return money_days.keep(self.store, self.where, made, stale, self.seen) and self.through is not None


def _through(first: date, last: date, zone: ZoneInfo, until: datetime) -> date | None:
    """The report's last day that may be kept, when every day up to it may (its ended days, in a zone of whole
    hours): the days the database adds up; None when there is none."""
    through = None
    for day, _lo, _hi in report_days(first, last, zone):
        if not keepable(day, zone, until):
            break
        through = day
    return through
