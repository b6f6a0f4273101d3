"""The report at scale: N instances over M channels with a week of samples as serve keeps them (the last
`--raw-hours` as one-minute samples, the rest of the week hourly rows only; every sample but the last hour's
folded into its hour, as serve's hourly job leaves them), and power in play: half the instances hourly slices
their agents power on and off every day.

Prints the time to compose every channel's weekly report (goal: at most 1 s at 2,000 instances, issue 50), the
time to compose the whole workspace's month and write its CSV (goal: under 5 s), and the peak memory of each run,
at N and at 2N instances in separate processes (goal: flat as the instances double). Each twice: the first makes
every ended day and keeps it (bot/state/money_days.py), the second reads what was kept, as a report does once
serve's hourly reports:keep-days job has kept the days (the weekly report's week is the board's).

    python bench/report.py [--instances 2000] [--channels 500] [--raw-hours 24]
"""

from __future__ import annotations

import argparse
import csv
import json
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NOW = datetime(2026, 12, 7, 2, tzinfo=UTC)  # a Monday, 10:00 in Shanghai
ZONE = ZoneInfo("Asia/Shanghai")
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "day", "price": 400.0, "currency": "CNY"}


def fill(
    target: Path, instances: int, channels: int, raw_hours: int, now: datetime = NOW, sample_days: int = 7
) -> None:
    """`sample_days` of data up to `now`: instances, raw samples for the last `raw_hours`, hourly maxima before
    that; power reports for the 30 days before `now`."""
    from sqlalchemy import insert, update

    from bot.state import Store
    from bot.state.rentals import Rentals
    from bot.state.retention import roll_up
    from bot.state.schema import gpu_samples_hourly, power_reports, rental_instances

    store = Store(target)
    rentals = Rentals(store)
    start = now - timedelta(days=30)
    ids = []
    for n in range(instances):
        made, _ = rentals.track_instance(
            "T1",
            f"box-{n:05d}",
            FIELDS
            | {
                "channel": f"C{n % channels:04d}",
                "owner": f"U{n % 97:03d}",
                "project": f"p{n % 13}",
                "started_at": start,
            },
        )
        ids.append(made.id)
    folded_from, raw_from = now - timedelta(days=sample_days), now - timedelta(hours=raw_hours)
    hours = int((raw_from - folded_from).total_seconds() // 3600)
    for batch_start in range(0, len(ids), 200):
        with store.writing() as conn:
            conn.execute(
                insert(gpu_samples_hourly),
                [
                    {
                        "instance_id": i,
                        "gpu": 0,
                        "hour": folded_from + timedelta(hours=h),
                        "samples": 60,
                        "utilization_max_pct": 90.0 if (i + h) % 3 else 1.0,
                        "memory_used_max_mib": 1000.0,
                        "memory_total_mib": 81920.0,
                        "first_at": folded_from + timedelta(hours=h),
                        "last_at": folded_from + timedelta(hours=h, minutes=59),
                    }
                    for i in ids[batch_start : batch_start + 200]
                    for h in range(hours)
                ],
            )
    # power in play: every other box an hourly slice whose agent powers it on 09:00-13:00 each day of the month
    # (an on report its heartbeats extend, then an off), the rest on all along from the tracking
    reports = [
        {
            "instance_id": i,
            "state": state,
            "at": start + timedelta(days=d, hours=hour),
            "last_at": start + timedelta(days=d, hours=hour + (4 if state == "on" else 0)),
            "source": "agent",
        }
        for i in ids[::2]
        for d in range(30)
        for state, hour in (("on", 1), ("off", 5))
    ]
    for batch_start in range(0, len(reports), 5000):
        with store.writing() as conn:
            conn.execute(insert(power_reports), reports[batch_start : batch_start + 5000])
    with store.writing() as conn:
        conn.execute(
            update(rental_instances)
            .where(rental_instances.c.id.in_(ids[::2]))
            .values(billing="hourly", unit="hour", price=14.0)
        )
    minutes = raw_hours * 60
    for last_hour in (False, True):  # what serve's hourly fold has taken, then the hour that came since
        if last_hour:
            roll_up(store)
        _raw(store, ids, raw_from, range(minutes - 60, minutes) if last_hour else range(minutes - 60))


def _raw(store: Any, ids: list[int], raw_from: datetime, minutes: range) -> None:
    """One-minute samples of every instance."""
    from sqlalchemy import insert

    from bot.state.schema import gpu_samples

    for batch_start in range(0, len(ids), 20):
        with store.writing() as conn:
            conn.execute(
                insert(gpu_samples),
                [
                    {
                        "instance_id": i,
                        "gpu": 0,
                        "at": raw_from + timedelta(minutes=m),
                        "utilization_pct": 90.0 if (i + m // 60) % 3 else 1.0,
                        "memory_used_mib": 1000.0,
                        "memory_total_mib": 81920.0,
                    }
                    for i in ids[batch_start : batch_start + 20]
                    for m in minutes
                ],
            )


def run(target: Path, channels: int) -> dict[str, float]:
    from bot.report.compose import CSV_COLUMNS, compose, compose_parts, csv_rows
    from bot.state import Store
    from bot.state.rentals import Rentals
    from rules.report import by_channel

    rentals = Rentals(Store(target))
    today = NOW.astimezone(ZONE).date()
    out: dict[str, float] = {}
    for turn in ("", "_again"):  # each day made (and kept), then read from what was kept (bot/state/money_days.py)
        started = time.perf_counter()  # as the weekly job does it: the workspace's week read once, split per channel
        first, last = today - timedelta(days=7), today - timedelta(days=1)
        week = by_channel(compose(rentals, "T1", first, last, zone=ZONE, now=NOW, busy_above_pct=5))
        assert len(week) == channels
        out["weekly_s" + turn] = time.perf_counter() - started
        [report.totals() for report in week.values()]  # what each channel's post says, added up as it is posted
        out["weekly_sums_s" + turn] = time.perf_counter() - started
        out["weekly_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        del week
        started = time.perf_counter()  # as `report --month 2026-11 --csv FILE` does it: part by part
        rows = 0
        with (target.parent / "month.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(CSV_COLUMNS)
            for part in compose_parts(
                rentals, "T1", date(2026, 11, 1), date(2026, 11, 30), zone=ZONE, now=NOW, busy_above_pct=5
            ):
                written = csv_rows(part, "T1")
                writer.writerows(written)
                rows += len(written)
        out["month_csv_s" + turn] = time.perf_counter() - started
    out["rows"] = rows
    out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def child(instances: int, channels: int, raw_hours: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "state.db"
        fill(target, instances, channels, raw_hours)
        out = subprocess.run(
            [sys.executable, __file__, "--measure", str(target), "--channels", str(channels)],
            capture_output=True,
            text=True,
            check=True,
        )
        return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=2000)
    parser.add_argument("--channels", type=int, default=500)
    parser.add_argument("--raw-hours", type=int, default=24)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(run(args.measure, args.channels)))
        return
    results = {n: child(n, args.channels, args.raw_hours) for n in (args.instances, 2 * args.instances)}
    print(f"a week of samples ({args.raw_hours} h raw, the rest hourly) per instance, {args.channels} channels")
    for n, r in results.items():
        print(
            f"  {n:>6} instances: every channel's weekly report {r['weekly_s']:.2f} s with its days made, "
            f"{r['weekly_s_again']:.2f} s with them kept (goal: at most 1 s at {args.instances}, issue 50; with each "
            f"channel's totals {r['weekly_sums_s']:.2f} / {r['weekly_sums_s_again']:.2f} s); "
            f"the month's CSV ({r['rows']:.0f} rows) {r['month_csv_s']:.2f} / {r['month_csv_s_again']:.2f} s "
            f"(goal < 5 s); peak memory {r['max_rss_mb']:.0f} MB"
        )
    small, big = results[args.instances], results[2 * args.instances]
    print(
        f"memory as the instances double: {big['max_rss_mb'] / small['max_rss_mb']:.2f}x (flat: about 1x); "
        f"the weekly reports alone {big['weekly_rss_mb'] / small['weekly_rss_mb']:.2f}x"
    )


if __name__ == "__main__":
    main()
