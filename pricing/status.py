"""Per-source state of the cache: last success, rows, age against the TTL, last error."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel

from pricing import cache
from pricing.offers import Freshness, as_offers
from pricing.sources import Source
from pricing.sqlite_db import PriceDb


class SourceState(BaseModel):
    source: str
    description: str
    rows: int
    last_success: datetime | None
    age_days: float | None
    ttl_hours: float
    stale: bool  # never loaded, past its TTL, or holding rows past theirs
    stale_rows: int = 0  # rows past their TTL (reference prices age from the date they were quoted)
    last_error: str | None
    last_attempt: datetime | None
    note: str | None = None  # what the last successful load left out (offers skipped)


def source_status(db: PriceDb, sources: Iterable[Source], now: datetime) -> list[SourceState]:
    states = []
    for source in sources:
        ok = cache.last_run(db, source.name, "ok")
        last = cache.last_run(db, source.name)
        success = datetime.fromisoformat(ok["finished_at"]) if ok else None
        age = (now - success).total_seconds() / 86400 if success else None
        rows = len(cache.load_fx(db)) if source.fetch_fx else cache.count_prices(db, source.name)
        stale_rows = (
            0
            if source.fetch_fx
            else sum(
                o.stale
                for o in as_offers(
                    cache.load_prices(db, source=source.name),
                    {source.name: Freshness(source.ttl, source.age_from_effective_date)},
                    now,
                )
            )
        )
        states.append(
            SourceState(
                source=source.name,
                description=source.description,
                rows=rows,
                last_success=success,
                age_days=round(age, 3) if age is not None else None,
                ttl_hours=source.ttl.total_seconds() / 3600,
                stale=success is None or (now - success) > source.ttl or stale_rows > 0,
                stale_rows=stale_rows,
                last_error=last["error"] if last and last["status"] == "failed" else None,
                last_attempt=datetime.fromisoformat(last["started_at"]) if last else None,
                note=ok.get("note") if ok else None,
            )
        )
    return states
