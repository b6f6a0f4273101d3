"""The background scheduler of the serving process: one refresh job per price source, and the shared jobs.

Every replica runs APScheduler 3 with its own in-memory job store (APScheduler's job stores cannot be
shared between processes). A job whose work is shared (digests, sample retention, pruning) runs
through once(): each run first claims its time slot in the state database, and one replica wins. The
price refreshes are not claimed: each replica refreshes its own local price cache."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger
from sqlite_utils import Database

from pricing.refresh import RefreshResult, refresh
from pricing.sources import Source

if TYPE_CHECKING:
    from bot.state import Store

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
        if not store.claim_job(job, slot):
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


def refresh_job(open_db: Callable[[], Database], source: Source,
                on_refresh: Callable[[RefreshResult], None] | None = None) -> RefreshResult:
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


def build_scheduler(sources: list[Source], open_db: Callable[[], Database], *,
                    first_run_in: timedelta = timedelta(seconds=5), now: datetime | None = None,
                    on_refresh: Callable[[RefreshResult], None] | None = None) -> BackgroundScheduler:
    """A scheduler (not started) with a refresh job per source, each on its own interval with jitter."""
    # APScheduler says a job "executed successfully" whenever it returns, a failed refresh included:
    # refresh() logs each run's real outcome, so the executor's own lines are left to warnings.
    logging.getLogger("apscheduler.executors").setLevel(logging.WARNING)
    scheduler = BackgroundScheduler(timezone=UTC, job_defaults=JOB_DEFAULTS)
    start = (now or datetime.now(UTC)) + first_run_in
    for source in sources:
        scheduler.add_job(
            refresh_job, IntervalTrigger(seconds=int(source.interval.total_seconds()), jitter=jitter_for(source),
                                         timezone=UTC),
            args=[open_db, source, on_refresh], id=f"refresh:{source.name}", name=f"refresh {source.name}",
            next_run_time=start, replace_existing=True, **JOB_DEFAULTS,
        )
    return scheduler
