"""A report of a period for a team (optionally one channel or project): the rented things and each
GPU's busiest reading per hour, read once, then rules/report.py."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from bot.report.ledger import KeptDays
from bot.report.sums import KeptSums
from bot.state.money_days import Where
from bot.state.power import PowerLog, silence
from bot.state.rentals import Rentals
from bot.state.usage import Daily, daily_activity
from rules.metering import FORECAST_DAYS, Timelines
from rules.policy import Metering
from rules.report import ROW_ORDER, Rank, Report, build, report_days
from rules.worth import RAW, Worth


def compose(
    rentals: Rentals,
    team: str,
    start: date,
    end: date,
    *,
    zone: ZoneInfo,
    now: datetime,
    busy_above_pct: float,
    channel: str | None = None,
    project: str | None = None,
    metering: Metering | None = None,
    timelines: Timelines | None = None,
    seen: int | None = None,
    rows_from: date | None = None,
    worth: Worth = RAW,
) -> Report:
    return next(
        compose_parts(
            rentals,
            team,
            start,
            end,
            zone=zone,
            now=now,
            busy_above_pct=busy_above_pct,
            channel=channel,
            project=project,
            part=None,
            metering=metering,
            timelines=timelines,
            seen=seen,
            rows_from=rows_from,
            worth=worth,
        )
    )


PART = 500  # instances a part of a streamed report reads at once


def timelines_since(start: date, zone: ZoneInfo) -> datetime:
    """From when a report of days from `start` reads the power timelines: the day's first moment in `zone`, less the
    week a release's saving reads back."""
    return datetime.combine(start, datetime.min.time(), zone).astimezone(UTC) - timedelta(days=FORECAST_DAYS)


def compose_parts(
    rentals: Rentals,
    team: str,
    start: date,
    end: date,
    *,
    zone: ZoneInfo,
    now: datetime,
    busy_above_pct: float,
    channel: str | None = None,
    project: str | None = None,
    part: int | None = PART,
    metering: Metering | None = None,
    timelines: Timelines | None = None,
    seen: int | None = None,
    rows_from: date | None = None,
    worth: Worth = RAW,
) -> Iterator[Report]:
    """The report in parts of `part` instances (storage in the last), each read and built on its own, so a
    month's CSV of thousands of instances is written without holding every row at once; `part=None`: one.
    `timelines`: the instances' power timelines read already from at least FORECAST_DAYS before `start` (the board
    reads them once for its report and its idle list), else read here a part at a time, each instance's from its
    first day not kept (bot/report/ledger.py). `seen`: the ledger's marker as read before `timelines` were (without
    it, days made from timelines given are not kept). `rows_from` (the board's, in one part): rows only from that day
    on for the instances whose every ended day is kept and true; their earlier days are left to the database's sums
    (`Report.omitted`), so the report cannot be written out item by item, and raises Unsummed where those sums
    cannot be read (compose it again without `rows_from`). `worth`: the team's currencies on one scale, for the
    rankings' order (rules/worth.py)."""
    if rows_from is not None and part is not None:
        raise ValueError("rows_from is for a report composed in one part")
    first, last = period(start, end, zone)
    instances = [i for i in rentals.instances(team, channel=channel) if wanted(i, project, first, last)]
    storage = [s for s in rentals.storage(team, channel=channel) if _kept(s, project, first, last)]
    since, until, days = timelines_since(start, zone), min(last, now), report_days(start, end, zone)
    log = PowerLog(rentals.store, metering)
    size = part or max(len(instances), 1)
    batches = [instances[k : k + size] for k in range(0, len(instances), size)] or [[]]
    for n, batch in enumerate(batches):
        ledger = _ledger(
            rentals, batch, start, end, zone, until, busy_above_pct, log, seen, timelines is None, rows_from
        )
        rest = [i.id for i in batch if i.id not in ledger.whole]
        daily = activity(rentals, rest, start, end, zone=zone, now=now, busy_above_pct=busy_above_pct)
        if ledger.whole:  # whole instances: only the GPU-hours of the days after their kept ones
            daily |= activity(rentals, sorted(ledger.whole), start, end, zone=zone, now=now,
                              busy_above_pct=busy_above_pct, after=ledger.after_whole())  # fmt: skip
        kept = storage if n == len(batches) - 1 else []
        whole = build([], kept, daily, start=start, end=end, zone=zone, now=now)
        whole.worth = worth
        for k in range(0, len(batch), PART):  # power timelines a few hundred instances at a time: memory stays flat
            chunk = batch[k : k + PART]
            read = timelines
            if read is None:
                read = {}
                for begin, group in ledger.since(chunk, days, daily).items():
                    read |= log.timelines(group, until, since=since if begin is None else begin)
            made = build(chunk, [], daily, start=start, end=end, zone=zone, now=now, timelines=read, ledger=ledger)
            whole.rows += made.rows
            whole.released += made.released
            whole.unpriced += made.unpriced
        if ledger.keep() and ledger.through is not None:  # the kept days are the report's: the database adds them up
            whole.kept = KeptSums(rentals.store, ledger.where, [i.id for i in batch], ledger.seen)
            whole.kept_through = ledger.through
        whole.omitted = dict(sorted(ledger.omitted.items()))
        whole.rows.sort(key=ROW_ORDER)
        whole.unpriced.sort()
        yield whole


def _ledger(
    rentals: Rentals,
    batch: list[Any],
    start: date,
    end: date,
    zone: ZoneInfo,
    until: datetime,
    busy_above_pct: float,
    log: PowerLog,
    seen: int | None,
    reading: bool,
    rows_from: date | None = None,
) -> KeptDays:
    """The kept days of a batch's instances, read before their timelines are (`reading`: read here; else read by
    the caller after it read the marker `seen`, or days made are only used, never kept)."""
    where = Where(zone.key, offset_of(zone, start), busy_above_pct)
    silences = sorted(silence(log.rules).items())
    if not reading and seen is None:
        seen = -1  # never the marker: nothing made from timelines read before it is kept
    return KeptDays(
        rentals.store, where, batch, start, end, until=until, silences=silences, seen=seen, rows_from=rows_from
    )


def offset_of(zone: ZoneInfo, start: date) -> int:
    """The zone's UTC offset on a report's first day, in seconds: its GPU-hours are counted in days of it."""
    return int((zone.utcoffset(datetime.combine(start, datetime.min.time())) or timedelta(0)).total_seconds())


def period(start: date, end: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The UTC moments a report of the local days [start, end] (both included) runs between."""
    first = datetime.combine(start, datetime.min.time(), zone).astimezone(UTC)
    return first, datetime.combine(end + timedelta(days=1), datetime.min.time(), zone).astimezone(UTC)


def activity(
    rentals: Rentals,
    instance_ids: list[int],
    start: date,
    end: date,
    *,
    zone: ZoneInfo,
    now: datetime,
    busy_above_pct: float,
    after: datetime | None = None,
) -> Daily:
    """Per instance and local day of the report of [start, end] up to `now`, its busy and idle GPU-hours: the days
    counted from the zone's offset on the first day (bot/state/usage.py, whose whole days are kept by that offset).
    `after`: only from then on (the days before it are not needed)."""
    first, last = period(start, end, zone)
    until = min(last, now)
    since = first if after is None else max(first, after)
    if not instance_ids or since >= until:
        return {}
    return daily_activity(
        rentals.store, instance_ids, since, until, offset_s=offset_of(zone, start), busy_above_pct=busy_above_pct
    )


def wanted(inst: Any, project: str | None, first: datetime, last: datetime) -> bool:
    """An instance a report of [first, last) counts: rented then, not hidden, of the project when one is asked."""
    return (
        (project is None or (inst.project or "") == project)
        and not inst.hidden_by
        and inst.started_at < last
        and (inst.released_at is None or inst.released_at > first)
    )


def _kept(disk: Any, project: str | None, first: datetime, last: datetime) -> bool:
    return (
        (project is None or (disk.project or "") == project)
        and not disk.hidden_by
        and disk.created_at < last
        and (disk.deleted_at is None or disk.deleted_at > first)
    )


def rank_json(rank: Rank, by: str) -> dict[str, Any]:
    return {
        by: rank.who or None,
        "cost": rank.cost,
        "idle_gpu_hours": rank.idle_gpu_hours,
        "idle_cost": rank.idle_cost,
        "busy_share": rank.busy_share,
    }


def as_json(report: Report) -> dict[str, Any]:
    """`report --json`: the period, totals, rankings by owner and project (most idle cost first), items."""
    _every_row(report)
    items: dict[tuple[str, str], dict[str, Any]] = {}
    for r in report.rows:
        item = items.setdefault(
            (r.kind, r.item),
            {
                "item": r.item,
                "kind": r.kind,
                "owner": r.owner or None,
                "project": r.project or None,
                "channel": r.channel,
                "gpu": r.gpu,
                "currency": r.currency,
                "cost": 0.0,
                "gpu_hours": 0.0,
                "busy_gpu_hours": 0.0,
                "idle_gpu_hours": 0.0,
                "unknown_gpu_hours": 0.0,
                **dict.fromkeys(HOURS, 0.0),
            },
        )
        for key in ("cost", "gpu_hours", "busy_gpu_hours", "idle_gpu_hours", "unknown_gpu_hours", *HOURS):
            item[key] = round(item[key] + getattr(r, key), 4)
    summary = summary_json(report)
    return {
        "period": summary["period"],
        "totals": summary["totals"],
        "by_owner": summary["by_owner"],
        "by_project": summary["by_project"],
        "items": sorted(items.values(), key=lambda i: -report.worth.one(i["cost"], i["currency"])),
        "released": [
            {
                "item": r.item,
                "by": r.by,
                "at": r.at.isoformat(),
                "currency": r.currency,
                "per_day": round(r.per_day, 2),
                "saved": r.saved,
            }
            for r in report.released
        ],
        "storage": [
            {"item": item, "currency": currency, "cost": cost} for item, currency, cost in report.storage_costs()
        ],
        "unpriced": summary["unpriced"],
    }


def _every_row(report: Report) -> None:
    if report.omitted:
        raise ValueError("a report with rows left to the database's sums (rows_from) cannot list its items")


def summary_json(report: Report) -> dict[str, Any]:
    """What `report --json` says of the period as a whole: its dates, totals, rankings by owner and project (most
    idle cost first) and the unpriced items; the board's figures, without the per-item rows it does not show."""
    return {
        "period": {"from": report.start.isoformat(), "to": report.end.isoformat()},
        "totals": asdict(report.totals()),
        "by_owner": [rank_json(r, "owner") for r in report.ranked("owner")],
        "by_project": [rank_json(r, "project") for r in report.ranked("project")],
        "unpriced": report.unpriced,  # counted at nothing in the totals: named, never left out silently
    }


HOURS = ("billed_hours", "on_hours", "off_hours", "unknown_hours")  # of the item's own clock, not its GPUs'
CSV_COLUMNS = (
    "date",
    "workspace",
    "channel",
    "project",
    "owner",
    "item",
    "kind",
    "gpu",
    "cards",
    "currency",
    "cost",
    "gpu_hours",
    "busy_gpu_hours",
    "idle_gpu_hours",
    "unknown_gpu_hours",
    *HOURS,
)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet may run as a formula (OWASP, CSV injection)


def cell(value: Any) -> Any:
    """A text value as a CSV cell no spreadsheet runs: one that starts like a formula gets a leading ' (OWASP's
    advice); numbers and empty values stay as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_rows(report: Report, team: str) -> list[list[Any]]:
    """One row per item per day; every text cell neutralised (an item's name, a tag, a GPU name may hold anything)."""
    _every_row(report)
    return [
        [
            r.day.isoformat(),
            cell(team),
            cell(r.channel),
            cell(r.project),
            cell(r.owner),
            cell(r.item),
            cell(r.kind),
            cell(r.gpu),
            r.cards,
            cell(r.currency),
            r.cost,
            r.gpu_hours,
            r.busy_gpu_hours,
            r.idle_gpu_hours,
            r.unknown_gpu_hours,
            r.billed_hours,
            r.on_hours,
            r.off_hours,
            r.unknown_hours,
        ]
        for r in report.rows
    ]
