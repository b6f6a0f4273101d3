"""A report that wants rows only from a day on (the board's: the month's sums, the week's days) leaves the earlier
days of its whole instances (every ended day kept, made from the instance as it is and from the GPU-hours kept for the
day now, no sample waiting for the fold) to the database's sums (bot/report/ledger.py, money_days.whole): its figures
are the full report's; an instance with a day not true is read day by day; sums that cannot be read as it made them
say so (Unsummed) and the board makes its report again with every row; a report with rows left out cannot be written
out item by item. On SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import astuple
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import delete, insert, select, update

from bot.board.figures import _periods, days_shown
from bot.deps import build_deps
from bot.report.chart import day_parts
from bot.report.compose import as_json, compose, csv_rows
from bot.settings import Settings
from bot.state import Store
from bot.state.money_days import day_number, moves
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from bot.state.retention import roll_up
from bot.state.schema import money_days, rental_instances
from rules.power import Power
from rules.report import Report, Unsummed, by_channel
from rules.samples import Sample
from tests.report.test_money_days import BASE, END, NOW, SHANGHAI, START, _figures, _made_again, _report, _world
from tests.support.state_template import with_migrated_state

FROM = date(2026, 11, 28)  # rows from the 28th: the 24th to the 27th of the whole instances are summed only


NIGHT = datetime(2026, 11, 26, 20, tzinfo=UTC)  # 04:00 on the 27th in Shanghai, the 26th in UTC


def _night(store: Store, name: str = "night") -> int:
    """A box started late at night in UTC (the next morning in Shanghai), with no agent: its days' GPU-hours 0 and 0."""
    inst, _ = Rentals(store).track_instance("T1", name, BASE | {"started_at": NIGHT})
    return inst.id


def _kept_world(db_target: str) -> tuple[Store, list[int]]:
    """The boxes of tests/report/test_money_days.py, every ended day made and kept by a full report."""
    store = Store(db_target, now=lambda: NOW)
    ids = _world(store)
    _report(store)
    return store, ids


def _lean(store: Store) -> Report:
    return compose(Rentals(store), "T1", START, END, zone=SHANGHAI, now=NOW, busy_above_pct=5.0, rows_from=FROM)


def _shown(report: Report, first: date = START) -> list[tuple[object, ...]]:
    return sorted(astuple(r) for r in report.rows if r.day >= first)


def _same(lean: Report, full: Report) -> None:
    """The lean report's figures are the full one's, over the period and over stretches of it, and its rows are the
    full one's from FROM on (the chart's days among them)."""
    assert _figures(lean) == _figures(full)
    for first, last in (
        (FROM, END),
        (START, date(2026, 11, 29)),
        (date(2026, 11, 26), FROM),
        (START, date(2026, 11, 26)),
    ):
        stretch = (lean.days_of(first, last), full.days_of(first, last))
        assert _figures(stretch[0]) == _figures(stretch[1]) and stretch[0].unpriced == stretch[1].unpriced
    assert _shown(lean, FROM) == _shown(full, FROM)
    week = (lean.days_of(FROM, END), full.days_of(FROM, END))
    assert day_parts(week[0], "CNY") == day_parts(week[1], "CNY")
    assert lean.unpriced == full.unpriced


def test_the_whole_instances_earlier_days_are_summed_only_and_the_figures_are_the_full_reports(db_target: str) -> None:
    store = Store(db_target, now=lambda: NOW)
    _world(store)
    Rentals(store).track_instance("T1", "unpriced", BASE | {"price": None})  # named among the unpriced: read by rows
    _night(store)
    full = _report(store)  # makes and keeps every ended day
    lean = _lean(store)
    # four boxes rented all week: the 24th to the 27th each; the half card and the night box from the 27th (Shanghai's)
    assert lean.omitted == {date(2026, 11, d): 4 for d in (24, 25, 26)} | {date(2026, 11, 27): 6}
    assert "unpriced" in lean.days_of(START, date(2026, 11, 26)).unpriced
    assert {r.item for r in lean.rows if r.day < FROM} == {"unpriced"}  # an unpriced one's rows are read, all
    _same(lean, full)
    assert _figures(lean) == _figures(_made_again(store))


def test_an_instance_with_a_day_not_true_is_read_a_day_at_a_time(db_target: str) -> None:
    store, ids = _kept_world(db_target)
    Rentals(store).set_price("T1", "box-2", 600.0, "day", "U1", datetime(2026, 11, 26, 0, tzinfo=UTC))
    lean = _lean(store)  # box-2's kept days were made from its old price: its every row is read, and made again
    assert {r.day for r in lean.rows if r.item == "box-2"} == {START + timedelta(days=n) for n in range(7)}
    assert sum(lean.omitted.values()) == 3 * 4 + 1
    _same(lean, _report(store))
    late = [Sample(datetime(2026, 11, 25, 3, tzinfo=UTC) + timedelta(minutes=m), 0, 99.0, 1.0, 8.0) for m in range(60)]
    Rentals(store).add_samples(ids[0], late, [None] * len(late))  # an agent's buffer of the 25th, not folded yet
    waiting = _lean(store)
    assert date(2026, 11, 25) in {r.day for r in waiting.rows if r.item == "box-0"}
    _same(waiting, _report(store))
    roll_up(store)  # folded: the 25th's GPU-hours are added up again, box-0's money of it made again, then kept
    _same(_lean(store), _made_again(store))


def test_gpu_hours_changed_by_a_fold_no_report_saw_make_the_day_again(db_target: str) -> None:
    """Samples folded before any report read them: a day's kept money was made from its old GPU-hours (an hour with no
    reading becomes an idle one of one box, a busy one of another: each day's other figure stays as it was)."""
    store = Store(db_target, now=lambda: NOW)
    _world(store)
    night, other = _night(store), _night(store, "night-2")
    _report(store)
    quiet = [Sample(datetime(2026, 11, 27, 2, tzinfo=UTC) + timedelta(minutes=m), 0, 1.0, 1.0, 8.0) for m in range(60)]
    busy = [Sample(datetime(2026, 11, 28, 2, tzinfo=UTC) + timedelta(minutes=m), 0, 90.0, 1.0, 8.0) for m in range(60)]
    Rentals(store).add_samples(night, quiet, [None] * 60)  # its 27th: an idle hour more
    Rentals(store).add_samples(other, busy, [None] * 60)  # its 28th: a busy hour more
    roll_up(store)  # forgets the 27th's kept GPU-hours; Singapore's report (the same offset) keeps them again
    compose(Rentals(store), "T1", START, END, zone=ZoneInfo("Asia/Singapore"), now=NOW, busy_above_pct=5.0)
    lean = _lean(store)
    assert date(2026, 11, 27) in {r.day for r in lean.rows if r.item == "night"}
    assert date(2026, 11, 27) in {r.day for r in lean.rows if r.item == "night-2"}
    _same(lean, _made_again(store))


def test_a_kept_day_missing_or_one_before_its_start_is_read_a_day_at_a_time(db_target: str) -> None:
    store, ids = _kept_world(db_target)
    with store.writing() as conn:  # another report forgot box-1's 26th
        conn.execute(delete(money_days).where(money_days.c.instance_id == ids[1], money_days.c.day == 20783))
    lean = _lean(store)
    assert day_number(date(2026, 11, 26)) == 20783
    assert {r.day for r in lean.rows if r.item == "box-1"} >= {date(2026, 11, 24), date(2026, 11, 26)}
    _same(lean, _made_again(store))
    # the half card (from the 27th): a day kept before its start with its inputs, its 28th not kept: as many days
    _report(store)
    m = money_days.c
    with store.writing() as conn:
        mine = (m.instance_id == ids[4]) & (m.zone == "Asia/Shanghai")
        row = conn.execute(select(money_days).where(mine, m.day == day_number(date(2026, 11, 27)))).one()
        moved = {"day": day_number(date(2026, 11, 25)), "busy_in": 0.0, "idle_in": 0.0}  # the 25th's GPU-hours: none
        conn.execute(insert(money_days).values(**row._asdict() | moved))
        conn.execute(delete(money_days).where(mine, m.day == day_number(FROM)))
    _same(_lean(store), _made_again(store))


def test_kept_days_from_before_a_start_moved_later_are_read_a_day_at_a_time(db_target: str) -> None:
    """Its days kept from two starts (the 24th from its old one, left by a report of a version before): not whole."""
    store, ids = _kept_world(db_target)
    m = money_days.c
    with store.reading() as conn:
        old = conn.execute(select(money_days).where(m.instance_id == ids[3], m.day == day_number(START))).one()
    later = datetime(2026, 11, 24, 20, tzinfo=UTC)  # its start corrected: the 25th in Shanghai
    with store.writing() as conn:
        conn.execute(update(rental_instances).where(rental_instances.c.id == ids[3]).values(started_at=later))
    _report(store)  # box-3's days made again from its new start, its 24th forgotten
    with store.writing() as conn:
        conn.execute(insert(money_days).values(**old._asdict() | {"inputs": "f" * 32}))  # made from other inputs
    lean = _lean(store)
    assert date(2026, 11, 25) in {r.day for r in lean.rows if r.item == "box-3"}
    _same(lean, _made_again(store))


def test_sums_that_cannot_be_read_as_the_report_made_them_say_so(db_target: str) -> None:
    store, ids = _kept_world(db_target)
    lean = _lean(store)
    PowerLog(store).say(ids[0], Power.OFF, datetime(2026, 11, 25, 6, tzinfo=UTC), NOW, source="person", by="U1")
    with pytest.raises(Unsummed):
        lean.totals()  # the database's days moved since: its rows before FROM were never read, so none adds them up
    for written in (as_json, lambda r: csv_rows(r, "T1"), by_channel):
        with pytest.raises(ValueError, match="database's sums"):
            written(lean)
    _same(_lean(store), _made_again(store))


def test_the_boards_report_is_made_again_with_every_row_when_its_sums_cannot_be_read(tmp_path: Path) -> None:
    """The board reads the marker before its timelines; one that moved since (a power report reached back) leaves the
    database's sums unread, and the board's figures are those of its report made with every row."""
    settings = Settings(state_db=tmp_path / "state.db", db=tmp_path / "prices.db", azure_enabled=False)
    deps = build_deps(with_migrated_state(settings), now=lambda: NOW)
    _world(deps.store)
    rentals = Rentals(deps.store)
    shown = days_shown(NOW, SHANGHAI)
    with deps.store.reading() as conn:
        marker = moves(conn)
    timelines = PowerLog(deps.store).timelines(rentals.instances("T1"), NOW, since=NOW - timedelta(days=40))
    args = (deps, rentals, "T1", None, NOW, SHANGHAI, shown)
    made = _periods(*args, (timelines, marker))  # makes and keeps the days
    assert _periods(*args, (timelines, marker)) == made  # every day kept: the week's rows, the month's sums
    assert _periods(*args, (timelines, marker - 1)) == made  # sums not read: made again with every row, the same
