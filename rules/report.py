"""Who wastes what: a period's money and GPU-hours per item per local day, and the rankings the weekly
report and `gpu-advise report` show. Pure: the rented things, each GPU's busiest reading per hour, the
period, the zone and the idle threshold come in.

Per instance and hour it was rented (from its start to its release, parts of hours counted as parts):
GPU-hours paid are its cards (or its slice) times the hours; a GPU whose busiest reading that hour is
above the idle threshold is busy, one at or below it idle, one with no reading unknown (never idle).
Money: an instance costs its price a day spread over the day's hours while rented (the digest's
convention); storage its price a month over 30 days until deleted. Idle cost is the instance's cost in
the share of its GPU-hours that were idle. Each row is one item on one local day; totals are the rows'
sums, so an export adds up to the report.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from rules.digest import Rented, Stored, per_day

HOUR = timedelta(hours=1)


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

    @property
    def idle_cost(self) -> float:
        return self.cost * self.idle_gpu_hours / self.gpu_hours if self.gpu_hours else 0.0


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
    saved: float  # from its release to the end of the period


@dataclass
class Report:
    start: date
    end: date  # both included
    rows: list[Row] = field(default_factory=list)
    released: list[Released] = field(default_factory=list)

    def storage_costs(self, top: int = 5) -> list[tuple[str, str, float]]:
        """The storage that cost most over the period: (item, currency, cost), most first."""
        costs: dict[tuple[str, str], float] = defaultdict(float)
        for r in self.rows:
            if r.kind == "storage":
                costs[(r.item, r.currency)] += r.cost
        ranked = sorted(costs.items(), key=lambda kv: -kv[1])[:top]
        return [(item, currency, round(cost, 2)) for (item, currency), cost in ranked]

    def totals(self) -> dict[str, object]:
        cost: dict[str, float] = defaultdict(float)
        for r in self.rows:
            cost[r.currency] += r.cost
        return {"cost": {c: round(a, 2) for c, a in sorted(cost.items())},
                "gpu_hours": round(sum(r.gpu_hours for r in self.rows), 2),
                "busy_gpu_hours": round(sum(r.busy_gpu_hours for r in self.rows), 2),
                "idle_gpu_hours": round(sum(r.idle_gpu_hours for r in self.rows), 2),
                "unknown_gpu_hours": round(sum(r.unknown_gpu_hours for r in self.rows), 2)}

    def ranked(self, by: str) -> list[Rank]:
        """By owner or project, most idle cost first (the currencies' amounts added only for ordering)."""
        groups: dict[str, list[Row]] = defaultdict(list)
        for r in self.rows:
            groups[r.owner if by == "owner" else r.project].append(r)
        out = []
        for who, rows in groups.items():
            cost: dict[str, float] = defaultdict(float)
            idle: dict[str, float] = defaultdict(float)
            for r in rows:
                cost[r.currency] += r.cost
                idle[r.currency] += r.idle_cost
            busy, known = sum(r.busy_gpu_hours for r in rows), sum(r.busy_gpu_hours + r.idle_gpu_hours for r in rows)
            idle_hours = round(sum(r.idle_gpu_hours for r in rows), 2)
            out.append(Rank(who, {c: round(a, 2) for c, a in cost.items()}, idle_hours,
                            {c: round(a, 2) for c, a in idle.items()}, round(busy / known, 3) if known else None))
        return sorted(out, key=lambda r: (-sum(r.idle_cost.values()), r.who))


def by_channel(report: Report) -> dict[str, Report]:
    """One workspace's report split per channel (each channel's rows and releases): every channel's report
    from one reading of the samples."""
    out: dict[str, Report] = {}
    for row in report.rows:
        out.setdefault(row.channel, Report(report.start, report.end)).rows.append(row)
    channel_of = {r.item: r.channel for r in report.rows if r.kind == "instance"}
    for released in report.released:
        channel = channel_of.get(released.item)
        if channel in out:
            out[channel].released.append(released)
    return out


def _cards(inst: Rented) -> float:
    share = getattr(inst, "share", None)
    return float(share) if share else float(getattr(inst, "cards", 1))


def _hours(start: datetime, end: datetime) -> Iterable[tuple[datetime, float]]:
    """Each UTC hour touched by [start, end), with the part of it inside."""
    hour = start.replace(minute=0, second=0, microsecond=0)
    while hour < end:
        part = (min(end, hour + HOUR) - max(start, hour)).total_seconds() / 3600
        if part > 0:
            yield hour, part
        hour += HOUR


def build(instances: Iterable[Rented], storage: Iterable[Stored], hourly: Mapping[tuple[int, int, datetime], float],
          *, start: date, end: date, zone: ZoneInfo, now: datetime, busy_above_pct: float) -> Report:
    """The report of [start, end] (local days, both included) up to `now`."""
    first = datetime.combine(start, datetime.min.time(), zone)
    last = min(datetime.combine(end + timedelta(days=1), datetime.min.time(), zone), now)
    report = Report(start, end)
    by_gpu: dict[tuple[int, datetime], list[float]] = defaultdict(list)
    for (instance_id, _gpu, hour), top in hourly.items():
        by_gpu[(instance_id, hour)].append(top)
    for inst in instances:
        report.rows += _instance_rows(inst, by_gpu, first, last, zone, busy_above_pct)
        by = getattr(inst, "released_by", None)
        if inst.released_at is not None and first <= inst.released_at < last and by and by != "cloud":
            saved = per_day(inst) * (last - inst.released_at).total_seconds() / 86400
            report.released.append(Released(inst.name, by, inst.released_at, inst.currency, per_day(inst),
                                            round(saved, 2)))
    for disk in storage:
        report.rows += _storage_rows(disk, first, last, zone)
    report.rows.sort(key=lambda r: (r.day, r.kind, r.item))
    return report


def _instance_rows(inst: Rented, by_gpu: Mapping[tuple[int, datetime], list[float]], first: datetime,
                   last: datetime, zone: ZoneInfo, busy_above_pct: float) -> list[Row]:
    begin, stop = max(inst.started_at, first).astimezone(UTC), min(inst.released_at or last, last).astimezone(UTC)
    if begin >= stop:
        return []
    cards, per_hour = _cards(inst), per_day(inst) / 24
    days: dict[date, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])  # cost, paid, busy, idle
    for hour, part in _hours(begin, stop):
        tops = by_gpu.get((inst.id, hour), [])
        busy = min(sum(1 for t in tops if t > busy_above_pct), cards)
        idle = min(sum(1 for t in tops if t <= busy_above_pct), cards - busy)
        day = days[hour.astimezone(zone).date()]
        day[0] += per_hour * part
        day[1] += cards * part
        day[2] += busy * part
        day[3] += idle * part
    return [Row(d, inst.name, "instance", inst.owner, inst.project or "", getattr(inst, "channel", ""),
                str(getattr(inst, "gpu", "")), cards, inst.currency, round(v[0], 4), round(v[1], 4), round(v[2], 4),
                round(v[3], 4), round(v[1] - v[2] - v[3], 4)) for d, v in sorted(days.items())]


def _storage_rows(disk: Stored, first: datetime, last: datetime, zone: ZoneInfo) -> list[Row]:
    begin, stop = max(disk.created_at, first).astimezone(UTC), min(disk.deleted_at or last, last).astimezone(UTC)
    per_hour = disk.size_gb * disk.price_gb_month / 30 / 24
    days: dict[date, float] = defaultdict(float)
    for hour, part in _hours(begin, stop):
        days[hour.astimezone(zone).date()] += per_hour * part
    return [Row(d, disk.name, "storage", disk.owner, disk.project or "", getattr(disk, "channel", ""), "", 0.0,
                disk.currency, round(cost, 4)) for d, cost in sorted(days.items())]
