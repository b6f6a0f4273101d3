"""What the bill says: an instance's money from how it is billed and when it ran.

Pure. An instance is billed `hourly` (pay-as-you-go, spot, a slice by the hour: its price for each hour the
meter runs; the articles' "按秒计费的共享实例，随开随停", "开机即用，关机不扣钱") or by a period, `day` or `month`
(its period price for each period started, running or not, until released; periods follow one another from
its start, a month being a calendar month from the start's day). An hourly meter runs while the instance is on,
while nobody knows (unknown), and while it is off where stopping keeps the meter running (`stop_billing`
"keeps": Tencent Cloud's and Baidu's default, Alibaba Cloud without economical mode, or a cloud's own
keep-charging stop). The basis comes from the price's unit unless set. An instance with no power timeline
(rules/power.py) is taken as on from its start.
"""

from __future__ import annotations

import calendar
import math
from bisect import bisect_left
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from rules.power import Hours, Power, Stretch, hours_in, state_at

PER_DAY = {"hour": 24.0, "day": 1.0, "month": 1 / 30}  # a month is 30 days in rates (the quote's convention)
FORECAST_DAYS = 7  # an hourly item's share of billed time is read over the last week


class Basis(StrEnum):
    HOURLY = "hourly"
    DAY = "day"
    MONTH = "month"


BASIS_OF_UNIT = {"hour": Basis.HOURLY, "day": Basis.DAY, "month": Basis.MONTH}
_BASIS = {b.value: b for b in Basis}  # a look-up, not Basis(value): the report asks it of every item-day, thrice
PERIOD_HOURS = {Basis.DAY: 24.0, Basis.MONTH: 24.0 * 30}  # a period's price spread over its hours
STOP_BILLING = ("stops", "keeps")
Timelines = Mapping[int, Sequence[Stretch]]


def basis(thing: Any) -> Basis:
    """Its billing basis: as set, else from its price's unit."""
    chosen: str | None = getattr(thing, "billing", None)
    if not chosen:
        return BASIS_OF_UNIT[str(thing.unit)]
    return _BASIS.get(chosen) or Basis(chosen)  # Basis() says what a value it does not know is


def keeps(thing: Any) -> bool:
    """Whether its meter runs while it is off (a period item's always does: it is billed by the period)."""
    return basis(thing) is not Basis.HOURLY or getattr(thing, "stop_billing", None) == "keeps"


def per_hour(thing: Any) -> float:
    """Its price an hour while billed (an unknown price counts nothing)."""
    price: float = thing.price or 0.0
    return price * PER_DAY[str(thing.unit)] / 24


def period_price(thing: Any) -> float:
    """What one period of a day or month item costs: its price when priced by that period, else its rate."""
    chosen = basis(thing)
    if thing.unit == chosen.value:
        price: float = thing.price or 0.0
        return price
    return per_hour(thing) * PERIOD_HOURS[chosen]


def add_months(moment: datetime, months: int) -> datetime:
    """`moment` `months` calendar months on, its day clamped to the month's length (Jan 31 + 1 = Feb 28)."""
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def _was_billed(earlier: Any, now_billed: Basis) -> Basis:
    """How an earlier price was billed: as kept with it, else (kept before it was: 0037) as the item is now."""
    said: str | None = getattr(earlier, "billing", None)
    return _BASIS.get(said or "") or now_billed


def _billed_runs(thing: Any) -> tuple[list[tuple[Any, Basis, datetime]], datetime]:
    """Each earlier price with how it was billed and where its periods count from (the start of the run of prices
    billed alike that holds it), and where the current price's count from: its start, or when it was last switched
    to its basis (a box billed by the hour, switched to 包月 on the 7th, bills a month from the 7th)."""
    now_billed, runs = basis(thing), []
    anchor: datetime = thing.started_at
    before, since = None, thing.started_at
    for earlier in getattr(thing, "earlier_prices", ()):
        billed = _was_billed(earlier, now_billed)
        anchor = since if before is not None and billed is not before else anchor
        runs.append((earlier, billed, anchor))
        before, since = billed, earlier.until
    return runs, since if before is not None and before is not now_billed else anchor


def period_anchor(thing: Any) -> datetime:
    """Where its periods count from: its start, or when it was last switched to its basis (_billed_runs)."""
    return _billed_runs(thing)[1]


def _starts(thing: Any, lo: datetime, hi: datetime) -> Iterator[datetime]:
    """The starts of its periods in [lo, hi), released or not, first first (each found from its index)."""
    chosen, begin = basis(thing), period_anchor(thing)
    if lo <= begin:
        step = 0
    elif chosen is Basis.DAY:
        step = math.ceil((lo - begin) / timedelta(days=1))
    else:
        step = max((lo.year - begin.year) * 12 + lo.month - begin.month - 1, 0)
    while True:
        at = begin + timedelta(days=step) if chosen is Basis.DAY else add_months(begin, step)
        if at >= hi:
            return
        if at >= lo:
            yield at
        step += 1


def period_starts(thing: Any, lo: datetime, hi: datetime) -> Iterator[datetime]:
    """The starts of its periods in [lo, hi) and before its release, first first."""
    return _starts(thing, lo, min(hi, thing.released_at) if thing.released_at is not None else hi)


def period_end(thing: Any, moment: datetime) -> datetime:
    """The end of the period running at `moment`: the next period's start."""
    far = moment + timedelta(days=32)  # a month and a day: the next start is always before
    return next(at for at in _starts(thing, moment, far) if at > moment)


def stretches_of(thing: Any, timelines: Timelines | None, now: datetime) -> Sequence[Stretch]:
    """Its timeline, or on from its start when it has none."""
    found = (timelines or {}).get(thing.id)
    if found is not None:
        return found
    end = min(thing.released_at, now) if thing.released_at is not None else now
    return [Stretch(Power.ON, thing.started_at, end, "track")] if end > thing.started_at else []


def _rented(thing: Any, start: datetime, end: datetime) -> tuple[datetime, datetime]:
    stop = min(thing.released_at, end) if thing.released_at is not None else end
    return max(thing.started_at, start), stop


def hours(thing: Any, stretches: Sequence[Stretch], start: datetime, end: datetime) -> Hours:
    """Its hours of each state in [start, end), within its rental."""
    lo, hi = _rented(thing, start, end)
    return hours_in(stretches, lo, hi, keeps(thing)) if hi > lo else Hours()


def billed_hours(thing: Any, stretches: Sequence[Stretch], start: datetime, end: datetime) -> float:
    """Hours billed in [start, end): an hourly meter's running hours; every rented hour of a period item."""
    got = hours(thing, stretches, start, end)
    return got.billed if basis(thing) is Basis.HOURLY else got.total


def priced_stretches(thing: Any, start: datetime, end: datetime) -> Iterator[tuple[Any, datetime, datetime]]:
    """[start, end) cut where its price changed, each piece with the thing as it was priced and billed then
    (`earlier_prices`: each price until the next began; the current one from its `price_since`), its periods
    counted from when it was switched to that basis. Money billed stays at its price."""
    lo = start
    for earlier, billed, anchor in _billed_runs(thing)[0]:
        if earlier.until > lo and lo < end:
            then = {"price": earlier.price, "unit": earlier.unit, "billing": billed.value, "started_at": anchor}
            yield replace(thing, **then, earlier_prices=()), lo, min(earlier.until, end)
        lo = max(lo, earlier.until)
    if lo < end:
        yield thing, lo, end


def cost(
    thing: Any,
    stretches: Sequence[Stretch],
    start: datetime,
    end: datetime,
    *,
    billed: float | None = None,
    starts: Sequence[datetime] | None = None,
) -> float:
    """Money billed in [start, end): hourly, its billed hours at its price; a period item, each period started; each
    at the price it had then. Where the caller has counted them already (the report, a day at a time), not counted
    again for an item at one price: `billed`, its billed hours in [start, end); `starts`, its period starts over a
    span of its rental holding [start, end) (`period_starts`, read once for every day of the report)."""
    if getattr(thing, "earlier_prices", ()):
        return sum(_cost(t, stretches, lo, hi) for t, lo, hi in priced_stretches(thing, start, end))
    hourly = basis(thing) is Basis.HOURLY
    if hourly and billed is not None:
        return billed * per_hour(thing)
    if not hourly and starts is not None:
        lo, hi = _rented(thing, start, end)
        return period_price(thing) * (bisect_left(starts, hi) - bisect_left(starts, lo)) if hi > lo else 0.0
    return _cost(thing, stretches, start, end)


def _cost(thing: Any, stretches: Sequence[Stretch], start: datetime, end: datetime) -> float:
    if basis(thing) is Basis.HOURLY:
        return billed_hours(thing, stretches, start, end) * per_hour(thing)
    lo, hi = _rented(thing, start, end)
    if hi <= lo:
        return 0.0
    return period_price(thing) * sum(1 for _ in period_starts(thing, lo, hi))


def spread_per_hour(thing: Any) -> float:
    """Its money an hour billed: an hourly item's price, a period item's period price over the period's hours."""
    chosen = basis(thing)
    return per_hour(thing) if chosen is Basis.HOURLY else period_price(thing) / PERIOD_HOURS[chosen]


def accrued(
    thing: Any, stretches: Sequence[Stretch], start: datetime, end: datetime, *, billed: float | None = None
) -> float:
    """Its billed hours in [start, end) at its money an hour: what a stretch of it is worth (what an idle stretch
    burned), a period item's price spread over its period rather than paid at its start; each at the price it had
    then. `billed`: as for cost()."""
    if billed is not None and not getattr(thing, "earlier_prices", ()):
        return billed * spread_per_hour(thing)
    return sum(
        billed_hours(t, stretches, lo, hi) * spread_per_hour(t) for t, lo, hi in priced_stretches(thing, start, end)
    )


STOPPED_BY_WORD = ("person", "bot")  # a stop said by someone (Stopped, `power`) or done by the bot, not seen


def said_stopped(thing: Any, stretches: Sequence[Stretch], now: datetime) -> bool:
    """Is it off now by someone's word or the bot's stop, its meter stopped with it? (A box a machine saw off, an
    hourly slice on its daily schedule, is forecast at its usual share instead: it will be on again.)"""
    current = next((s for s in reversed(stretches) if s.start <= now), None)
    return current is not None and current.state is Power.OFF and current.source in STOPPED_BY_WORD and not keeps(thing)


def billed_share(thing: Any, stretches: Sequence[Stretch], now: datetime, days: float = FORECAST_DAYS) -> float:
    """The share of the last `days` (or since its start, when younger) an hourly meter ran; the state now
    when it has no past."""
    lo: datetime = max(thing.started_at, now - timedelta(days=days))
    span = (now.astimezone(UTC) - lo.astimezone(UTC)).total_seconds() / 3600
    if span <= 0:
        state = state_at(stretches, now)
        return 0.0 if state is Power.OFF and not keeps(thing) else 1.0
    return min(hours(thing, stretches, lo, now).billed / span, 1.0)


def on_a_schedule(thing: Any, stretches: Sequence[Stretch], now: datetime) -> float | None:
    """About how many hours a day an hourly item runs, when it runs on a daily pattern (on and off again on at least
    two of the last days, billed 1-20 hours a day on average): a normal schedule, not something to act on. None
    otherwise."""
    if basis(thing) is not Basis.HOURLY or keeps(thing) or now - thing.started_at < timedelta(days=2):
        return None
    since = now - timedelta(days=FORECAST_DAYS)
    starts = [s for s in stretches if s.state is Power.ON and since <= s.start <= now]
    a_day = billed_share(thing, stretches, now) * 24
    return round(a_day, 1) if len(starts) >= 2 and 1 <= a_day <= 20 else None


def burn_per_hour(thing: Any, stretches: Sequence[Stretch], now: datetime) -> float:
    """What it costs an hour now: an hourly item while its meter runs (on, unknown, off and still billed), a
    period item its period price spread over the period; nothing once released."""
    if thing.released_at is not None and thing.released_at <= now:
        return 0.0
    if basis(thing) is not Basis.HOURLY:
        return spread_per_hour(thing)
    state = state_at(stretches, now)
    return 0.0 if state is Power.OFF and not _off_billed(thing, stretches, now) else per_hour(thing)


def average_burn(thing: Any, stretches: Sequence[Stretch], now: datetime) -> float:
    """What it costs an hour on average: an hourly item at its share of billed time over the last week (or since
    it started), not the burn of this instant, which swings as a slice powers off and on (a runway read at 120 h
    while a 4 h/day slice was off read 65 h five minutes after it came on); nothing once released or said stopped;
    a period item its period price spread over the period."""
    if thing.released_at is not None and thing.released_at <= now:
        return 0.0
    if basis(thing) is not Basis.HOURLY:
        return spread_per_hour(thing)
    if said_stopped(thing, stretches, now):
        return 0.0
    return billed_share(thing, stretches, now) * per_hour(thing)


def _off_billed(thing: Any, stretches: Sequence[Stretch], now: datetime) -> bool:
    for s in reversed(stretches):
        if s.start <= now:
            return keeps(thing) if s.charging is None else s.charging
    return keeps(thing)


def stopped_billed(thing: Any, stretches: Sequence[Stretch], now: datetime) -> bool:
    """Off now with its hourly meter still running: the digest says so, with what to do."""
    return (
        basis(thing) is Basis.HOURLY
        and thing.released_at is None
        and state_at(stretches, now) is Power.OFF
        and _off_billed(thing, stretches, now)
    )


def ahead(thing: Any, stretches: Sequence[Stretch], now: datetime, until: datetime) -> float:
    """What it will cost from `now` to `until` if it goes on as it runs: an hourly item at its share of billed
    time over the last week, a period item each renewal starting before `until` (the running period is paid)."""
    if thing.released_at is not None or until <= now:
        return 0.0
    if basis(thing) is Basis.HOURLY and said_stopped(thing, stretches, now):
        return 0.0  # someone (or the bot) stopped it: nothing more until it is started again
    if basis(thing) is Basis.HOURLY:
        hours = (until.astimezone(UTC) - now.astimezone(UTC)).total_seconds() / 3600
        return billed_share(thing, stretches, now) * per_hour(thing) * hours
    return period_price(thing) * sum(1 for _ in period_starts(thing, now, until))


def saved(thing: Any, stretches: Sequence[Stretch], now: datetime) -> float:
    """What its release has not cost up to `now`: from the end of the period it was released in (an hourly
    item's at once) at the rate it ran in its last week."""
    released: datetime | None = thing.released_at
    if released is None or released >= now:
        return 0.0
    if basis(thing) is Basis.HOURLY:
        rate: float = billed_share(thing, stretches, released) * per_hour(thing)
        return rate * (now.astimezone(UTC) - released.astimezone(UTC)).total_seconds() / 3600
    paid_until = period_end(thing, released)
    return period_price(thing) * sum(1 for _ in _starts(thing, paid_until, now))  # the renewals not bought
