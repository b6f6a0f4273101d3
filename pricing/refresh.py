"""Refreshing one source into the cache: retries with back-off, a refresh-runs record, never a crash."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from pricing import cache
from pricing.errors import PricingError, TransientSourceError
from pricing.sources import Source
from pricing.sqlite_db import PriceDb

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 60.0


@dataclass(frozen=True)
class RefreshResult:
    source: str
    ok: bool
    rows: int
    attempts: int
    error: str | None = None


def refresh(
    db: PriceDb,
    source: Source,
    *,
    now: Callable[[], datetime] = cache.now_utc,
    sleep: Callable[[float], None] = time.sleep,
) -> RefreshResult:
    """Refresh `source` once. Transient failures (timeout, 429, 5xx) are retried `source.retries` times
    with exponential back-off (or the server's Retry-After). On any failure the cached prices of the
    source stay as they were and the run is recorded as failed with its error."""
    run_id = cache.start_run(db, source.name, now())
    inputs = source.inputs() if source.inputs is not None else None
    attempts = 0
    while True:
        attempts += 1
        try:
            rows = _load(db, source, now())
        except TransientSourceError as exc:
            if attempts <= source.retries:
                delay = exc.retry_after if exc.retry_after is not None else source.backoff_s * 2 ** (attempts - 1)
                log.info("refresh of %s failed (%s); retrying in %.1fs", source.name, exc, delay)
                sleep(min(delay, MAX_BACKOFF_S))
                continue
            return _failed(db, run_id, source, attempts, str(exc), now, inputs)
        except PricingError as exc:
            return _failed(db, run_id, source, attempts, str(exc), now, inputs)
        except Exception as exc:  # a bug must not take the scheduler or the server down
            ref = uuid.uuid4().hex[:8]
            log.exception("refresh of %s crashed (error id %s)", source.name, ref)
            error = f"internal error {ref}: {type(exc).__name__}: {exc}"
            return _failed(db, run_id, source, attempts, error, now, inputs)
        note = source.note() if source.note else None
        cache.finish_run(db, run_id, now(), rows=rows, error=None, note=note, inputs=inputs)
        log.info("refreshed %s: %d rows", source.name, rows)
        return RefreshResult(source.name, True, rows, attempts)


def _load(db: PriceDb, source: Source, at: datetime) -> int:
    if source.fetch_fx is not None:
        cache.save_fx(db, source.fetch_fx(at))
        return 1
    assert source.fetch is not None
    return cache.replace_source(db, source.name, source.fetch(at))


def _failed(
    db: PriceDb,
    run_id: int,
    source: Source,
    attempts: int,
    error: str,
    now: Callable[[], datetime],
    inputs: str | None = None,
) -> RefreshResult:
    log.warning("refresh of %s failed after %d attempt(s): %s", source.name, attempts, error)
    cache.finish_run(db, run_id, now(), rows=0, error=error, inputs=inputs)
    return RefreshResult(source.name, False, 0, attempts, error)
