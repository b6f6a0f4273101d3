"""Who wastes what: a period's money and GPU-hours per item per local day, and the rankings the weekly
report and `gpu-advise report` show. Pure: the rented things, each GPU's busiest reading per hour, the
period, the zone and the idle threshold come in.

Per instance and local day it was rented (from its start to its release, parts of days as parts): its hours
on, off and unknown (rules/power.py) and the hours billed (rules/metering.py: an hourly meter's running hours,
every hour of a period item). GPU-hours paid are its cards (or its slice) times the billed hours; a GPU-hour
whose busiest reading is above the idle threshold is busy, one at or below it idle (both added up by the
database), one with no reading unknown (never idle). Money: an hourly instance costs its price for each billed
hour, a period instance its period price on the day each period starts; storage its price a month over 30 days
until deleted. Idle cost is the instance's cost in the share of its GPU-hours that were idle. Each row is one
item on one local day; totals are the rows' sums, so an export adds up to the report.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from operator import attrgetter
from typing import Protocol
from zoneinfo import ZoneInfo

from rules import metering
from rules.digest import Rented, Stored, per_day
from rules.metering import Timelines, stretches_of
from rules.power import Stretch, hours_in
from rules.worth import RAW, Worth


@dataclass(frozen=True)
class Row:
    day: date
    item: str
    kind: str  # instance or storage
    owner: str
    project: str
    channel: str
    gpu: str
    cards: float
    currency: str
    cost: float
    gpu_hours: float = 0.0
    busy_gpu_hours: float = 0.0
    idle_gpu_hours: float = 0.0
    unknown_gpu_hours: float = 0.0
    billed_hours: float = 0.0  # hours of the day billed
    on_hours: float = 0.0  # hours on, off (the meter stopped or not) and unknown
    off_hours: float = 0.0
    unknown_hours: float = 0.0
    accrued: float | None = None  # a period item's price spread over the day (its cost falls on a period's start)

    @property
    def idle_cost(self) -> float:
        worth = self.cost if self.accrued is None else self.accrued
        return worth * self.idle_gpu_hours / self.gpu_hours if self.gpu_hours else 0.0


Sums = tuple[int, int, int, int, int, int]  # cost, idle cost, GPU-hours paid, busy, idle, unknown: in UNITs
UNIT = 10_000  # a Row's figures are rounded to 4 places: added up in ten-thousandths, exactly, in any order (by the
# database or here), so a sum on the edge of a cent (29.475) rounds the same wherever it is made


def units(value: float) -> int:
    """A Row's figure in ten-thousandths (its idle cost, a share of its cost, rounded to them)."""
    return round(value * UNIT)


def _of(amount: int) -> float:
    """An amount of ten-thousandths, to the cent (or the hundredth of an hour)."""
    return round(amount / UNIT, 2)


class Summed(Protocol):
    """What the database adds up over the kept days of a report's instances (bot/report/sums.py)."""

    def sums(
        self, by: str | None, first: date, last: date, channel: str | None, rows: int
    ) -> dict[tuple[str, str], Sums] | None:
        """Per owner or project (`by`; None: one group, "") and currency, the kept days' sums over [first, last], of
        one channel's instances or all; None when they cannot be read as the report made them (not `rows` of them:
        its rows are added up instead)."""


class Ledger(Protocol):
    """Days of an instance made once and kept (bot/report/ledger.py): a kept day still true is read, not made again."""

    def row(self, inst: Rented, day: date, activity: tuple[float, float]) -> Row | None:
        """Its kept day, when one is kept and was made from what it would be made from now (`activity`: the day's
        busy and idle GPU-hours as read)."""

    def made(self, inst: Rented, day: date, activity: tuple[float, float], row: Row) -> None:
        """A day made: kept when it has ended."""

    def whole_through(self, inst: Rented) -> date | None:
        """The last day up to which every day of `inst` is kept and true, left to the database's sums: its rows of
        those days are `kept_rows` (the days the report shows), the rest counted in the report's `omitted`; None when
        its days are checked one by one (`row`)."""

    def kept_rows(self, inst: Rented) -> list[Row]:
        """A whole instance's kept rows of the days the report shows."""


class Unsummed(Exception):
    """A report that left kept days to the database's sums (`omitted`) found them not to be read as it made them (a
    power report reached back, another report forgot days): the caller composes it again with every row."""


ROW_ORDER = attrgetter("day", "kind", "item")  # a report's rows: by day, instances before storage, by name


@dataclass(frozen=True)
class Rank:
    who: str  # an owner or a project ("" : none)
    cost: dict[str, float]
    idle_gpu_hours: float
    idle_cost: dict[str, float]
    busy_share: float | None  # busy GPU-hours over those with data; None without data


@dataclass(frozen=True)
class Released:
    """An instance released during the period by a person or an action (not gone from the cloud)."""

    item: str
    by: str
    at: datetime
    currency: str
    per_day: float  # what it no longer costs
    saved: float  # from its release (or the end of the period it was paid for) to the end of the report


@dataclass(frozen=True)
class Totals:
    cost: dict[str, float]  # currency -> amount
    gpu_hours: float
    busy_gpu_hours: float
    idle_gpu_hours: float
    unknown_gpu_hours: float


@dataclass
class Report:
    start: date
    end: date  # both included
    rows: list[Row] = field(default_factory=list)
    released: list[Released] = field(default_factory=list)
    unpriced: list[str] = field(default_factory=list)  # items in the period without a price: counted at nothing

    kept: Summed | None = None  # the database's sums of the instances' rows of days up to kept_through (ledger.py)
    kept_through: date | None = None
    channel: str | None = None  # a channel's part of a team's report (by_channel): its kept sums are the channel's
    # per day, the kept rows left to the database's sums and never read (the board's report: its rows are the week's)
    omitted: dict[date, int] = field(default_factory=dict)
    # the amounts of several currencies on the team's one, for the rankings' order only (rules/worth.py)
    worth: Worth = field(default=RAW, compare=False, repr=False)
    _loose: list[Row] | None = field(default=None, init=False, repr=False, compare=False)

    def days_of(self, start: date, end: date) -> Report:
        """The report of [start, end], a stretch of this one's days: its rows of those days (each day's figures are
        the day's own, whatever the period), the unpriced items among them. Releases are left out: what a release
        saved runs to the end of the report it is in."""
        rows = [r for r in self.rows if start <= r.day <= end]
        named = {r.item for r in rows}
        unpriced = [n for n in self.unpriced if n in named]
        omitted = {d: n for d, n in self.omitted.items() if start <= d <= end}
        return Report(start, end, rows, [], unpriced, self.kept, self.kept_through, self.channel, omitted, self.worth)

    def storage_costs(self, top: int = 5) -> list[tuple[str, str, float]]:
        """The storage that cost most over the period: (item, currency, cost), most first."""
        costs: dict[tuple[str, str], float] = defaultdict(float)
        for r in self.rows:
            if r.kind == "storage":
                costs[(r.item, r.currency)] += r.cost
        ranked = sorted(costs.items(), key=lambda kv: -self.worth.one(kv[1], kv[0][1]))[:top]
        return [(item, currency, round(cost, 2)) for (item, currency), cost in ranked]

    def totals(self) -> Totals:
        """The rows' sums (so an export of the rows adds up to them)."""
        cost: dict[str, int] = defaultdict(int)
        paid = busy = idle = unknown = 0
        for (_who, currency), sums in self._sums(None).items():
            cost[currency] += sums[0]
            paid += sums[2]
            busy += sums[3]
            idle += sums[4]
            unknown += sums[5]
        return Totals({c: _of(a) for c, a in sorted(cost.items())}, _of(paid), _of(busy), _of(idle), _of(unknown))

    def ranked(self, by: str) -> list[Rank]:
        """By owner or project, most idle cost first (the currencies' amounts on the team's, only for the order)."""
        groups: dict[str, _Sums] = {}
        for (who, currency), sums in self._sums(by).items():
            group = groups.get(who)
            if group is None:
                group = groups[who] = _Sums(defaultdict(int), defaultdict(int))
            group.cost[currency] += sums[0]
            group.idle[currency] += sums[1]
            group.busy_hours += sums[3]
            group.idle_hours += sums[4]
            group.known_hours += sums[3] + sums[4]
        out = [
            Rank(
                who,
                {c: _of(a) for c, a in sums.cost.items()},
                _of(sums.idle_hours),
                {c: _of(a) for c, a in sums.idle.items()},
                round(sums.busy_hours / sums.known_hours, 3) if sums.known_hours else None,
            )
            for who, sums in groups.items()
        ]
        return sorted(out, key=lambda r: (-self.worth.of(r.idle_cost), r.who))

    def _sums(self, by: str | None) -> dict[tuple[str, str], Sums]:
        """Per owner or project (or none: "") and currency, the rows' sums: of the instances' days up to
        kept_through as the database adds them up over the kept days (`kept`), of the rest here, in the rows' order."""
        through = self.kept_through or date.min
        found = None
        if self.kept is not None and self.start <= through:
            if self._loose is None:  # the rows the database does not add up (today's, storage)
                self._loose = [r for r in self.rows if r.kind != "instance" or r.day > through]
            covered = len(self.rows) - len(self._loose) + sum(self.omitted.values())
            found = self.kept.sums(by, self.start, min(self.end, through), self.channel, covered)
        if found is None and self.omitted:
            raise Unsummed(f"{sum(self.omitted.values())} kept days of {self.start}..{self.end} could not be summed")
        out: dict[tuple[str, str], list[int]] = {k: list(v) for k, v in (found or {}).items()}
        for r in self.rows if found is None else self._loose or []:
            key = ((r.owner if by == "owner" else r.project) if by else "", r.currency)
            sums = out.get(key)
            if sums is None:
                sums = out[key] = [0] * 6
            sums[0] += units(r.cost)
            sums[1] += units(r.idle_cost)
            sums[2] += units(r.gpu_hours)
            sums[3] += units(r.busy_gpu_hours)
            sums[4] += units(r.idle_gpu_hours)
            sums[5] += units(r.unknown_gpu_hours)
        return {k: (v[0], v[1], v[2], v[3], v[4], v[5]) for k, v in out.items()}


@dataclass
class _Sums:
    """One owner's or project's running sums, as `Report.ranked` adds them up."""

    cost: dict[str, int]  # in UNITs, as the hours
    idle: dict[str, int]
    busy_hours: int = 0
    idle_hours: int = 0
    known_hours: int = 0


def by_channel(report: Report) -> dict[str, Report]:
    """One team's report split per channel (each channel's rows and releases): every channel's report
    from one reading of the samples."""
    if report.omitted:
        raise ValueError("a report with rows left to the database's sums cannot be split per channel")
    out: dict[str, Report] = {}
    for row in report.rows:
        part = out.get(row.channel)
        if part is None:
            part = out[row.channel] = Report(report.start, report.end, worth=report.worth)
            part.kept, part.kept_through, part.channel = report.kept, report.kept_through, row.channel
        part.rows.append(row)
    channel_of = {r.item: r.channel for r in report.rows if r.kind == "instance"}
    for released in report.released:
        channel = channel_of.get(released.item)
        if channel in out:
            out[channel].released.append(released)
    return out


def _cards(inst: Rented) -> float:
    share = getattr(inst, "share", None)
    return float(share) if share else float(getattr(inst, "cards", 1))


def build(
    instances: Iterable[Rented],
    storage: Iterable[Stored],
    daily: Mapping[tuple[int, date], tuple[float, float]],
    *,
    start: date,
    end: date,
    zone: ZoneInfo,
    now: datetime,
    timelines: Timelines | None = None,
    ledger: Ledger | None = None,
) -> Report:
    """The report of [start, end] (local days, both included) up to `now`. `daily`: per instance and local day,
    its busy and idle GPU-hours (as the database adds them up: bot/state/usage.py); `timelines`: when each
    instance was on and off (without one, on since its start); `ledger`: days made before and kept (a timeline need
    not reach into them)."""
    first = datetime.combine(start, datetime.min.time(), zone)
    last = min(datetime.combine(end + timedelta(days=1), datetime.min.time(), zone), now)
    report = Report(start, end)
    for inst in instances:
        stretches = stretches_of(inst, timelines, last)
        made = _instance_rows(inst, stretches, daily, first, last, zone, ledger)
        report.rows += made
        if made and inst.price is None:
            report.unpriced.append(inst.name)
        by = getattr(inst, "released_by", None)
        if inst.released_at is not None and first <= inst.released_at < last and by and by != "cloud":
            saved = metering.saved(inst, stretches, last)
            report.released.append(
                Released(inst.name, by, inst.released_at, inst.currency, per_day(inst), round(saved, 2))
            )
    for disk in storage:
        made = _storage_rows(disk, first, last, zone)
        report.rows += made
        if made and getattr(disk, "price_gb_month", 0) is None:
            report.unpriced.append(disk.name)
    report.rows.sort(key=ROW_ORDER)
    report.unpriced.sort()
    return report


@lru_cache(maxsize=4096)
def _bounds(day: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """A local day's first moment and the next day's, in UTC (every item of a report asks for the same few days).
    In UTC, so that the hours between two of them are the day's real hours: two times of one zone subtract as wall
    clocks, and a day a clock is put back would count 24 hours, not 25."""
    return (
        datetime.combine(day, datetime.min.time(), zone).astimezone(UTC),
        datetime.combine(day + timedelta(days=1), datetime.min.time(), zone).astimezone(UTC),
    )


def keepable(day: date, zone: ZoneInfo, until: datetime) -> bool:
    """Whether a day of `zone` can be kept once made (bot/report/ledger.py): it has ended by `until`, and it begins
    and ends on a whole UTC hour, so a power report's hour is in one day of it."""
    lo, hi = _bounds(day, zone)
    return hi <= until and lo.minute == lo.second == hi.minute == hi.second == 0


def report_days(start: date, end: date, zone: ZoneInfo) -> list[tuple[date, datetime, datetime]]:
    """Each day of [start, end] with its first moment and its end, in UTC."""
    return [
        (start + timedelta(days=n), *_bounds(start + timedelta(days=n), zone)) for n in range((end - start).days + 1)
    ]


def _days(begin: datetime, stop: datetime, zone: ZoneInfo) -> Iterable[tuple[date, datetime, datetime]]:
    """Each local day touched by [begin, stop), with the part of it inside (in UTC)."""
    day = begin.astimezone(zone).date()
    begin, stop = begin.astimezone(UTC), stop.astimezone(UTC)
    while True:
        day_start, day_end = _bounds(day, zone)
        if day_start >= stop:
            return
        lo, hi = max(begin, day_start), min(stop, day_end)
        if hi > lo:
            yield day, lo, hi
        day += timedelta(days=1)


def _instance_rows(
    inst: Rented,
    stretches: Sequence[Stretch],
    daily: Mapping[tuple[int, date], tuple[float, float]],
    first: datetime,
    last: datetime,
    zone: ZoneInfo,
    ledger: Ledger | None = None,
) -> list[Row]:
    begin, stop = max(inst.started_at, first), min(inst.released_at or last, last)
    whole = ledger.whole_through(inst) if ledger is not None else None
    rows = [] if ledger is None or whole is None else ledger.kept_rows(inst)
    days_from = begin if whole is None else max(begin, _bounds(whole + timedelta(days=1), zone)[0])
    cards = _cards(inst)
    slice_of = float(getattr(inst, "share", None) or 1.0)  # the card it sees reports whole hours: its share of them
    hourly, keeps = metering.basis(inst) is metering.Basis.HOURLY, metering.keeps(inst)
    # read once, then a day at a time: a timeline's stretches follow one another, so a day's are a slice of them
    window = sorted((s for s in stretches if s.end > begin and s.start < stop), key=lambda s: s.start)
    starts, ends = [s.start for s in window], [s.end for s in window]
    periods = None if hourly else list(metering.period_starts(inst, begin, stop))  # read once, not once a day
    for day, lo, hi in _days(days_from, stop, zone):
        activity = daily.get((inst.id, day), (0.0, 0.0))
        found = ledger.row(inst, day, activity) if ledger is not None else None
        if found is not None:
            rows.append(found)
            continue
        day_window = window[bisect_right(ends, lo) : bisect_left(starts, hi)]
        hours = hours_in(day_window, lo, hi, keeps)
        billed = hours.billed if hourly else hours.total
        # each hour at the price it had (a price changed mid-day too); the day's billed hours, counted above, reused
        cost = metering.cost(inst, day_window, lo, hi, billed=billed if hourly else None, starts=periods)
        paid = cards * billed
        busy_hours, idle_hours = activity[0] * slice_of, activity[1] * slice_of  # a slice's GPU-hours are its share's
        busy = min(busy_hours, paid)
        idle = min(idle_hours, paid - busy)
        row = instance_row(
            inst,
            day,
            round(cost, 4),
            None if hourly else round(metering.accrued(inst, day_window, lo, hi, billed=billed), 4),
            (
                round(paid, 4),
                round(busy, 4),
                round(idle, 4),
                round(paid - busy - idle, 4),
                round(billed, 4),
                round(hours.on, 4),
                round(hours.off + hours.off_billed, 4),
                round(hours.unknown, 4),
            ),
        )
        rows.append(row)
        if ledger is not None:
            ledger.made(inst, day, activity, row)
    return rows


def instance_row(inst: Rented, day: date, cost: float, accrued: float | None, hours: Sequence[float]) -> Row:
    """An instance's row of a day: its figures (`hours`: GPU-hours paid, busy, idle and unknown, then hours billed,
    on, off and unknown), named and attributed as the instance is now."""
    paid, busy, idle, unknown, billed, on, off, silent = hours
    return Row(
        day,
        inst.name,
        "instance",
        inst.owner,
        inst.project or "",
        getattr(inst, "channel", ""),
        str(getattr(inst, "gpu", "")),
        _cards(inst),
        inst.currency,
        cost,
        paid,
        busy,
        idle,
        unknown,
        billed,
        on,
        off,
        silent,
        accrued,
    )


def _storage_rows(disk: Stored, first: datetime, last: datetime, zone: ZoneInfo) -> list[Row]:
    per_hour = disk.size_gb * disk.price_gb_month / 30 / 24
    return [
        Row(
            day,
            disk.name,
            "storage",
            disk.owner,
            disk.project or "",
            getattr(disk, "channel", ""),
            "",
            0.0,
            disk.currency,
            round(per_hour * ((hi - lo).total_seconds() / 3600), 4),
        )
        for day, lo, hi in _days(max(disk.created_at, first), min(disk.deleted_at or last, last), zone)
    ]
