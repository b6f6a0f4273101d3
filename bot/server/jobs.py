"""The table of jobs of the serving process (jobs_of), one refresh job per price source, and the scheduler.

Every replica runs APScheduler 3 with its own in-memory job store (APScheduler's job stores cannot be
shared between processes). A job whose work is shared (digests, sample retention, pruning) runs
through once(): each run first claims its time slot in the state database, and one replica wins. The
price refreshes are not claimed: each replica refreshes its own local price cache."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from bot.state.job_runs import JobRuns
from pricing.refresh import RefreshResult, refresh
from pricing.sources import Source
from pricing.sqlite_db import PriceDb

if TYPE_CHECKING:
    from bot.chat.port import Teller
    from bot.deps import Deps
    from bot.discover.cloud import Cloud
    from bot.server.chats import Chats
    from bot.server.doors import FrontDoor
    from bot.settings import Settings
    from bot.state import Store
    from bot.text.lang import Lang

log = logging.getLogger(__name__)


def slot_of(moment: datetime, every: timedelta) -> str:
    """The start of the `every`-long slot `moment` falls in, as a sortable UTC text."""
    step = every.total_seconds()
    start = datetime.fromtimestamp(moment.timestamp() // step * step, UTC)
    return start.isoformat(timespec="seconds")


def once(store: Store, job: str, every: timedelta, work: Callable[[], object]) -> Callable[[], bool]:
    """`work` run at most once per `every` across every replica sharing `store`: the run that claims the
    slot does it, the others return at once. The wrapper returns whether this replica ran it."""

    def run() -> bool:
        slot = slot_of(store.now(), every)
        if not JobRuns(store).claim(job, slot):
            log.debug("%s: slot %s already run by another replica", job, slot)
            return False
        work()
        return True

    return run


JOB_DEFAULTS = {
    "coalesce": True,  # runs missed while the process slept collapse into one
    "max_instances": 1,  # never two refreshes of one source at once
    "misfire_grace_time": 3600,
}
MAX_JITTER_S = 300


def refresh_job(
    open_db: Callable[[], PriceDb], source: Source, on_refresh: Callable[[RefreshResult], None] | None = None
) -> RefreshResult:
    """One scheduled refresh, on its own connection (APScheduler runs jobs on worker threads)."""
    db = open_db()
    try:
        result = refresh(db, source)
    finally:
        db.close()
    if on_refresh is not None:
        on_refresh(result)
    return result


def jitter_for(source: Source) -> int:
    return int(min(source.interval.total_seconds() * 0.1, MAX_JITTER_S))


def build_scheduler(
    sources: list[Source],
    open_db: Callable[[], PriceDb],
    *,
    first_run_in: timedelta = timedelta(seconds=5),
    now: datetime | None = None,
    on_refresh: Callable[[RefreshResult], None] | None = None,
) -> BackgroundScheduler:
    """A scheduler (not started) with a refresh job per source, each on its own interval with jitter."""
    # APScheduler says a job "executed successfully" whenever it returns, a failed refresh included:
    # refresh() logs each run's real outcome, so the executor's own lines are left to warnings.
    logging.getLogger("apscheduler.executors").setLevel(logging.WARNING)
    scheduler = BackgroundScheduler(timezone=UTC, job_defaults=JOB_DEFAULTS)
    start = (now or datetime.now(UTC)) + first_run_in
    for source in sources:
        scheduler.add_job(
            refresh_job,
            IntervalTrigger(seconds=int(source.interval.total_seconds()), jitter=jitter_for(source), timezone=UTC),
            args=[open_db, source, on_refresh],
            id=f"refresh:{source.name}",
            name=f"refresh {source.name}",
            next_run_time=start,
            replace_existing=True,
            **JOB_DEFAULTS,
        )
    return scheduler


@dataclass(frozen=True)
class Job:
    """One row of the table of jobs: what runs, how often, and whether one replica runs it for all."""

    id: str
    name: str
    every: timedelta
    work: Callable[[], object]
    shared: timedelta | None = None  # claimed per slot of this length: one replica runs it for all
    at_start: bool = False  # also once at start-up
    past: timedelta | None = None  # run this far into each slot of `every` by the clock, not `every` from start-up


def trigger_of(job: Job, now: datetime) -> tuple[IntervalTrigger, datetime | None]:
    """The job's trigger, and its first run when that is not the trigger's (`at_start`: now). A job with `past`
    runs that far into each of its slots (the slots of `every` since 1970 in UTC: each whole hour, for an hourly
    one), whenever serve started."""
    start = now + job.every  # as APScheduler's own default: an interval after start-up
    if job.past is not None:
        step = job.every.total_seconds()
        start = datetime.fromtimestamp((now.timestamp() // step + 1) * step, UTC) + job.past
    trigger = IntervalTrigger(seconds=job.every.total_seconds(), start_date=start, timezone=UTC)
    return trigger, (now if job.at_start else None)


def jobs_of(settings: Settings, deps: Deps, doors: Sequence[FrontDoor] = ()) -> list[Job]:
    """Every job `serve` runs besides the price refreshes (one per source, build_scheduler), in one table.
    The job ids are the names in job_runs: operators' queries read them, so they do not change."""
    from bot.actions.due import run_actions
    from bot.board.keep_days import keep_days
    from bot.digest.due import budgets_due, run_due, runways_due
    from bot.server.chats import Chats
    from bot.server.prometheus import pull_prometheus
    from bot.state.inbox import KEPT
    from bot.state.retention import compact

    store, minute, hour = deps.store, timedelta(minutes=1), timedelta(hours=1)

    chats = Chats([door.wing() for door in doors])
    outlets, tellers = chats.outlet, chats.teller

    # each stalled item is claimed on its own (the replica that took it, or one taking over a dead one's)
    redo_every = timedelta(seconds=max(1.0, min(60.0, settings.serve.redo_after_s / 2)))
    # the table of jobs, one row a job, as written (not laid out by ruff format)
    # fmt: off
    table = [
        Job("inbox:redo", "redo work that did not reach its chat", redo_every,
            lambda: sum(door.redo_stalled() for door in doors)),  # each chat's front door redoes its own
        # every minute, and once at start-up: a digest missed while down goes out if its local day is not over
        Job("reminders:due", "send the daily digests that are due", minute, lambda: run_due(deps, outlets),
            shared=minute, at_start=True),
        Job("budgets:check", "tell projects' channels of budget thresholds crossed", minute,
            lambda: budgets_due(deps, tellers), shared=minute),
        Job("balances:check", "tell providers' channels of a prepaid balance running out", minute,
            lambda: runways_due(deps, tellers), shared=minute),
        Job("reports:weekly", "post each channel's weekly report on its day", minute,
            lambda: weekly_reports(deps, tellers), shared=minute),
        Job("actions:due", "judge warnings past their deadline again, and stop what stayed idle", minute,
            lambda: run_actions(deps, tellers), shared=minute),
        # also at start-up: a serve restarted within the hour again and again would otherwise never fold, and the
        # reports would read ever more raw samples (one replica an hour slot, as on the hour). Just after each whole
        # hour, which is midnight in some zone: the day that ended has its samples folded before its days are kept.
        Job("samples:compact", "fold new GPU samples into their hours, delete old ones", hour,
            lambda: compact(store, deps.now(), raw_days=settings.samples.samples_raw_days,
                            hourly_days=settings.samples.samples_hourly_days), shared=hour, at_start=True,
            past=timedelta(seconds=10)),
        # also at start-up: the first hour after a deploy, a board would otherwise make (and keep) its days itself;
        # just after the fold of each whole hour, so the first board after a zone's midnight finds its day kept
        Job("reports:keep-days", "make and keep each team's ended days before its board or report asks", hour,
            lambda: keep_days(deps), shared=hour, at_start=True, past=timedelta(seconds=40)),
        Job("inbox:prune", "forget finished requests and job claims older than a week", 6 * hour,
            lambda: (deps.inbox.prune(KEPT), JobRuns(store).prune(KEPT)), shared=timedelta(days=1)),
    ]
    # fmt: on
    table += cloud_jobs(settings, deps, doors, chats)
    # Alibaba Cloud's balance, and AutoDL's with its Pro instances, are read with their discovery
    if settings.discovery.autodl_token is not None and not settings.discovery.autodl_pro:
        span = timedelta(minutes=settings.discovery.discover_every_minutes)
        table.append(
            Job(
                "balances:read",
                "read AutoDL's wallet balance as its prepaid balance",
                span,
                balance_job(settings, deps, doors),
                shared=span,
                at_start=True,
            )
        )
    if settings.samples.prometheus_url:
        every, url = settings.samples.prometheus_every_minutes, settings.samples.prometheus_url
        table.append(
            Job(
                "samples:prometheus",
                "pull DCGM samples from Prometheus",
                timedelta(minutes=every),
                lambda: pull_prometheus(deps, url, every),
                shared=timedelta(minutes=every),
                at_start=True,
            )
        )
    return table


def weekly_reports(deps: Deps, tellers: Callable[[str], Teller]) -> list[str]:
    """The weekly reports due now, in each channel's zone and language, at its digest time."""
    from bot.digest.send import channels_of
    from bot.report.post import weekly_due
    from bot.state.rentals import Rentals
    from bot.state.schedules import Schedules
    from bot.text import Lang

    rentals = Rentals(deps.store)
    schedules = Schedules(deps.store, deps.settings.digest.default_schedule())
    return weekly_due(
        rentals,
        tellers,
        deps.now(),
        report_day=deps.settings.digest.report_day,
        schedules=schedules.of,
        lang_of=lambda plan: Lang.named_or(plan.lang, deps.settings.files.lang),
        busy_above_pct=deps.policy.idle.utilisation_max_pct,
        channels=lambda team: channels_of(rentals, team),
        worth=deps.prices.worth(),
    )


def cloud_jobs(settings: Settings, deps: Deps, doors: Sequence[FrontDoor], chats: Chats) -> list[Job]:
    """Each cloud turned on: its discovery every GPU_ADVISOR_DISCOVER_EVERY_MINUTES and, between scans, its GPU
    metrics every GPU_ADVISOR_ACTIVITY_EVERY_MINUTES."""
    from bot.discover.registry import clouds

    out = []
    span = timedelta(minutes=settings.discovery.discover_every_minutes)
    often = timedelta(minutes=settings.discovery.activity_every_minutes)
    for name, make in clouds(settings).items():
        scan = discovery_job(settings, deps, doors, chats, make)
        out.append(Job(f"discover:{name}", f"find GPU instances and unattached disks in {name}", span, scan,
                       shared=span, at_start=True))  # fmt: skip
        read = activity_job(deps, make)
        out.append(Job(f"activity:{name}", f"read {name}'s GPU metrics between scans", often, read, shared=often))
    return out


ACTIVITY_READ = timedelta(minutes=15)  # a read between scans: the last quarter hour (the metrics come late)


def activity_job(deps: Deps, make: Callable[[], Cloud]) -> Callable[[], object]:
    """serve's `activity:<cloud>`: each team's running instances of that cloud, their GPU metrics of the last
    quarter hour as samples (the idle rule wants a sample at most 10 minutes old; a scan comes every 30)."""
    from bot.discover.run import read_activity
    from bot.state.rentals import Rentals

    def work() -> object:
        rentals, now = Rentals(deps.store), deps.now()
        cloud = make()
        problems = {}
        for team in rentals.teams():
            problem = read_activity(cloud, rentals, team, now, window=ACTIVITY_READ)
            if problem is not None:
                problems[team] = problem
        return problems

    return work


def discovery_job(
    settings: Settings,
    deps: Deps,
    doors: Sequence[FrontDoor] = (),
    chats: Chats | None = None,
    make: Callable[[], Cloud] | None = None,
) -> Callable[[], object]:
    """serve's discovery run of one cloud (`make`; default AWS): into GPU_ADVISOR_DISCOVER_TEAM, else the bot
    token's team (asked once)."""
    from bot.discover.registry import clouds
    from bot.discover.run import discover

    chosen: list[str] = [settings.discovery.discover_team] if settings.discovery.discover_team else []

    def work() -> object:
        if not chosen:
            found = default_team(doors)
            if found is None:  # a chat down, or several teams: said, tried again next run
                log.warning("discovery skipped: no team to keep items in (set GPU_ADVISOR_DISCOVER_TEAM)")
                return None
            chosen.append(found)
        team = chosen[0]  # owners' addresses looked up in the team's chat (Slack's users, Feishu's contacts)
        find_owner = (lambda email: chats.person(team, email)) if chats is not None else None
        cloud = make() if make is not None else clouds(settings)["aws"]()
        report = discover(
            settings,
            deps.store,
            team,
            deps.now(),
            offers=deps.gpu_offers,
            cloud=cloud,
            find_owner=find_owner,
        )
        if report.applied.repriced and chats is not None:
            from bot.digest.due import channel_langs

            tell_repriced(report, chats, team, channel_langs(deps))
        log.info(
            "%s discovery: %d items, %d new, %d gone, %d deleted%s",
            cloud.name,
            len(report.items),
            len(report.applied.new),
            len(report.applied.released),
            len(report.applied.deleted),
            "".join(f"; {k}: {v}" for k, v in report.problems.items()),
        )
        return report

    return work


def tell_repriced(report: Any, chats: Chats, team: str, lang_of: Callable[[str, str], Lang]) -> None:
    """Each item a scan priced again, said once in its channel ("a10-box: now ¥11.73/hour, was ¥9.46/hour, from
    aliyun"): the hours before stay at the price they had. A chat that cannot take it is logged; the price holds."""
    from bot.chat.port import tell_each
    from bot.text import t
    from bot.text.format import money

    channels = {i.name: i.channel for i in report.items}
    texts: dict[str, list[str]] = {}
    for name, before, now, unit, currency in report.applied.repriced:
        channel = channels.get(name)
        if not channel:
            continue
        lang = lang_of(team, channel)
        was = money(before, currency) if before is not None else t("digest.no_price", lang)
        line = t("discover.repriced", lang, name=name, price=money(now, currency), unit=t(f"word.per.{unit}", lang),
                 was=was, source=report.source)  # fmt: skip
        texts.setdefault(channel, []).append(line)
    try:
        teller = chats.teller(team)
    except LookupError:
        log.warning("price changes of %s not said: the team's chat is not reachable", team)
        return
    tell_each(teller, {c: "\n".join(lines) for c, lines in texts.items()}, "price change")


def balance_job(settings: Settings, deps: Deps, doors: Sequence[FrontDoor]) -> Callable[[], object]:
    """serve's reading of the API balances discovery does not read (AutoDL's wallet), into
    GPU_ADVISOR_DISCOVER_TEAM, else the one team a chat names (the Slack bot token's team)."""
    from bot.discover.registry import read_balances

    def work() -> object:
        team = settings.discovery.discover_team or default_team(doors)
        if not team:
            log.warning("balance reading skipped: no team (set GPU_ADVISOR_DISCOVER_TEAM)")
            return None
        problems = read_balances(settings, deps.store, team, deps.now(), only=("autodl",))
        for name, problem in problems.items():
            log.warning("%s balance not read: %s", name, problem)
        return problems

    return work


def default_team(doors: Sequence[FrontDoor]) -> str | None:
    """The team the first chat that can say names (Slack: the bot token's team; Feishu: its one team)."""
    for door in doors:
        found = door.default_team()
        if found:
            return found
    return None


def start_jobs(settings: Settings, deps: Deps, doors: Sequence[FrontDoor] = ()) -> BackgroundScheduler:
    """The scheduler of `serve`, started: a refresh per price source, then every job of jobs_of()."""
    from pricing import cache

    scheduler = build_scheduler(
        deps.prices.sources,
        lambda: cache.open_db(settings.files.db),
        on_refresh=lambda r: deps.metrics.refreshes.labels(r.source, "ok" if r.ok else "failed").inc(),
    )
    now = datetime.now(UTC)
    for job in jobs_of(settings, deps, doors):
        work = once(deps.store, job.id, job.shared, job.work) if job.shared else job.work
        trigger, first = trigger_of(job, now)
        start = {"next_run_time": first} if first is not None else {}
        scheduler.add_job(work, trigger, id=job.id, name=job.name, coalesce=True, max_instances=1, **start)
    scheduler.start()
    return scheduler
