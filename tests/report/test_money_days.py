"""A report keeps each instance's ended days once made (bot/state/money_days.py, bot/report/ledger.py) and reads the
same figures from them as it makes from the timelines: once kept; after a power report that reaches back (and not
after one of this hour); after a price change; after a late sample, before and after its fold; a power report
between reading and keeping keeps nothing; a zone off the whole hour keeps nothing. The database adds the kept days
up (bot/report/sums.py) to the figures the rows add up to, for the report, a stretch of it and each channel's part;
not after a power report has reached back since; not with days an instance no longer has, nor once another report
forgot some; a report of an earlier moment makes the days not ended then. On SQLite and PostgreSQL."""

from __future__ import annotations

import random
from dataclasses import astuple, replace
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, select, update

from bot.report.compose import compose, offset_of
from bot.report.ledger import KeptDays
from bot.state import Store
from bot.state.money_days import Where, day_number, moves
from bot.state.power import PowerLog, Sighting, silence
from bot.state.rentals import Rentals
from bot.state.retention import compact, roll_up
from bot.state.schema import money_days, rental_instances
from rules.power import Power
from rules.report import Report, by_channel, report_days, units
from rules.samples import Sample

NOW = datetime(2026, 11, 30, 12, 40, tzinfo=UTC)  # 20:40 in Shanghai
SHANGHAI = ZoneInfo("Asia/Shanghai")
START, END = date(2026, 11, 24), date(2026, 11, 30)  # six whole days, then today's part
BASE = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 30.0, "currency": "CNY",
        "channel": "C1", "owner": "U1", "project": "p", "started_at": NOW - timedelta(days=9)}  # fmt: skip
KINDS = [  # hourly; hourly billed while stopped; by the day; by the month; half a card by the hour
    {},
    {"stop_billing": "keeps", "owner": "U2"},
    {"unit": "day", "price": 500.0, "project": "q", "channel": "C2"},
    {"unit": "month", "price": 9000.0, "cards": 2},
    {"share": 0.5, "price": 12.0, "started_at": NOW - timedelta(days=3, hours=5)},
]


def _world(store: Store) -> list[int]:
    rentals, rng, ids = Rentals(store), random.Random(33), []
    for n, kind in enumerate(KINDS):
        inst, _ = rentals.track_instance("T1", f"box-{n}", BASE | kind)
        ids.append(inst.id)
        at, samples = inst.started_at, []
        while at < NOW - timedelta(minutes=30):
            samples.append(Sample(at, 0, rng.choice([0.0, 3.0, 90.0]), 1000.0, 81920.0))
            at += timedelta(minutes=rng.choice([10, 30, 240]))
        rentals.add_samples(inst.id, samples, [None] * len(samples))
        # off for a stretch two days ago, by its agent (a machine's word, seen a few times)
        log, off = PowerLog(store), NOW - timedelta(days=2, hours=3 + n)
        log.sight([Sighting(inst.id, Power.OFF, off + timedelta(minutes=m), "agent") for m in (0, 1, 2)])
        log.sight([Sighting(inst.id, Power.ON, off + timedelta(hours=5), "agent")])
    roll_up(store)
    return ids


def _report(store: Store, zone: ZoneInfo = SHANGHAI) -> Report:
    return compose(Rentals(store), "T1", START, END, zone=zone, now=NOW, busy_above_pct=5.0)


def _made_again(store: Store, zone: ZoneInfo = SHANGHAI) -> Report:
    """The report with nothing kept: every day made from the timelines."""
    with store.writing() as conn:
        conn.execute(delete(money_days))
    return _report(store, zone)


def _kept(store: Store) -> int:
    with store.reading() as conn:
        return int(conn.execute(select(func.count()).select_from(money_days)).scalar() or 0)


def _rows(report: Report) -> list[tuple[object, ...]]:
    return sorted(astuple(r) for r in report.rows)


def test_kept_days_give_the_figures_the_timelines_give(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    _world(store)
    first = _report(store)
    assert _kept(store) == 4 * 6 + 3  # the whole days; the half card started three days ago: its last three
    again = _report(store)
    assert _rows(again) == _rows(first)
    assert again.ranked("owner") == first.ranked("owner") and again.totals() == first.totals()
    assert _rows(_made_again(store)) == _rows(first)
    assert {r.kind for r in first.rows} == {"instance"} and any(r.off_hours for r in first.rows)
    assert any(r.idle_gpu_hours for r in first.rows) and any(r.accrued for r in first.rows)


def test_with_every_ended_day_kept_the_timelines_are_read_from_today(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    _report(store)
    rentals = Rentals(store)
    instances = [i for i in rentals.instances("T1")]
    where = Where("Asia/Shanghai", offset_of(SHANGHAI, START), 5.0)
    silences = sorted(silence(PowerLog(store).rules).items())
    ledger = KeptDays(store, where, instances, START, END, until=NOW, silences=silences)
    days = report_days(START, END, SHANGHAI)
    from bot.report.compose import activity

    daily = activity(rentals, ids, START, END, zone=SHANGHAI, now=NOW, busy_above_pct=5.0)
    today = datetime(2026, 11, 29, 16, tzinfo=UTC)  # the 30th's first moment in Shanghai
    assert {k: len(v) for k, v in ledger.since(instances, days, daily).items()} == {today: len(KINDS)}


def test_a_power_report_reaching_back_forgets_its_days_and_the_report_follows(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    before = _report(store)
    kept, marker = _kept(store), _moves(store)
    at = datetime(2026, 11, 27, 6, tzinfo=UTC)  # 14:00 on the 27th in Shanghai: a person says it was off
    assert PowerLog(store).say(ids[0], Power.OFF, at, NOW, source="person", by="U1")
    assert _moves(store) == marker + 1
    assert _kept(store) == kept - 4  # box-0's days from the 26th (the day before the 27th in UTC) to the 29th
    after = _report(store)
    assert _rows(after) != _rows(before)
    assert _rows(after) == _rows(_made_again(store))
    kept = _kept(store)
    PowerLog(store).stopped(ids[2], NOW - timedelta(hours=3), NOW)  # the bot's stop, confirmed at 09:40 UTC
    assert (_kept(store), _moves(store)) == (kept - 1, marker + 2)  # box-2's 29th
    assert _rows(_report(store)) == _rows(_made_again(store))


def test_a_heartbeat_of_this_hour_forgets_nothing_one_going_on_from_the_last_hour_does(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    log = PowerLog(store)
    log.sight([Sighting(ids[0], Power.ON, NOW - timedelta(minutes=m), "agent") for m in (50, 48)])  # 11:50, 11:52
    _report(store)
    kept, marker = _kept(store), _moves(store)
    log.sight([Sighting(ids[0], Power.ON, NOW - timedelta(minutes=m), "agent") for m in (3, 2, 1)])  # 12:37-12:39
    assert (_kept(store), _moves(store)) == (kept, marker)
    assert _rows(_report(store)) == _rows(_made_again(store))
    # box-1's agent said on at 11:50 and 11:52, and again at 12:01: its report goes on from 11:52, before this hour
    # began (a day of UTC+12 ended at 12:00): its days from the day before 11:52's in UTC are forgotten (the 29th; the
    # 30th, today in Shanghai, is never kept)
    log.sight([Sighting(ids[1], Power.ON, NOW - timedelta(minutes=m), "agent") for m in (50, 48)])
    _report(store)
    kept, marker = _kept(store), _moves(store)
    log.sight([Sighting(ids[1], Power.ON, NOW.replace(minute=1), "agent")])
    assert (_kept(store), _moves(store)) == (kept - 1, marker + 1)
    assert _rows(_report(store)) == _rows(_made_again(store))


def test_a_price_change_and_a_late_sample_make_their_days_again(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    before = _report(store)
    Rentals(store).set_price("T1", "box-2", 600.0, "day", "U1", datetime(2026, 11, 26, 0, tzinfo=UTC))
    priced = _report(store)
    assert _rows(priced) != _rows(before)
    assert _rows(priced) == _rows(_made_again(store))
    late = [Sample(datetime(2026, 11, 27, 3, tzinfo=UTC) + timedelta(minutes=m), 0, 99.0, 1.0, 8.0) for m in range(60)]
    Rentals(store).add_samples(ids[0], late, [None] * len(late))  # an agent's buffer of a kept day, not folded yet
    with_late = _report(store)
    assert _rows(with_late) != _rows(priced)
    roll_up(store)
    assert _rows(_report(store)) == _rows(with_late)
    assert _rows(_report(store)) == _rows(_made_again(store))


def test_a_power_report_between_reading_and_keeping_keeps_nothing(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    rentals = Rentals(store)
    instances = rentals.instances("T1")
    where = Where("Asia/Shanghai", offset_of(SHANGHAI, START), 5.0)
    ledger = KeptDays(store, where, instances, START, END, until=NOW, silences=())
    ledger.made(instances[0], START, (0.0, 0.0), _report(store).rows[0])
    PowerLog(store).say(ids[1], Power.OFF, NOW - timedelta(days=1), NOW, source="person", by="U1")
    with store.writing() as conn:
        conn.execute(delete(money_days))
    assert ledger.keep() == 0
    assert _kept(store) == 0


def test_a_zone_off_the_whole_hour_keeps_nothing_and_reads_right(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    _world(store)
    kolkata = ZoneInfo("Asia/Kolkata")
    first = _report(store, kolkata)
    assert _kept(store) == 0
    assert _rows(first) == _rows(_report(store, kolkata))


def test_the_hourly_rows_retention_forgets_the_oldest_days(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    _world(store)
    _report(store)
    compact(store, NOW, raw_days=30, hourly_days=4)  # hours before the 26th 12:40 UTC go
    with store.reading() as conn:
        first = conn.execute(select(func.min(money_days.c.day))).scalar()
    assert first == (date(2026, 11, 25) - date(1970, 1, 1)).days  # from the day before the cutoff's in UTC
    assert _rows(_report(store)) == _rows(_made_again(store))


def _moves(store: Store) -> int:
    with store.reading() as conn:
        return moves(conn)


def _added_up_here(report: Report) -> Report:
    """The same report with every row added up here, none by the database."""
    return replace(report, kept=None, kept_through=None)


def _figures(report: Report) -> tuple[object, ...]:
    return report.totals(), report.ranked("owner"), report.ranked("project")


def test_the_database_adds_up_the_kept_days_and_the_figures_are_the_rows(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    _world(store)
    for _ in range(2):  # made and kept, then read from what is kept
        report = _report(store)
        assert report.kept is not None and report.kept_through == date(2026, 11, 29)
        assert _figures(report) == _figures(_added_up_here(report))
        for stretch in (report.days_of(date(2026, 11, 27), END), report.days_of(START, date(2026, 11, 26))):
            assert _figures(stretch) == _figures(_added_up_here(stretch)) != _figures(report)
        parts = by_channel(report)
        assert sorted(parts) == ["C1", "C2"]
        for part in parts.values():
            assert _figures(part) == _figures(_added_up_here(part)) != _figures(report)
    through = date(2026, 11, 29)
    days = sum(1 for r in report.rows if r.kind == "instance" and r.day <= through)
    assert report.kept.sums("owner", START, through, None, days) == _python_sums(report, "owner", through)  # type: ignore[union-attr]


def _python_sums(report: Report, by: str, through: date) -> dict[tuple[str, str], tuple[int, ...]]:
    """The instances' rows up to `through` added up here, in ten-thousandths."""
    out: dict[tuple[str, str], list[int]] = {}
    for r in report.rows:
        if r.kind == "instance" and r.day <= through:
            sums = out.setdefault((r.owner if by == "owner" else r.project, r.currency), [0] * 6)
            for n, v in enumerate((r.cost, r.idle_cost, r.gpu_hours, r.busy_gpu_hours, r.idle_gpu_hours,
                                   r.unknown_gpu_hours)):  # fmt: skip
                sums[n] += units(v)
    return {k: tuple(v) for k, v in out.items()}


def test_a_power_report_after_the_report_leaves_its_rows_to_be_added_up_here(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    report = _report(store)
    PowerLog(store).say(ids[0], Power.OFF, datetime(2026, 11, 27, 6, tzinfo=UTC), NOW, source="person", by="U1")
    assert report.kept is not None
    days = sum(1 for r in report.rows if r.kind == "instance" and r.day <= date(2026, 11, 29))
    assert report.kept.sums(None, START, date(2026, 11, 29), None, days) is None  # forgotten since: not what it made
    assert _figures(report) == _figures(_added_up_here(report))


def test_kept_days_an_instance_no_longer_has_are_forgotten_before_they_are_added_up(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    _report(store)
    later = datetime(2026, 11, 27, 8, tzinfo=UTC)  # its start corrected (a cloud's launch time): two days less
    with store.writing() as conn:
        conn.execute(update(rental_instances).where(rental_instances.c.id == ids[0]).values(started_at=later))
    report = _report(store)
    assert min(r.day for r in report.rows if r.item == "box-0") == date(2026, 11, 27)
    assert _figures(report) == _figures(_added_up_here(report))
    assert _figures(report) == _figures(_made_again(store))


def test_a_report_of_an_earlier_moment_makes_the_days_that_had_not_ended_then(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    _world(store)
    Rentals(store).track_instance("T1", "no-agent", BASE)  # no samples: its days' GPU-hours are 0 and 0
    _report(store)  # keeps every day to the 29th
    earlier = datetime(2026, 11, 29, 4, tzinfo=UTC)  # 12:00 on the 29th in Shanghai: the 29th half over
    asked = compose(Rentals(store), "T1", START, END, zone=SHANGHAI, now=earlier, busy_above_pct=5.0)
    mine = [r for r in asked.rows if r.item == "no-agent" and r.day == date(2026, 11, 29)]
    assert [r.billed_hours for r in mine] == [12.0]  # not the whole day kept since
    with store.writing() as conn:
        conn.execute(delete(money_days))
    again = compose(Rentals(store), "T1", START, END, zone=SHANGHAI, now=earlier, busy_above_pct=5.0)
    assert _rows(asked) == _rows(again) and _figures(asked) == _figures(again)


def test_kept_days_another_report_forgot_since_are_not_added_up(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    report = _report(store)
    with store.writing() as conn:  # as a report of the instance after its start moved later forgets its first days
        first = delete(money_days).where(money_days.c.instance_id == ids[0], money_days.c.day == day_number(START))
        conn.execute(first)
    assert report.kept is not None
    days = sum(1 for r in report.rows if r.kind == "instance" and r.day <= date(2026, 11, 29))
    assert report.kept.sums(None, START, date(2026, 11, 29), None, days) is None
    assert _figures(report) == _figures(_added_up_here(report))
