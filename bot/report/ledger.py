"""The report's ledger of days made once (rules/report.py's Ledger over bot/state/money_days.py): a report reads the
kept days of its instances, uses each one still true (made from the instance's money fields as they are and the day's
GPU-hours as read now), makes the others and keeps those that have ended. With every day of an instance before today
kept, its power timeline is read from today on only (`since`).

A report that asks for rows only from a day on (`rows_from`: the board, which shows the month's sums and the week's
days) has the database check its instances' kept days (`money_days.whole`): an instance whose every ended day is kept,
made from its money fields as they are and from the GPU-hours kept for the day now, with none of its samples waiting
for the fold, is whole. Its days before `rows_from` are left to the database's sums (counted in `omitted`, never
turned into rows), its GPU-hours are read from the day after them only, and nothing of it is compared day by day
here. Any other instance is read and checked a day at a time, as before."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.state import money_days
from bot.state.money_days import KeptRow, Where, day_number
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
        rows_from: date | None = None,
    ) -> None:
        """The kept days of [first, last] of `instances`, for a report up to `until`. `seen`: the marker as read
        before the timelines this report makes days from (None: read here, before any is read). `rows_from`: the
        first day the report wants rows of (None: every day); the whole instances' days before it are summed only."""
        self.store, self.where, self.until, self.zone = store, where, until, ZoneInfo(where.zone)
        self.digests = {i.id: money_days.inputs(i, silences) for i in instances}
        self.through = _through(first, last, self.zone, until)
        self.whole: set[int] = set()  # instances whose every day up to `through` is kept and true
        self.omitted: dict[date, int] = defaultdict(int)  # per day, the whole instances' kept days left unread
        ids = sorted(self.digests)
        with store.reading() as conn:
            self.seen = money_days.moves(conn) if seen is None else seen
            if rows_from is not None and self.through is not None and ids:
                found = money_days.checked(conn, ids, where, first, self.through)
                if found is not None:  # else nothing folded yet: no day's GPU-hours are kept to compare with
                    self._find_whole(instances, first, self.through, rows_from, *found)
            rest = [i for i in ids if i not in self.whole]
            self.kept = money_days.kept(conn, rest, where, first, last) if rest else {}
            shown = sorted(self.whole)
            if shown and self.through is not None and rows_from is not None and rows_from <= self.through:
                self.kept |= money_days.kept(conn, shown, where, max(first, rows_from), self.through)
        self.fresh: list[tuple[int, date, KeptRow]] = []
        self.used: set[tuple[int, date]] = set()  # kept days read true
        self.rows_from = rows_from

    def _find_whole(
        self,
        instances: Sequence[Any],
        first: date,
        through: date,
        rows_from: date,
        kept: dict[int, list[money_days.Whole]],
        waiting: set[tuple[int, int]],
    ) -> None:
        """The instances whose every day of [first, through] they were rented is kept, made from their money fields as
        they are and from the GPU-hours kept for the day now (`kept`: money_days.whole), with no sample of those days
        `waiting` for the fold. Not an unpriced instance: it is named from its rows."""
        for inst in instances:
            if inst.price is None:
                continue
            begin = max(first, inst.started_at.astimezone(self.zone).date())
            lo, hi = day_number(begin), day_number(through)
            groups = kept.get(inst.id, [])
            if hi < lo or len(groups) != 1:
                continue
            made_from, count, true, low, high = groups[0]  # one row a day: as many as [lo, hi]'s days, none outside
            if made_from != self.digests[inst.id] or not count == true == hi - lo + 1 or (low, high) != (lo, hi):
                continue
            if any((inst.id, d) in waiting for d in range(lo, hi + 1)):
                continue
            self.whole.add(inst.id)
            for n in range(lo, min(hi, day_number(rows_from) - 1) + 1):
                self.omitted[money_days.EPOCH + timedelta(days=n)] += 1

    def whole_through(self, inst: Any) -> date | None:
        """The last day of `inst` the database adds up without its rows being checked here: `through` for a whole
        instance, else None."""
        return self.through if inst.id in self.whole else None

    def kept_rows(self, inst: Any) -> list[Row]:
        """A whole instance's rows of its kept days from `rows_from` to `through` (the days a report shows)."""
        if self.rows_from is None or self.through is None:
            return []
        out = []
        day = self.rows_from
        while day <= self.through:
            found = self.kept.get((inst.id, day))
            if found is not None:
                self.used.add((inst.id, day))
                out.append(self._as_row(inst, day, found))
            day += timedelta(days=1)
        return out

    def after_whole(self) -> datetime | None:
        """The first moment after the whole instances' kept days (their timelines and GPU-hours are read from it)."""
        if self.through is None:
            return None
        after = self.through + timedelta(days=1)
        return report_days(after, after, self.zone)[0][1]  # its first moment, in UTC

    def row(self, inst: Any, day: date, activity: tuple[float, float]) -> Row | None:
        found = self.kept.get((inst.id, day))
        if found is None or not keepable(day, self.zone, self.until) or not self._true(inst, found, activity):
            return None  # not kept, or not ended by this report's end (a report of an earlier moment), or not true
        self.used.add((inst.id, day))
        return self._as_row(inst, day, found)

    @staticmethod
    def _as_row(inst: Any, day: date, found: KeptRow) -> Row:
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
        after = self.after_whole() if inst.id in self.whole else None
        if after is not None:
            return min(after, self.until)
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
