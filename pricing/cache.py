"""The SQLite price cache: prices by source, exchange rates, and a log of every refresh attempt."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pricing.errors import CacheUnavailable
from pricing.fx import EuroRates, FxRate
from pricing.records import ExtraPrice, PriceRecord
from pricing.sqlite_db import PriceDb

PRICES = "prices"
EXTRAS = "extra_prices"  # storage by the GB-month, traffic out by the GB
RUNS = "refresh_runs"
FX = "fx_rates"
EURO = "euro_rates"  # every currency the ECB publishes, per euro, of the last fetch
CHUNK = 2000

_PRICE_COLUMNS = {
    "source": str,
    "provider": str,
    "region": str,
    "region_class": str,
    "instance_type": str,
    "gpu": str,
    "gpu_count": float,
    "gpu_memory_gb": float,
    "sharing": str,
    "mig_profile": str,
    "pricing_model": str,
    "amount": float,
    "currency": str,
    "unit": str,
    "fetched_at": str,
    "effective_date": str,
    "provenance": str,
    "basis": str,
    "flags": str,
    "per_gpu_hour": float,
    "amount_after_96h": float,
    "amount_after_360h": float,
}


def open_db(path: Path | str) -> PriceDb:
    """Open (creating if needed) the database at `path` (":memory:" for tests) with the schema in place.

    Raises CacheUnavailable, naming the file, when it cannot be created or is not an SQLite database."""
    if str(path) == ":memory:":
        db = PriceDb(sqlite3.connect(":memory:", check_same_thread=False))
        ensure_schema(db)
        return db
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = PriceDb(sqlite3.connect(str(path), check_same_thread=False, timeout=30))
        db.execute("PRAGMA journal_mode=WAL")
        # A cache, made again from its sources by any refresh: WAL's NORMAL keeps every commit across a crash of the
        # process and only the last ones at a power cut, and spares the fsync SQLite's default (FULL) made at each.
        db.execute("PRAGMA synchronous=NORMAL")
        ensure_schema(db)
    except (OSError, sqlite3.DatabaseError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CacheUnavailable(str(path), reason) from None
    return db


@contextmanager
def readable(path: Path | str) -> Iterator[None]:
    """A cache opened, then unreadable (replaced, corrupt, a failing disk) as CacheUnavailable, naming the file."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise CacheUnavailable(str(path), str(exc)) from None


# The cache's schema as this release makes it, kept in SQLite's user_version. Every quote, list and refresh opens
# the cache: a file already at this version is used as it is, without the write lock and the dozen table and column
# reads that checking it costs (about 2 ms, and a quote waited behind any refresh holding the lock). Raise it with
# every change to _create_tables, so that a cache made by an older release is brought up once.
SCHEMA_VERSION = 1


def ensure_schema(db: PriceDb) -> None:
    """Create missing tables, under the write lock so two processes or threads starting at once agree."""
    if db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return
    with writing(db):
        _create_tables(db)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _create_tables(price_db: PriceDb) -> None:
    db = price_db.utils
    prices, runs, fx = db.table(PRICES), db.table(RUNS), db.table(FX)
    if not prices.exists():
        prices.create(_PRICE_COLUMNS, not_null={"source", "gpu", "amount"})
        prices.create_index(["source", "instance_type", "region", "pricing_model"])
        prices.create_index(["gpu", "sharing", "pricing_model"])
    if not runs.exists():
        runs.create(
            {
                "id": int,
                "source": str,
                "started_at": str,
                "finished_at": str,
                "rows": int,
                "status": str,
                "error": str,
                "note": str,
                "inputs": str,
            },
            pk="id",
        )
        runs.create_index(["source", "started_at"])
    for tier in ("amount_after_96h", "amount_after_360h"):  # caches made before tiered prices were kept
        if tier not in prices.columns_dict:
            prices.add_column(tier, float)
    if "note" not in runs.columns_dict:  # caches made before notes were kept
        runs.add_column("note", str)
    if "inputs" not in runs.columns_dict:  # caches made before local sources' inputs were kept
        runs.add_column("inputs", str)
    extras = db.table(EXTRAS)
    if not extras.exists():
        extras.create(
            {
                "source": str,
                "kind": str,
                "provider": str,
                "region": str,
                "amount": float,
                "currency": str,
                "unit": str,
                "effective_date": str,
                "basis": str,
                "provenance": str,
                "fetched_at": str,
            },
            not_null={"source", "kind", "amount"},
        )
    if not fx.exists():
        fx.create(
            {"source": str, "base": str, "quote": str, "rate": float, "rate_date": str, "fetched_at": str}, pk="source"
        )
    euro = db.table(EURO)
    if not euro.exists():
        euro.create({"source": str, "rates": str, "rate_date": str, "fetched_at": str}, pk="source")


@contextmanager
def writing(db: PriceDb) -> Iterator[PriceDb]:
    """A write transaction that takes the write lock up front (BEGIN IMMEDIATE), so concurrent writers wait
    for each other (busy timeout) instead of failing when a read snapshot cannot be upgraded."""
    if db.conn.in_transaction:
        with db.utils.atomic():
            yield db
        return
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")


def now_utc() -> datetime:
    return datetime.now(UTC)


def _row(record: PriceRecord) -> dict[str, Any]:
    row = record.model_dump(mode="json")
    row["per_gpu_hour"] = record.per_gpu_hour
    return row


def replace_source(db: PriceDb, source: str, records: Iterable[PriceRecord | ExtraPrice]) -> int:
    """Replace every cached price of `source` with `records`, all or nothing.

    Records are streamed into the table in chunks inside one transaction: if reading or validating
    any of them raises, the transaction rolls back and the previous prices stay as they were.
    Returns the number of GPU price rows written, as `prices status` counts a source's rows (its storage and
    traffic rows beside them are not: a refresh said 20 rows of the bundled card, its status 16).
    """
    count = 0
    table = db.utils.table(PRICES)
    with writing(db):
        db.execute(f"DELETE FROM {PRICES} WHERE source = ?", [source])
        db.execute(f"DELETE FROM {EXTRAS} WHERE source = ?", [source])
        iterator: Iterator[PriceRecord | ExtraPrice] = iter(records)
        while chunk := list(itertools.islice(iterator, CHUNK)):
            for record in chunk:
                if record.source != source:
                    raise ValueError(f"record of source {record.source!r} in a refresh of {source!r}")
            table.insert_all((_row(r) for r in chunk if isinstance(r, PriceRecord)), batch_size=CHUNK)
            extras = [r.model_dump(mode="json") for r in chunk if isinstance(r, ExtraPrice)]
            if extras:
                db.utils.table(EXTRAS).insert_all(extras)
            count += sum(isinstance(r, PriceRecord) for r in chunk)
        _flag_spot_above_on_demand(db, source)
    return count


def load_extras(db: PriceDb) -> list[ExtraPrice]:
    """Every cached storage and egress price."""
    fields = set(ExtraPrice.model_fields)
    return [
        ExtraPrice.model_validate({k: v for k, v in row.items() if k in fields and v is not None})
        for row in db.rows(f"SELECT * FROM {EXTRAS} ORDER BY kind, amount")
    ]


def _flag_spot_above_on_demand(db: PriceDb, source: str) -> None:
    db.execute(
        f"""UPDATE {PRICES} SET flags = 'spot_above_on_demand'
            WHERE source = :s AND pricing_model = 'spot' AND EXISTS (
              SELECT 1 FROM {PRICES} o WHERE o.source = :s AND o.pricing_model = 'on-demand'
                AND o.instance_type = {PRICES}.instance_type AND o.region = {PRICES}.region
                AND o.currency = {PRICES}.currency AND o.amount < {PRICES}.amount)""",
        {"s": source},
    )


def count_prices(db: PriceDb, source: str | None = None) -> int:
    if source:
        return int(db.execute(f"SELECT count(*) FROM {PRICES} WHERE source = ?", [source]).fetchone()[0])
    return int(db.execute(f"SELECT count(*) FROM {PRICES}").fetchone()[0])


def load_prices(db: PriceDb, gpu: str | None = None, source: str | None = None) -> list[PriceRecord]:
    """Cached prices, of one GPU and one source if given (a family's name, e.g. "gpuhunt", takes all its
    sources: gpuhunt:aws, gpuhunt:runpod, ...)."""
    clauses, args = [], []
    if gpu:
        clauses.append("gpu = ?")
        args.append(gpu)
    if source:
        clauses.append("(source = ? OR source LIKE ? ESCAPE '\\')")
        args += [source, source.replace("%", "\\%").replace("_", "\\_") + ":%"]
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    rows = db.rows(f"SELECT * FROM {PRICES}{where} ORDER BY gpu, sharing, pricing_model, per_gpu_hour", args)
    fields = set(PriceRecord.model_fields)
    return [PriceRecord.model_validate({k: v for k, v in row.items() if k in fields and v is not None}) for row in rows]


def priced_gpus(db: PriceDb) -> list[str]:
    """The GPUs the cache has a price for, by name: what a GPU without one is told to choose among."""
    return [str(row["gpu"]) for row in db.rows(f"SELECT DISTINCT gpu FROM {PRICES} ORDER BY gpu")]


def start_run(db: PriceDb, source: str, started: datetime) -> int:
    with writing(db):
        db.utils.table(RUNS).insert({"source": source, "started_at": started.isoformat(), "status": "running"})
    return int(db.execute("SELECT last_insert_rowid()").fetchone()[0])


def finish_run(
    db: PriceDb,
    run_id: int,
    finished: datetime,
    *,
    rows: int,
    error: str | None,
    note: str | None = None,
    inputs: str | None = None,
) -> None:
    """`note`: what a successful load left out (offers skipped), shown with the source's status; `inputs`: what a
    local source read (Source.inputs), so a change to them is seen."""
    with writing(db):
        db.utils.table(RUNS).update(
            run_id,
            {
                "finished_at": finished.isoformat(),
                "rows": rows,
                "status": "failed" if error else "ok",
                "error": error,
                "note": note,
                "inputs": inputs,
            },
        )


def runs(db: PriceDb, source: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
    where, args = (" WHERE source = ?", [source]) if source else ("", [])
    return db.rows(f"SELECT * FROM {RUNS}{where} ORDER BY id DESC LIMIT ?", [*args, limit])


def last_run(db: PriceDb, source: str, status: str | None = None) -> dict[str, Any] | None:
    where = "source = ?" + (" AND status = ?" if status else "")
    args = [source, status] if status else [source]
    found = db.rows(f"SELECT * FROM {RUNS} WHERE {where} ORDER BY id DESC LIMIT 1", args)
    return found[0] if found else None


def save_fx(db: PriceDb, rate: FxRate) -> None:
    """The USD/CNY rate, and the day's rates of every currency where the source gave them."""
    with writing(db):
        db.utils.table(FX).upsert(rate.model_dump(mode="json"), pk="source")
        if rate.euro is not None:
            row = rate.euro.model_dump(mode="json")
            db.utils.table(EURO).upsert(
                {
                    "source": row["source"],
                    "rates": json.dumps(row["per_eur"], sort_keys=True),
                    "rate_date": row["rate_date"],
                    "fetched_at": row["fetched_at"],
                },
                pk="source",
            )


def load_euro(db: PriceDb) -> EuroRates | None:
    """The newest rates of every currency, per euro (None before the ECB was first fetched)."""
    for row in db.rows(f"SELECT * FROM {EURO} ORDER BY rate_date DESC LIMIT 1"):
        return EuroRates(
            per_eur=json.loads(row["rates"]),
            rate_date=row["rate_date"],
            source=row["source"],
            fetched_at=row["fetched_at"],
        )
    return None


def load_fx(db: PriceDb) -> list[FxRate]:
    return [FxRate.model_validate(row) for row in db.rows(f"SELECT * FROM {FX} ORDER BY rate_date DESC")]
