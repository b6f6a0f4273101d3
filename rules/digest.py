"""The daily digest of one channel, as data: what is idle and what it burns, what has no data, storage
left behind or untouched, month-to-date spend per project, and what releases saved this month.

Pure: the rented things, their samples, the clock and the policy come in; nothing is read or sent
here (bot/digest/ sends it, bot/slack/ui/digest.py renders it). Busy and young instances are not news and are left
out. Money is per currency, never converted: a team that rents in CNY and USD sees both.
Money is what the bill says (rules/metering.py): an hourly item's billed hours, a period item's periods started.
A month is 30 days, a day 24 hours in rates (the quote's convention).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from rules import metering
from rules.idle import Activity, GpuWindow, judge, judge_windows
from rules.metering import PER_DAY, Timelines, stretches_of
from rules.platforms import release_at
from rules.policy import Idle
from rules.power import Power, Stretch, restarted_at, state_at
from rules.runway import Runway
from rules.samples import Sample
from rules.sources import FOUND_SOURCES
from rules.worth import RAW, Worth

if TYPE_CHECKING:
    from rules.budget import Standing  # rules/budget.py builds on this module


class Owned(Protocol):
    """What an instance and storage both carry: who pays for it, and in what currency."""

    @property
    def name(self) -> str: ...
    @property
    def owner(self) -> str: ...
    @property
    def project(self) -> str | None: ...
    @property
    def currency(self) -> str: ...


class Rented(Owned, Protocol):
    @property
    def id(self) -> int: ...
    @property
    def unit(self) -> str: ...
    @property
    def price(self) -> float | None: ...
    @property
    def started_at(self) -> datetime: ...
    @property
    def released_at(self) -> datetime | None: ...


class Stored(Owned, Protocol):
    @property
    def size_gb(self) -> float: ...
    @property
    def price_gb_month(self) -> float: ...
    @property
    def instance_id(self) -> int | None: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def deleted_at(self) -> datetime | None: ...


@dataclass(frozen=True)
class InstanceNews:
    name: str
    owner: str
    activity: Activity  # IDLE, MEMORY_HELD or UNKNOWN
    per_day: float
    currency: str
    since: datetime | None = None  # when the trailing quiet stretch began (idle, memory held)
    burned: float = 0.0  # money spent since then
    priced: bool = True  # False: its price is not known (an enrolled card the price cache does not know)
    source: str = "track"  # aws, k8s: found in the cloud (no activity data means: enroll the agent)
    stop_at: datetime | None = None  # a channel that stops idle instances: when this one will be, unless...
    never_stopped: bool = False  # ...or, in such a channel, an instance the bot cannot stop (said so)
    stop_refused: bool = False  # ...or one its cloud refused to stop (as the bot asks: without charge): said once more
    stop_keeps_billing: bool = False  # its stop saves nothing (it bills while stopped): said with the warning
    per_hour: float = 0.0  # its price an hour while billed
    month: float = 0.0  # what it has billed this month (said for one stopped but still billed)
    gpu: str = ""  # its card, as the catalogue names it (Ascend-910B2-64GB), when known
    cards: float = 1.0
    idle_rule: int | None = None  # the platform stops it by itself after this many minutes idle (a DSW notebook)
    id: int = 0  # its row's id, which its buttons carry (a name is used again once its box is released); 0: unknown


@dataclass(frozen=True)
class StorageNews:
    name: str
    owner: str
    reason: str  # "left_behind" (its instance was released) or "stale" (untouched past the policy age)
    size_gb: float
    per_month: float
    currency: str
    untouched_days: float
    id: int = 0  # as InstanceNews.id


@dataclass(frozen=True)
class FoundNews:
    """Found in the cloud and nobody's yet: listed under "Found, not tracked" with Claim and Not ours."""

    kind: str  # "i" an instance, "s" storage
    name: str
    what: str  # "A10-24GB × 1", "500 GB"
    per_day: float
    currency: str
    state: str | None = None  # the cloud's: running, stopped, available
    spot: bool = False
    priced: bool = True
    idle_rule: int | None = None  # the platform stops it by itself after this many minutes idle (a DSW notebook)


@dataclass(frozen=True)
class LifecycleNews:
    """Powered off on a platform that releases what stays off (rules/platforms.py): when, and when it goes."""

    name: str
    owner: str
    provider: str
    off_since: datetime
    release_at: datetime
    id: int = 0  # as InstanceNews.id


@dataclass(frozen=True)
class Spend:
    project: str
    currency: str
    amount: float
    budget: float | None = None
    forecast: Standing | None = None  # a budgeted project's month-end forecast: said when it runs over


@dataclass(frozen=True)
class Digest:
    instances: list[InstanceNews] = field(default_factory=list)
    storage: list[StorageNews] = field(default_factory=list)
    spend: list[Spend] = field(default_factory=list)
    saved: dict[str, float] = field(default_factory=dict)  # currency -> money not spent thanks to releases
    found: list[FoundNews] = field(default_factory=list)  # found in the cloud, nobody's yet
    runways: list[Runway] = field(default_factory=list)  # the prepaid balances of this channel's providers
    lifecycle: list[LifecycleNews] = field(default_factory=list)  # powered off where the platform releases it
    board_url: str | None = None  # a link to the channel's board (bot/board/), when the bot has a public address
    # the amounts of several currencies on the team's one, for the items' order only (rules/worth.py)
    worth: Worth = field(default=RAW, compare=False, repr=False)

    @property
    def count(self) -> int:
        """The items the message lists, as its header counts them (found and platform notes included)."""
        return len(self.instances) + len(self.storage) + len(self.found) + len(self.lifecycle)

    @property
    def news(self) -> bool:
        """Anything worth a message (spend alone is not: it is context for the items)."""
        return bool(self.instances or self.storage or self.found or self.lifecycle)


def per_day(thing: Rented) -> float:
    """Money a day; an instance whose price is not known counts nothing (and its news says so)."""
    return (thing.price or 0.0) * PER_DAY[thing.unit]


def _quiet_since(samples: Sequence[Sample], rules: Idle) -> datetime | None:
    """Start of the trailing stretch in which every sample is at or below the utilisation threshold."""
    since = None
    for sample in sorted(samples, key=lambda s: s.at, reverse=True):
        if sample.utilization_pct > rules.utilisation_max_pct:
            break
        since = sample.at
    return since


def month_start(now: datetime) -> datetime:
    """Midnight on the first of `now`'s month, in `now`'s zone: where every figure's month begins."""
    return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def _days(start: datetime, end: datetime) -> float:
    """Elapsed days, in UTC: two local times subtract as wall clocks, and a month the clocks went back would bill
    its storage an hour short of the report's days (rules/report.py)."""
    return max((end.astimezone(UTC) - start.astimezone(UTC)).total_seconds(), 0.0) / 86400


def unclaimed(thing: Owned) -> bool:
    """Found by discovery and nobody's yet: not judged, listed apart until someone claims it."""
    return getattr(thing, "source", "track") in FOUND_SOURCES and not thing.owner


def hidden(thing: Owned) -> bool:
    """Marked "Not ours" by an admin: out of the digest altogether."""
    return bool(getattr(thing, "hidden_by", None))


def _found(instances: list[Rented], storage: list[Stored], worth: Worth) -> list[FoundNews]:
    out = [
        FoundNews(
            "i",
            i.name,
            f"{getattr(i, 'gpu', '?')} × {getattr(i, 'cards', 1)}",
            per_day(i),
            i.currency,
            getattr(i, "cloud_state", None),
            bool(getattr(i, "spot", False)),
            i.price is not None,
            getattr(i, "idle_rule_minutes", None),
        )
        for i in instances
        if unclaimed(i) and i.released_at is None
    ]
    out += [
        FoundNews(
            "s",
            s.name,
            f"{s.size_gb:g} GB",
            s.size_gb * s.price_gb_month / 30,
            s.currency,
            getattr(s, "cloud_state", None),
        )
        for s in storage
        if unclaimed(s) and s.deleted_at is None and getattr(s, "cloud_state", None) != "in-use"
    ]
    return sorted(out, key=lambda f: (-worth.one(f.per_day, f.currency), f.name))


def spent_this_month(thing: Rented, now: datetime, timelines: Timelines | None = None) -> float:
    """What it has billed this month up to `now` (rules/metering.py)."""
    return metering.cost(thing, stretches_of(thing, timelines, now), month_start(now), now)


def stored_this_month(disk: Stored, now: datetime) -> float:
    return (
        disk.size_gb
        * disk.price_gb_month
        / 30
        * _days(max(disk.created_at, month_start(now)), min(disk.deleted_at or now, now))
    )


WHOLE_TEAM = "*"  # the project key of the whole team's budget (rules/budget.py): no rental NAME is "*"


def spending(
    instances: Iterable[Rented],
    storage: Iterable[Stored],
    now: datetime,
    budgets: Mapping[tuple[str, str], float] | None = None,
    timelines: Timelines | None = None,
) -> list[Spend]:
    """This month's spend per (project, currency), with its budget: the projects that spent, or have one, and the
    whole team's (WHOLE_TEAM) where it has a budget. Items hidden by an admin ("Not ours") count nothing."""
    budgets = budgets or {}
    spend: dict[tuple[str, str], float] = defaultdict(float)
    for inst in instances:
        if not hidden(inst):
            spend[(inst.project or "", inst.currency)] += spent_this_month(inst, now, timelines)
    for disk in storage:
        if not hidden(disk):
            spend[(disk.project or "", disk.currency)] += stored_this_month(disk, now)
    for currency in {c for p, c in budgets if p == WHOLE_TEAM}:  # the whole team's: every project's spend
        spend[(WHOLE_TEAM, currency)] = sum(a for (p, c), a in list(spend.items()) if c == currency)
    for key in budgets:
        spend.setdefault(key, 0.0)
    return [
        Spend(p, c, round(a, 2), budgets.get((p, c)))
        for (p, c), a in sorted(spend.items(), key=lambda row: (row[0][0] != WHOLE_TEAM, row[0]))  # the team's first
        if a > 0 or (p, c) in budgets
    ]


def _card(inst: Rented) -> dict[str, Any]:
    """What card an item is, and the platform's own idle rule where it has one, for its line (an item without
    them, as some fakes and old rows, says none)."""
    return {
        "gpu": str(getattr(inst, "gpu", "") or ""),
        "cards": float(getattr(inst, "cards", 1) or 1),
        "idle_rule": getattr(inst, "idle_rule_minutes", None),
        "id": int(getattr(inst, "id", 0) or 0),
    }


def _stopped_billed(inst: Rented, stretches: Sequence[Stretch], now: datetime) -> InstanceNews:
    return InstanceNews(
        inst.name,
        inst.owner,
        Activity.STOPPED_BILLED,
        per_day(inst),
        inst.currency,
        priced=inst.price is not None,
        source=getattr(inst, "source", "track"),
        per_hour=metering.per_hour(inst),
        month=metering.cost(inst, stretches, month_start(now), now),
        **_card(inst),
    )


def _storage_news(
    storage: list[Stored],
    released_ids: set[int],
    now: datetime,
    rules: Idle,
    last_touched: Mapping[str, datetime],
    kept_until: Mapping[str, datetime],
) -> list[StorageNews]:
    left: list[StorageNews] = []
    for disk in storage:
        per_month = disk.size_gb * disk.price_gb_month
        if (
            disk.deleted_at is not None
            or kept_until.get(disk.name, now) > now
            or unclaimed(disk)
            or getattr(disk, "cloud_state", None) == "in-use"
        ):
            continue
        touched = max(disk.created_at, last_touched.get(disk.name, disk.created_at))
        untouched = _days(touched, now)
        if disk.instance_id is not None and disk.instance_id in released_ids:
            reason = "left_behind"
        elif untouched >= rules.storage_stale_days:
            reason = "stale"
        else:
            continue
        ident = int(getattr(disk, "id", 0) or 0)
        left.append(
            StorageNews(disk.name, disk.owner, reason, disk.size_gb, per_month, disk.currency, untouched, ident)
        )
    return left


def _judged(
    inst: Rented,
    stretches: Sequence[Stretch],
    samples: Mapping[int, Sequence[Sample]],
    windows: Mapping[int, Sequence[GpuWindow]] | None,
    now: datetime,
    rules: Idle,
    snoozed_until: datetime | None,
    quiet_since: Mapping[int, datetime] | None,
) -> InstanceNews | None:
    """A running instance's line when it is idle, holds memory with no work, or says nothing (None: busy, young
    or snoozed): from its samples, or its GPUs' summaries of the window when the caller added them up."""
    own = samples.get(inst.id, ())
    started = max(inst.started_at, restarted_at(stretches) or inst.started_at)  # a box started again: from then
    if windows is not None:
        verdict = judge_windows(
            windows.get(inst.id, ()), started=started, now=now, rules=rules, snoozed_until=snoozed_until
        )
    else:
        verdict = judge(own, started=started, now=now, rules=rules, snoozed_until=snoozed_until)
    if verdict in (Activity.IDLE, Activity.MEMORY_HELD):
        since = (quiet_since or {}).get(inst.id) or _quiet_since(own, rules) or now
        accrued = metering.accrued(inst, stretches, since, now)
        return InstanceNews(
            inst.name, inst.owner, verdict, per_day(inst), inst.currency, since, accrued, inst.price is not None,
            **_card(inst),
        )  # fmt: skip
    if verdict is Activity.UNKNOWN:
        return InstanceNews(
            inst.name, inst.owner, verdict, per_day(inst), inst.currency, priced=inst.price is not None,
            source=getattr(inst, "source", "track"), **_card(inst),
        )  # fmt: skip
    return None


def compose(
    instances: Iterable[Rented],
    storage: Iterable[Stored],
    samples: Mapping[int, Sequence[Sample]],
    *,
    now: datetime,
    rules: Idle,
    snoozes: Mapping[int, datetime] | None = None,
    budgets: Mapping[tuple[str, str], float] | None = None,
    last_touched: Mapping[str, datetime] | None = None,
    kept: Mapping[str, datetime] | None = None,
    quiet_since: Mapping[int, datetime] | None = None,
    windows: Mapping[int, Sequence[GpuWindow]] | None = None,
    timelines: Timelines | None = None,
    spend: bool = True,
    worth: Worth = RAW,
) -> Digest:
    """The digest of one channel at `now` (see the module's rules). `samples` by instance id; `snoozes`:
    instance id -> "still needed" until; `last_touched`: storage name -> newest file time an agent saw;
    `budgets`: (project, currency) -> this month's budget; `kept`: storage name -> "keep" until;
    `quiet_since`: instance id -> when its quiet stretch began, when the caller found it without
    passing a day of samples (else it is found in `samples`); `windows`: instance id -> its GPUs' summaries of
    the window, when the caller had the database add them up (then `samples` may be empty); `timelines`: instance
    id -> when it was on and off (rules/power.py; without one, on since its start); `spend`: False leaves out
    this month's spend per project (the board's idle list, which says the items alone); `worth`: the team's currencies
    on one scale, for the items' order (dearest first)."""
    snoozes, budgets, last_touched, kept_until = snoozes or {}, budgets or {}, last_touched or {}, kept or {}
    instances, storage = [i for i in instances if not hidden(i)], [s for s in storage if not hidden(s)]
    news: list[InstanceNews] = []
    ends: list[LifecycleNews] = []
    saved: dict[str, float] = defaultdict(float)
    released_ids = {i.id for i in instances if i.released_at is not None}
    for inst in instances:
        stretches = stretches_of(inst, timelines, now)
        if inst.released_at is not None:
            if inst.released_at >= month_start(now):
                saved[inst.currency] += metering.saved(inst, stretches, now)
            continue
        if unclaimed(inst):
            continue  # listed apart (found)
        if state_at(stretches, now) is Power.OFF or getattr(inst, "cloud_state", None) == "stopped":
            if metering.stopped_billed(inst, stretches, now):  # stopped, but its meter runs: say so
                news.append(_stopped_billed(inst, stretches, now))
            elif (going := release_at(getattr(inst, "provider", None), stretches, now)) is not None and not (
                inst.id in snoozes and snoozes[inst.id] > now  # "Snooze a week" on its line: known, not news
            ):
                ends.append(LifecycleNews(inst.name, inst.owner, str(getattr(inst, "provider", "")), *going, inst.id))
            continue  # not running
        judged = _judged(inst, stretches, samples, windows, now, rules, snoozes.get(inst.id), quiet_since)
        if judged is not None:
            news.append(judged)
    left = _storage_news(storage, released_ids, now, rules, last_touched, kept_until)
    news.sort(key=lambda n: (-worth.one(n.per_day, n.currency), n.name))
    left.sort(key=lambda s: (-worth.one(s.per_month, s.currency), s.name))
    projects = spending(instances, storage, now, budgets, timelines) if spend else []
    return Digest(
        news,
        left,
        projects,
        {c: round(a, 2) for c, a in sorted(saved.items()) if a > 0},
        _found(instances, storage, worth),
        lifecycle=sorted(ends, key=lambda e: (e.release_at, e.name)),
        worth=worth,
    )
