from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.price_book import build_sources, http_client
from bot.server.jobs import build_scheduler, refresh_job
from bot.settings import Settings
from pricing import cache
from tests.support.bundled import BUNDLED_EXTRAS, BUNDLED_ROWS

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def sources(tmp_path: Path) -> list:  # type: ignore[type-arg]
    settings = Settings(
        db=tmp_path / "a.db",
        refresh_azure_hours=6,
        refresh_ratecard_hours=24,
        refresh_ecb_hours=12,
        feed=str(tmp_path / "feed.csv"),
    )
    return build_sources(settings, http_client(settings))


def test_one_job_per_source_on_its_own_interval(tmp_path: Path) -> None:
    scheduler = build_scheduler(sources(tmp_path), lambda: cache.open_db(tmp_path / "a.db"), now=NOW)
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert set(jobs) == {"refresh:ratecard", "refresh:azure", "refresh:feed", "refresh:ecb"}
    assert jobs["refresh:azure"].trigger.interval == timedelta(hours=6)
    assert jobs["refresh:ratecard"].trigger.interval == timedelta(hours=24)
    assert jobs["refresh:ecb"].trigger.interval == timedelta(hours=12)
    for job in jobs.values():
        assert job.max_instances == 1  # no overlapping runs of one source
        assert job.coalesce  # missed runs coalesce
        assert 0 < job.trigger.jitter <= 300
        assert job.next_run_time == NOW + timedelta(seconds=5)


def test_job_refreshes_into_the_database(tmp_path: Path) -> None:
    ratecard = sources(tmp_path)[0]
    result = refresh_job(lambda: cache.open_db(tmp_path / "a.db"), ratecard)
    assert result.ok and result.rows == BUNDLED_ROWS  # GPU prices, as `prices status` counts the source's rows
    db = cache.open_db(tmp_path / "a.db")
    assert cache.count_prices(db, "ratecard") == BUNDLED_ROWS
    assert len(cache.load_extras(db)) == BUNDLED_EXTRAS  # its storage and traffic rows, kept beside them


def test_running_scheduler_refreshes_and_a_failing_source_does_not_stop_it(tmp_path: Path) -> None:
    # the feed file does not exist: that source fails, the rate card still loads
    all_sources = [s for s in sources(tmp_path) if s.name in ("ratecard", "feed")]
    scheduler = build_scheduler(
        all_sources, lambda: cache.open_db(tmp_path / "a.db"), first_run_in=timedelta(seconds=0)
    )
    scheduler.start()
    try:
        deadline = time.monotonic() + 30  # a loaded CI machine: the loop ends as soon as both ran
        while time.monotonic() < deadline:
            db = cache.open_db(tmp_path / "a.db")
            finished = [r for r in cache.runs(db) if r["status"] != "running"]
            db.close()
            if len(finished) >= 2:
                break
            time.sleep(0.05)
    finally:
        scheduler.shutdown(wait=True)
    statuses = {r["source"]: r["status"] for r in cache.runs(cache.open_db(tmp_path / "a.db"))}
    assert statuses == {"ratecard": "ok", "feed": "failed"}
