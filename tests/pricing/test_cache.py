from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from pricing import cache
from pricing.errors import RecordError, SourceError, TransientSourceError
from pricing.fx import FxRate
from pricing.records import PriceRecord
from pricing.refresh import refresh
from pricing.sources import Source, ecb_source, rate_card_records
from pricing.sqlite_db import PriceDb
from pricing.status import source_status
from tests.support.bundled import BUNDLED_ROWS

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
DATA = Path(__file__).parents[1] / "data"


@pytest.fixture
def db() -> Iterator[PriceDb]:
    database = cache.open_db(":memory:")
    yield database
    database.close()


def record(amount: float, *, model: str = "on-demand", source: str = "feed", instance: str = "x1") -> PriceRecord:
    return PriceRecord(
        source=source,
        provider="acme",
        instance_type=instance,
        gpu="A100-80GB",
        gpu_count=1,
        pricing_model=model,
        amount=amount,
        currency="CNY",
        unit="hour",
        fetched_at=NOW,
        provenance="test",
    )


def feed(*records: PriceRecord) -> Source:
    return Source("feed", timedelta(hours=48), timedelta(hours=6), fetch=lambda now: list(records))


def test_replace_source_swaps_only_that_source(db: PriceDb) -> None:
    cache.replace_source(db, "ratecard", rate_card_records([], NOW))
    cache.replace_source(db, "feed", [record(12), record(13, instance="x2")])
    cache.replace_source(db, "feed", [record(11)])
    assert [r.amount for r in cache.load_prices(db, source="feed")] == [11]
    assert cache.count_prices(db, "ratecard") == BUNDLED_ROWS


def test_refresh_failing_half_way_keeps_previous_prices(db: PriceDb) -> None:
    cache.replace_source(db, "feed", [record(12), record(13, instance="x2")])

    def broken(now: datetime) -> Iterator[PriceRecord]:
        yield record(20)
        yield record(21, instance="x2")
        raise RecordError("feed.csv", 3, "amount", "required value is missing")

    result = refresh(db, Source("feed", timedelta(hours=1), timedelta(hours=1), fetch=broken, retries=0))
    assert not result.ok
    assert "feed.csv, row 3" in (result.error or "")
    assert sorted(r.amount for r in cache.load_prices(db, source="feed")) == [12, 13]


def test_failure_after_many_chunks_rolls_back_all_of_them(db: PriceDb, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "CHUNK", 2)
    cache.replace_source(db, "feed", [record(12)])

    def long_then_broken(now: datetime) -> Iterator[PriceRecord]:
        for i in range(7):
            yield record(10 + i, instance=f"x{i}")
        raise SourceError("connection dropped")

    refresh(db, Source("feed", timedelta(hours=1), timedelta(hours=1), fetch=long_then_broken, retries=0))
    assert [r.amount for r in cache.load_prices(db, source="feed")] == [12]


def test_spot_above_on_demand_is_flagged(db: PriceDb) -> None:
    cache.replace_source(
        db,
        "feed",
        [record(10), record(12, model="spot"), record(3, model="spot", instance="x2"), record(9, instance="x2")],
    )
    flags = {(r.instance_type, r.pricing_model): r.flags for r in cache.load_prices(db)}
    assert flags[("x1", "spot")] == "spot_above_on_demand"
    assert flags[("x2", "spot")] == ""


def test_every_attempt_is_recorded(db: PriceDb) -> None:
    refresh(db, feed(record(12)), now=lambda: NOW)
    refresh(
        db,
        Source(
            "feed",
            timedelta(hours=1),
            timedelta(hours=1),
            fetch=lambda now: (_ for _ in ()).throw(SourceError("HTTP 404 from x")),
            retries=0,
        ),
        now=lambda: NOW,
    )
    runs = cache.runs(db, "feed")
    assert [(r["status"], r["rows"], r["error"]) for r in runs] == [("failed", 0, "HTTP 404 from x"), ("ok", 1, None)]
    assert all(r["started_at"] and r["finished_at"] for r in runs)


def test_transient_failures_are_retried_with_backoff(db: PriceDb) -> None:
    calls, sleeps = [], []

    def flaky(now: datetime) -> list[PriceRecord]:
        calls.append(now)
        if len(calls) < 3:
            raise TransientSourceError("HTTP 503", retry_after=None if len(calls) == 1 else 5)
        return [record(12)]

    result = refresh(
        db,
        Source("feed", timedelta(hours=1), timedelta(hours=1), fetch=flaky, retries=2, backoff_s=2),
        sleep=sleeps.append,
    )
    assert result.ok and result.attempts == 3
    assert sleeps == [2, 5]  # back-off first, then the server's Retry-After


def test_retries_give_up_and_keep_prices(db: PriceDb) -> None:
    cache.replace_source(db, "feed", [record(12)])

    def down(now: datetime) -> list[PriceRecord]:
        raise TransientSourceError("HTTP 429", retry_after=1)

    result = refresh(
        db, Source("feed", timedelta(hours=1), timedelta(hours=1), fetch=down, retries=2), sleep=lambda s: None
    )
    assert (result.ok, result.attempts) == (False, 3)
    assert cache.count_prices(db, "feed") == 1


def test_a_bug_in_a_source_is_recorded_not_raised(db: PriceDb) -> None:
    def buggy(now: datetime) -> list[PriceRecord]:
        raise KeyError("oops")

    result = refresh(db, Source("feed", timedelta(hours=1), timedelta(hours=1), fetch=buggy))
    assert not result.ok
    assert "internal error" in (result.error or "") and "KeyError" in (result.error or "")


def test_ecb_refresh_stores_the_rate(db: PriceDb) -> None:
    xml = (DATA / "ecb.xml").read_text()
    client = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, text=xml)))
    result = refresh(
        db, ecb_source(client, "https://ecb.test/rates.xml", ttl=timedelta(days=3), interval=timedelta(days=1))
    )
    assert result.ok
    (rate,) = cache.load_fx(db)
    assert rate.rate == pytest.approx(7.5296 / 1.04)
    assert rate.rate_date.isoformat() == "2026-11-27"


def test_status_reports_age_rows_and_last_error(db: PriceDb) -> None:
    source = feed(record(12))
    refresh(db, source, now=lambda: NOW - timedelta(hours=50))
    failing = Source(
        "feed",
        timedelta(hours=48),
        timedelta(hours=6),
        fetch=lambda now: (_ for _ in ()).throw(SourceError("HTTP 500 from feed")),
        retries=0,
    )
    refresh(db, failing, now=lambda: NOW)
    (state,) = source_status(db, [source], NOW)
    assert state.rows == 1
    assert state.stale  # last success 50 h ago, TTL 48 h
    assert state.age_days == pytest.approx(50 / 24, abs=0.01)
    assert state.last_error == "HTTP 500 from feed"


def test_save_fx_replaces_that_sources_rate(db: PriceDb) -> None:
    cache.save_fx(db, FxRate(rate=7.1, rate_date=NOW.date(), source="ecb"))
    cache.save_fx(db, FxRate(rate=7.2, rate_date=NOW.date(), source="ecb"))
    assert [r.rate for r in cache.load_fx(db)] == [7.2]


def test_file_database_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "prices.db"
    first = cache.open_db(path)
    cache.replace_source(first, "feed", [record(12)])
    first.close()
    again = cache.open_db(path)
    assert cache.count_prices(again, "feed") == 1
    again.close()


def test_a_cache_at_this_schema_opens_while_a_refresh_holds_the_write_lock(tmp_path: Path) -> None:
    """A quote opening the cache does not wait for the lock a refresh holds: its schema is read, not checked
    again under the lock. (The timeout is cut to 0.2 s: a wait would fail the open.)"""
    path = tmp_path / "prices.db"
    cache.open_db(path).close()
    refreshing = sqlite3.connect(path)
    refreshing.execute("BEGIN IMMEDIATE")
    try:
        opened = PriceDb(sqlite3.connect(path, timeout=0.2))
        cache.ensure_schema(opened)
        opened.close()
    finally:
        refreshing.rollback()
        refreshing.close()


def test_a_cache_an_older_release_made_is_brought_up_once(tmp_path: Path) -> None:
    """A cache made before run notes, local sources' inputs and tiered prices were kept (schema version 0) gains
    their columns when opened, keeps its rows, and is marked at this release's version."""
    path = tmp_path / "prices.db"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE prices (source TEXT NOT NULL, gpu TEXT NOT NULL, amount FLOAT NOT NULL, currency TEXT)")
    old.execute("CREATE TABLE refresh_runs (id INTEGER PRIMARY KEY, source TEXT, started_at TEXT, status TEXT)")
    old.execute("INSERT INTO prices VALUES ('feed', 'A100-80GB', 12.0, 'CNY')")
    old.commit()
    old.close()
    db = cache.open_db(path)
    assert {"amount_after_96h", "amount_after_360h"} <= set(db.utils.table(cache.PRICES).columns_dict)
    assert {"note", "inputs"} <= set(db.utils.table(cache.RUNS).columns_dict)
    assert cache.count_prices(db, "feed") == 1
    assert db.execute("PRAGMA user_version").fetchone()[0] == cache.SCHEMA_VERSION
    db.close()


def test_the_rate_card_template_reads_as_a_rate_card_with_storage_and_egress(tmp_path: Path) -> None:
    """pricing/data/ratecard.example.csv: what a team fills in for its own platform, read by the same reader once
    filled in; loaded unedited, its sample prices are refused naming the file and the row (issue 34.19)."""
    from datetime import UTC, datetime

    from pricing.errors import RecordError
    from pricing.sources import read_price_file

    template = Path(__file__).parents[2] / "pricing" / "data" / "ratecard.example.csv"
    with pytest.raises(RecordError) as unedited:
        list(read_price_file(template, str(template), "ratecard", datetime.now(UTC)))
    assert "row 1" in str(unedited.value) and "REPLACE:" in str(unedited.value) and str(template) in str(unedited.value)
    path = tmp_path / "ours.csv"
    path.write_text(template.read_text(encoding="utf-8").replace("REPLACE: ", "our list, 2026-12: "), encoding="utf-8")
    rows = list(read_price_file(path, str(path), "ratecard", datetime.now(UTC)))
    assert [str(r.unit) for r in rows] == ["hour", "day", "month", "hour", "hour", "hour", "gb-month", "gb"]
    assert {str(r.pricing_model) for r in rows[:6]} == {"on-demand", "daily", "monthly", "spot"}  # the GPU rows


def test_a_refresh_counts_the_rows_status_counts(db: PriceDb) -> None:
    """The bundled card's refresh said 20 rows and its status 16: its storage and traffic rows were counted in one."""
    written = cache.replace_source(db, "ratecard", rate_card_records([], NOW))
    assert written == cache.count_prices(db, "ratecard") and cache.load_extras(db)  # extras kept, not counted
