"""The board's figures, read where every other surface reads them, so each equals its twin at the same moment:
what is idle now is the digest's (bot/digest/send.py `digests`: the same items, since when, money billed since),
the leaderboards are `report --json`'s rankings (the seven days ending today, and this month), budgets are
`budget --json`'s rows and balances `balance --json`'s (bot/report/money.py), the chart's bars the report's days
(bot/report/chart.py `day_parts`, as its CSV adds them up), the prices' sources `prices status`'s.

A channel's board holds that channel's items, the budgets of the projects they belong to and the balances of the
providers they bill to; a team's board holds everything. Months and days are the channel's digest zone's (the
team's default zone for a team's board), as in the digest."""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from bot.deps import Deps
from bot.report.chart import day_parts
from bot.report.compose import compose, summary_json, timelines_since
from bot.report.money import balance_rows, budget_rows, budget_standings, runways
from bot.state.money_days import moves
from bot.state.power import PowerLog, month_since
from bot.state.rentals import Instance, Rentals, Storage
from bot.state.schedules import Schedules
from bot.state.store import Store
from bot.text import Lang
from rules.idle import Activity
from rules.metering import Timelines
from rules.periods import month_days
from rules.report import Report, Unsummed
from rules.worth import RAW, Worth

if TYPE_CHECKING:
    from bot.digest.send import Seen

log = logging.getLogger(__name__)

Names = Callable[[str, set[str]], dict[str, str]]  # (team, user ids) -> how people read each
QUIET = (Activity.IDLE, Activity.MEMORY_HELD)  # what the idle list shows


@dataclass
class Board:
    team: str
    channel: str | None
    lang: Lang
    zone: ZoneInfo
    now: datetime
    idle: list[dict[str, Any]] = field(default_factory=list)
    week: dict[str, Any] = field(default_factory=dict)  # report --json of the seven days ending today
    month: dict[str, Any] = field(default_factory=dict)  # report --json of this month so far
    budgets: list[dict[str, Any]] = field(default_factory=list)
    balances: list[dict[str, Any]] = field(default_factory=list)
    days: list[dict[str, Any]] = field(default_factory=list)  # the chart: each day's busy, idle, no-data money
    currency: str = "CNY"  # the chart's (the week's biggest)
    prices: list[dict[str, Any]] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  # owner id -> name

    def as_json(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "channel": self.channel,
            "at": self.now.isoformat(),
            "zone": self.zone.key,
            "idle_now": self.idle,
            "week": self.week,
            "month": self.month,
            "budgets": self.budgets,
            "balances": self.balances,
            "chart": {"currency": self.currency, "days": self.days},
            "prices": self.prices,
            "owners": self.names,
        }


def board(deps: Deps, team: str, channel: str | None, now: datetime, names: Names) -> Board:
    """The board of `team` (or of one of its channels) at `now`, in its channel's digest language (the page's
    `?lang=` says it in the other)."""
    from bot.digest.send import seen  # the digest's modules load when a board is asked for

    schedules = Schedules(deps.store, deps.settings.digest.default_schedule())
    plan = schedules.of(team, channel) if channel else schedules.default
    zone = ZoneInfo(plan.zone)
    said = Lang.named_or(plan.lang, deps.settings.files.lang)
    made = Board(team, channel, said, zone, now)
    rentals = ReadOnce(deps.store)
    mine = [i for i in rentals.instances(team) if not i.hidden_by and (channel is None or i.channel == channel)]
    shown = days_shown(now, zone)
    since = min(timelines_since(shown.start, zone), month_since(now))
    running = [i.id for i in mine if i.released_at is None]
    # On a thread of its own, the idle list: first what the database adds up from the samples (the GPUs' windows and
    # quiet stretches; the database works without the interpreter's lock), then the list, reading the power timelines
    # it needs; here meanwhile the report, reading those of the days it makes (today's, once the others are kept).
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="board") as pool:
        sensed = pool.submit(seen, rentals, running, now, deps.policy.idle)
        with deps.store.reading() as conn:
            marker = moves(conn)  # before the timelines: days the report makes from them are kept unless it moves
        worth = deps.prices.worth()  # one scale for both: the cache's rate read once, where a foreign amount asks
        idle = pool.submit(_idle_now, deps, rentals, team, channel, mine, now, zone, since, sensed, worth)
        made.week, made.month, made.currency, made.days = _periods(
            deps, rentals, team, channel, now, zone, shown, (None, marker), worth
        )
        made.idle = idle.result()
    projects = {i.project or "" for i in mine} | {s.project or "" for s in rentals.storage(team, channel=channel)}
    providers = {i.provider for i in mine if i.provider}
    only = channel is not None  # a channel's board: its projects' budgets, its providers' balances
    metering = deps.policy.metering
    made.budgets = budget_rows(budget_standings(rentals, team, now, zone, metering, projects if only else None))
    made.balances = balance_rows(runways(rentals, team, now, metering, providers if only else None))
    made.prices = _prices(deps)
    owners = {r["owner"] for r in made.idle if r["owner"]}
    owners |= {r["owner"] for part in (made.week, made.month) for r in part["by_owner"] if r["owner"]}
    made.names = names(team, owners) if owners else {}
    return made


class ReadOnce(Rentals):
    """The team's rented things read once for the whole board (its report, idle list, budgets and balances each
    asked for them: four reads of 2,000 instances), as they are at its one moment."""

    def __init__(self, store: Store) -> None:
        super().__init__(store)
        self._read: dict[tuple[Any, ...], list[Any]] = {}

    def instances(self, team: str, *, active_only: bool = False, channel: str | None = None) -> list[Instance]:
        key = ("instances", team, active_only, channel)
        if key not in self._read:
            self._read[key] = super().instances(team, active_only=active_only, channel=channel)
        return list(self._read[key])

    def storage(
        self, team: str, *, instance_id: int | None = None, kept_only: bool = False, channel: str | None = None
    ) -> list[Storage]:
        key = ("storage", team, instance_id, kept_only, channel)
        if key not in self._read:
            self._read[key] = super().storage(team, instance_id=instance_id, kept_only=kept_only, channel=channel)
        return list(self._read[key])


@dataclass(frozen=True)
class DaysShown:
    """The board's days in its zone: the seven ending today and this month; `start` is the earlier of their first."""

    today: date
    seven: date
    first: date
    last: date

    @property
    def start(self) -> date:
        return min(self.seven, self.first)


def days_shown(now: datetime, zone: ZoneInfo) -> DaysShown:
    today = now.astimezone(zone).date()
    first, last = month_days(today)
    return DaysShown(today, today - timedelta(days=6), first, last)


def _periods(
    deps: Deps,
    rentals: Rentals,
    team: str,
    channel: str | None,
    now: datetime,
    zone: ZoneInfo,
    shown: DaysShown,
    read: tuple[Timelines | None, int],
    worth: Worth = RAW,
) -> tuple[dict[str, Any], dict[str, Any], str, list[dict[str, Any]]]:
    """The seven days ending today and this month, from one report over both (a day's figures are its own), and
    the chart's days. `read`: the timelines (None: the report reads those of the days it makes), and the kept days'
    marker as read before them. The report's rows are the week's (the chart's): the month's earlier days of the
    instances whose every day is kept and true are added up by the database alone; where those sums cannot be read
    as the report made them, it is made again with every row."""
    busy = deps.policy.idle.utilisation_max_pct

    def figures(rows_from: date | None) -> tuple[dict[str, Any], dict[str, Any], str, list[dict[str, Any]]]:
        both = compose(rentals, team, shown.start, shown.last, zone=zone, now=now, busy_above_pct=busy,
                       channel=channel, metering=deps.policy.metering, timelines=read[0], seen=read[1],
                       rows_from=rows_from, worth=worth)  # fmt: skip
        week, month = both.days_of(shown.seven, shown.today), both.days_of(shown.first, shown.last)
        currency, days = _days(week)
        return _ranked(week), _ranked(month), currency, days

    try:
        return figures(shown.seven)
    except Unsummed as exc:
        log.info("the board's report is made again with every row: %s", exc)
        return figures(None)


def _idle_now(
    deps: Deps,
    rentals: Rentals,
    team: str,
    channel: str | None,
    mine: list[Any],
    now: datetime,
    zone: ZoneInfo,
    since: datetime,
    sensed: Future[Seen],
    worth: Worth,
) -> list[dict[str, Any]]:
    """The digest's idle and memory-held instances of these channels now: since when, and what they billed since.

    Judged first from the power timelines of the last idle window and an hour only: a timeline says whether an
    instance is on now, and when it was last started again (judged from then: too young within the window). A shorter
    one can miss a start, never add one, so what it finds quiet includes all the month's timelines would (and, missing
    a start within the window, perhaps one too young). Those are judged again from their timelines since `since`, as
    the digest reads them, which also say what each billed since it went quiet: only their months are read."""
    from bot.digest.send import digests

    channels = sorted({i.channel for i in mine if i.released_at is None})
    if not channels:
        return []
    power, found = PowerLog(deps.store, deps.policy.metering), sensed.result()
    window = timedelta(minutes=deps.policy.idle.window_minutes) + timedelta(hours=1)

    def judged(timelines: Timelines) -> list[tuple[str, Any]]:
        composed = digests(rentals, team, channels, now, deps.policy.idle, deps.policy.metering, lambda _c: zone,
                           items_only=True, timelines=timelines, sensed=found)  # fmt: skip
        return [(where, n) for where, made in sorted(composed.items()) for n in made.instances if n.activity in QUIET]

    recent = power.timelines(mine, now, since=now - window)
    quiet = {(where, news.name) for where, news in judged(recent)}
    shown = judged(recent | power.timelines([i for i in mine if (i.channel, i.name) in quiet], now, since=since))
    rows = [
        {
            "item": news.name,
            "channel": where,
            "owner": news.owner or None,
            "activity": str(news.activity),
            "since": news.since.isoformat() if news.since else None,
            "billed_since": round(news.burned, 2),
            "per_day": round(news.per_day, 2),
            "currency": news.currency,
            "gpu": news.gpu,
            "cards": news.cards,
        }
        for where, news in shown
    ]
    # dollars and yuan on the team's currency, for the order only
    return sorted(rows, key=lambda r: (-worth.one(r["billed_since"], r["currency"]), r["item"]))


def _ranked(report: Report) -> dict[str, Any]:
    """The report's period, totals and rankings by owner and project, as `report --json` says them."""
    return summary_json(report)


def _days(report: Report) -> tuple[str, list[dict[str, Any]]]:
    costs = report.totals().cost
    currency = report.worth.most(costs, "CNY")  # the currency most money is in, dollars and yuan on one scale
    parts = day_parts(report, currency)
    days: list[date] = [report.start + timedelta(days=n) for n in range((report.end - report.start).days + 1)]
    return currency, [
        {"day": d.isoformat(), "busy": round(b, 2), "idle": round(i, 2), "no_data": round(u, 2)}
        for d in days
        for b, i, u in [parts.get(d, (0.0, 0.0, 0.0))]
    ]


def _prices(deps: Deps) -> list[dict[str, Any]]:
    """Each price source: rows, when it last loaded, its age, whether it is stale (as `prices status`)."""
    from pricing.errors import CacheUnavailable

    try:
        states = deps.prices.status()
    except CacheUnavailable:
        return []
    return [
        {
            "source": s.source,
            "rows": s.rows,
            "last_success": s.last_success.isoformat() if s.last_success else None,
            "age_days": s.age_days,
            "stale": s.stale,
            "stale_rows": s.stale_rows,  # the rows past their TTL: "loaded 0 h ago" beside STALE said no more
        }
        for s in states
    ]
