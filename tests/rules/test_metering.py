"""Money as the bill has it, a pure function of how an item is billed, its power reports and a fixed clock:
hourly meters that follow on and off, day and month periods billed when they start, unknown stretches billed,
keep-charging stops, releases mid-period, month boundaries in a zone with DST, forecasts and runways."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from rules import metering
from rules.budget import standings
from rules.digest import spending
from rules.power import Power, PowerReport, Stretch, timeline
from rules.report import build
from rules.runway import crossed, runway

SHANGHAI = ZoneInfo("Asia/Shanghai")
SILENCE = {"agent": timedelta(minutes=15), "scan": timedelta(hours=3)}
DEC1 = datetime(2026, 12, 1, tzinfo=SHANGHAI)


@dataclass(frozen=True)
class Box:
    id: int = 1
    name: str = "slice"
    price: float = 14.0
    unit: str = "hour"
    started_at: datetime = DEC1
    released_at: datetime | None = None
    billing: str | None = None
    stop_billing: str | None = None
    provider: str | None = "autodl"
    owner: str = "U1"
    project: str | None = "llm"
    currency: str = "CNY"
    gpu: str = "A100-80GB"
    cards: int = 1
    share: float | None = 0.5
    channel: str = "C1"


def four_hours_a_day(days: int, start: datetime = DEC1) -> list[PowerReport]:
    """An agent that powers on at 09:00 and off at 13:00 each day, posting every minute while on."""
    out = [PowerReport(Power.OFF, start, start, "person")]
    for day in range(days):
        on = start + timedelta(days=day, hours=9)
        out += [
            PowerReport(Power.ON, on, on + timedelta(hours=4), "agent"),
            PowerReport(Power.OFF, on + timedelta(hours=4), on + timedelta(hours=4), "agent"),
        ]
    return out


def test_a_half_slice_used_four_hours_a_day_costs_56_a_day_so_far_and_in_the_forecast() -> None:
    now = DEC1 + timedelta(days=10)
    box = Box()
    stretches = timeline(four_hours_a_day(10), box.started_at, now, SILENCE)
    timelines = {1: stretches}
    assert metering.cost(box, stretches, DEC1, DEC1 + timedelta(days=1)) == 56.0  # not 336 (24 h x 14)
    [spend] = spending([box], [], now, timelines=timelines)
    assert spend.amount == 560.0  # 56 x 10 days
    [standing] = standings([box], [], {("llm", "CNY"): 5000.0}, now, timelines=timelines)
    # the forecast runs at its share of the last week (4 of 24 hours): 56 a day to the month's end (31 days)
    assert standing.forecast == pytest.approx(56 * 31, abs=0.01)
    report = build([box], [], {}, start=DEC1.date(), end=(DEC1 + timedelta(days=6)).date(), zone=SHANGHAI, now=now,
                   timelines=timelines)  # fmt: skip
    rows = report.rows
    assert len(rows) == 7 and {r.cost for r in rows} == {56.0}
    assert {(r.billed_hours, r.on_hours, r.off_hours, r.unknown_hours) for r in rows} == {(4.0, 4.0, 20.0, 0.0)}
    assert {r.gpu_hours for r in rows} == {2.0}  # half a card for the 4 billed hours: idle counts only billed time


def test_a_day_card_costs_its_price_each_day_on_or_off_and_a_month_card_at_each_months_start() -> None:
    now = DEC1 + timedelta(days=3, hours=5)
    card = Box(price=400.0, unit="day", share=None)
    off_all_along = [Stretch(Power.OFF, card.started_at, now, "person")]
    assert metering.cost(card, off_all_along, DEC1, now) == 1600.0  # four days started, whatever it did
    assert metering.billed_hours(card, off_all_along, DEC1, now) == pytest.approx(77.0)
    month = Box(price=11500.0, unit="month", started_at=datetime(2026, 11, 15, 10, tzinfo=SHANGHAI))
    assert metering.cost(month, [], DEC1, now) == 0.0  # its period began Nov 15: paid in November
    assert metering.cost(month, [], datetime(2026, 11, 1, tzinfo=SHANGHAI), DEC1) == 11500.0
    end = datetime(2027, 1, 1, tzinfo=SHANGHAI)
    assert metering.ahead(month, [], now, end) == 11500.0  # renewed Dec 15
    assert metering.period_end(month, now) == datetime(2026, 12, 15, 10, tzinfo=SHANGHAI)
    jan31 = Box(price=100.0, unit="month", started_at=datetime(2027, 1, 31, tzinfo=UTC))
    starts = list(metering.period_starts(jan31, jan31.started_at, datetime(2027, 5, 1, tzinfo=UTC)))
    assert [s.day for s in starts] == [31, 28, 31, 30]  # a month from the 31st: clamped, never drifting


def test_a_period_item_released_mid_period_pays_the_period_and_saves_from_its_end() -> None:
    card = Box(price=400.0, unit="day", share=None, released_at=DEC1 + timedelta(days=2, hours=6))
    later = DEC1 + timedelta(days=6)
    assert metering.cost(card, [], DEC1, later) == 1200.0  # three days started, the third released within
    assert metering.saved(card, [], later) == 1200.0  # the days of Dec 4, 5 and 6 were not started
    assert metering.ahead(card, [], later, later + timedelta(days=3)) == 0.0


def test_unknown_stretches_are_billed_and_said_unknown() -> None:
    box = Box()
    on = DEC1 + timedelta(hours=1)
    silent = [PowerReport(Power.ON, on, on + timedelta(hours=2), "agent")]  # then nothing, no "off"
    now = DEC1 + timedelta(hours=10)
    stretches = timeline(silent, box.started_at, now, SILENCE)
    assert [(s.state, s.hours) for s in stretches] == [
        (Power.UNKNOWN, 1.0),  # before anyone said anything
        (Power.ON, 2.25),  # its word holds 15 minutes past its last post
        (Power.UNKNOWN, 6.75),
    ]
    assert metering.billed_hours(box, stretches, DEC1, now) == 10.0  # the meter may have run: billed
    hours = metering.hours(box, stretches, DEC1, now)
    assert (hours.on, hours.unknown, hours.off) == (2.25, 7.75, 0.0)


def test_a_stop_that_keeps_the_meter_running_keeps_billing_and_saves_nothing() -> None:
    now = DEC1 + timedelta(hours=10)
    stop = DEC1 + timedelta(hours=4)
    cloud = [PowerReport(Power.ON, DEC1, stop, "aliyun"), PowerReport(Power.OFF, stop, now, "aliyun", charging=True)]
    box = Box(share=None)
    stretches = timeline(cloud, box.started_at, now, SILENCE)
    assert metering.billed_hours(box, stretches, DEC1, now) == 10.0
    assert metering.stopped_billed(box, stretches, now) and metering.burn_per_hour(box, stretches, now) == 14.0
    stopped = [PowerReport(Power.ON, DEC1, stop, "aws"), PowerReport(Power.OFF, stop, now, "aws")]
    plain = timeline(stopped, box.started_at, now, SILENCE)
    assert metering.billed_hours(box, plain, DEC1, now) == 4.0 and not metering.stopped_billed(box, plain, now)
    keeps = Box(stop_billing="keeps")  # the team says its platform bills a powered-off box
    assert metering.billed_hours(keeps, plain, DEC1, now) == 10.0


def test_the_month_boundary_in_a_zone_with_dst_counts_each_local_hour_once() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    box = Box(started_at=datetime(2026, 10, 20, tzinfo=berlin), share=None)
    now = datetime(2026, 11, 2, tzinfo=berlin)
    on = [Stretch(Power.ON, box.started_at, now, "track")]
    october = metering.cost(box, on, datetime(2026, 10, 1, tzinfo=berlin), datetime(2026, 11, 1, tzinfo=berlin))
    assert october == 14 * (12 * 24 + 1)  # Oct 20 to Nov 1: 12 days and the hour Oct 25 gave back
    [spend] = spending([box], [], now, timelines={1: on})
    assert spend.amount == 14 * 24  # November so far: one day


def test_out_of_order_and_repeated_reports_make_one_timeline() -> None:
    on, off = DEC1 + timedelta(hours=2), DEC1 + timedelta(hours=5)
    reports = [PowerReport(Power.OFF, off, off, "person"), PowerReport(Power.ON, on, on, "person")]
    twice = [*reports, PowerReport(Power.OFF, off, off, "person")]
    now = DEC1 + timedelta(hours=8)
    assert timeline(twice, DEC1, now, SILENCE) == timeline(list(reversed(reports)), DEC1, now, SILENCE)


def test_a_balance_recorded_mid_day_lasts_its_left_over_the_burn_and_alerts_once_per_threshold() -> None:
    recorded = DEC1 + timedelta(hours=14)  # recorded at 14:00
    now = DEC1 + timedelta(hours=20)
    card = Box(share=None, price=10.0)  # 10/h, on since the 1st
    on = {1: [Stretch(Power.ON, card.started_at, now, "track")]}

    @dataclass(frozen=True)
    class Balance:
        provider: str = "autodl"
        amount: float = 320.0
        currency: str = "CNY"
        at: datetime = recorded
        source: str = "typed"

    left = runway(Balance(), [card, Box(id=2, provider="aliyun")], on, now)
    assert (left.left, left.burn_per_hour, left.hours) == (260.0, 10.0, 26.0)  # 6 h billed since, 10/h: 26 h
    assert left.until == now + timedelta(hours=26)
    assert crossed(left, (48, 12)) == 48 and crossed(runway(Balance(amount=160.0), [card], on, now), (48, 12)) == 12
    assert runway(Balance(), [], on, now).hours is None  # nothing burns it


def test_a_box_someone_stopped_is_forecast_at_nothing_more_one_on_its_schedule_at_its_share() -> None:
    """Issue 52: a box Stopped in the digest was still forecast at its whole share for the rest of the month."""
    now = DEC1 + timedelta(days=10, hours=14)  # after its daily 4 hours: off, as a machine saw it
    box = Box()
    scheduled = timeline(four_hours_a_day(11), box.started_at, now, SILENCE)
    [on_schedule] = standings([box], [], {("llm", "CNY"): 5000.0}, now, timelines={1: scheduled})
    stopped = timeline(
        [*four_hours_a_day(11), PowerReport(Power.OFF, now - timedelta(minutes=30), now, "person")],
        box.started_at,
        now,
        SILENCE,
    )
    [said_off] = standings([box], [], {("llm", "CNY"): 5000.0}, now, timelines={1: stopped})
    assert said_off.forecast == said_off.spent  # nothing more this month: someone said it is stopped
    assert on_schedule.forecast > on_schedule.spent + 56 * 19  # about 56 a day to the month's end, as before


def test_a_runway_reads_the_same_whether_a_scheduled_slice_is_on_or_off() -> None:
    """Issue 52: the same wallet read 120 h while a 4 h/day slice was off and 65 h five minutes after it came on;
    by billed time it lasts about the same at both moments."""
    from dataclasses import dataclass as frozen

    @frozen(frozen=True)
    class Wallet:
        provider: str = "autodl"
        amount: float = 2000.0
        currency: str = "CNY"
        at: datetime = DEC1 + timedelta(days=8)
        source: str = "typed"

    box = Box(provider="autodl")
    off = DEC1 + timedelta(days=8, hours=8, minutes=55)  # before its 09:00 start
    on = off + timedelta(minutes=10)  # five minutes after it powered on
    reads = []
    for now in (off, on):
        stretches = timeline(four_hours_a_day(9), box.started_at, now, SILENCE)
        reads.append(runway(Wallet(), [box], {1: stretches}, now))
    assert reads[0].hours is not None and reads[1].hours is not None
    assert abs(reads[0].hours - reads[1].hours) / reads[0].hours < 0.01  # about the same, by billed time
    assert reads[0].burn_per_hour == pytest.approx(14 * 4 / 24, rel=0.05)  # 4 billed hours of 24, at 14/h


@dataclass(frozen=True)
class Earlier:
    until: datetime
    price: float
    unit: str
    currency: str = "CNY"
    billing: str | None = None


@dataclass(frozen=True)
class Repriced(Box):
    share: float | None = None
    earlier_prices: tuple[Earlier, ...] = ()


def test_a_months_price_changed_keeps_its_months_and_a_switch_of_basis_starts_them_again() -> None:
    """A month item repriced on the 10th still bills its months from its start (its next on 01-01, at the new
    price); one switched from hourly on the 10th bills the hours before and its months from the 10th; one switched
    back to hourly bills the month it began and its hours after."""
    tenth, now = DEC1 + timedelta(days=9), DEC1 + timedelta(days=41)
    on = [Stretch(Power.ON, DEC1, now, "track")]
    repriced = Repriced(price=9000.0, unit="month", earlier_prices=(Earlier(tenth, 10000.0, "month", billing="month"),))
    assert metering.period_anchor(repriced) == DEC1
    assert metering.cost(repriced, on, DEC1, now) == pytest.approx(10000.0 + 9000.0)  # 12-01 and 01-01
    switched = replace(repriced, earlier_prices=(Earlier(tenth, 14.0, "hour", billing="hourly"),))
    assert metering.period_anchor(switched) == tenth
    assert metering.cost(switched, on, DEC1, now) == pytest.approx(9 * 24 * 14.0 + 2 * 9000.0)  # 12-10 and 01-10
    back = Repriced(
        price=14.0,
        earlier_prices=(Earlier(tenth, 10.0, "hour", billing="hourly"), Earlier(tenth + timedelta(days=5), 9000.0,
                        "month", billing="month")),
    )  # fmt: skip
    hours_after = (now - tenth - timedelta(days=5)) / timedelta(hours=1)
    assert metering.cost(back, on, DEC1, now) == pytest.approx(9 * 24 * 10.0 + 9000.0 + hours_after * 14.0)
