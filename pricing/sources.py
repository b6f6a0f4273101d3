"""The price sources: each has a name, a time-to-live, a refresh interval and a fetch function.

Sources take their HTTP client and paths as arguments; nothing here reads settings or globals.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pricing import aliyun, azure, fx
from pricing.errors import RecordError
from pricing.feed import Row, format_of, parse_text, read_rows
from pricing.http import get
from pricing.records import PriceRecord

BUNDLED_RATE_CARD = "data/ratecard.csv"
# the package's file beside this module, as the policy's is (importlib.resources was 6 ms of each command's start)
_BUNDLED = Path(__file__).parent / BUNDLED_RATE_CARD
REFERENCE = "reference"  # the flag of a bundled reference price: a team's own price for the same offer wins

if TYPE_CHECKING:
    import httpx

    from pricing import gpuhunt_source as gpuhunt_source_module


@dataclass(frozen=True)
class Source:
    name: str
    ttl: timedelta  # prices older than this are stale
    interval: timedelta  # how often the scheduler refreshes it
    fetch: Callable[[datetime], Iterable[Row]] | None = None
    fetch_fx: Callable[[datetime], fx.FxRate] | None = None
    description: str = ""
    age_from_effective_date: bool = False  # reference prices age from the date they were quoted
    retries: int = field(default=2)
    backoff_s: float = 2.0  # the first retry's wait; it doubles with each retry (unless Retry-After says)
    note: Callable[[], str | None] | None = None  # what the last successful load left out, kept with its run
    # what a local source is read from, as a short fingerprint kept with its run: a cache whose last run read
    # other inputs (a team's rate card edited, a bundled rate card an upgrade changed) loads them again at once
    inputs: Callable[[], str] | None = None


def read_price_file(
    path: Path, origin: str, source: str, now: datetime, left_out: list[str] | None = None
) -> Iterator[Row]:
    """Rows of a CSV or JSON file; a CSV is streamed, so memory does not grow with its size. `left_out`: a team
    rate card's rows naming an unknown GPU are left out and said there, not the whole file (pricing/feed.py)."""
    fmt = format_of(path.name)
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise RecordError(origin, None, None, f"cannot read the file: {exc.strerror or exc}") from None
    with handle:
        if fmt == "csv":
            import csv  # only where a team's CSV rate card is read

            rows = csv.DictReader(handle)
            yield from read_rows(rows, origin=origin, source=source, fetched_at=now, left_out=left_out)
        else:
            yield from parse_text(
                handle.read(), fmt=fmt, origin=origin, source=source, fetched_at=now, left_out=left_out
            )


def rate_card_records(
    team_files: Iterable[Path], now: datetime, source: str = "ratecard", left_out: list[str] | None = None
) -> Iterator[Row]:
    """The bundled reference prices, then each team rate-card file (its rows naming an unknown GPU said in
    `left_out`, the rest kept)."""
    for record in parse_text(
        _BUNDLED.read_text("utf-8"), fmt="csv", origin=f"pricing/{BUNDLED_RATE_CARD}", source=source, fetched_at=now
    ):
        if isinstance(record, PriceRecord):
            record = record.model_copy(update={"flags": ",".join(filter(None, (record.flags, REFERENCE)))})
        yield record
    for path in team_files:
        yield from read_price_file(Path(path), str(path), source, now, [] if left_out is None else left_out)


def rate_card_inputs(team_files: Iterable[Path]) -> str:
    """The bundled rate card's content and each team file's size and modification time, hashed: it changes when
    any of them does (a file that cannot be read counts as missing)."""
    digest = hashlib.sha256(_BUNDLED.read_bytes())
    for path in team_files:
        try:
            found = Path(path).stat()
            digest.update(f"\0{path}\0{found.st_size}\0{found.st_mtime_ns}".encode())
        except OSError:
            digest.update(f"\0{path}\0missing".encode())
    return digest.hexdigest()[:16]


def rate_card_source(team_files: Iterable[Path], *, ttl: timedelta, interval: timedelta) -> Source:
    files = tuple(team_files)
    skipped = aliyun.Skipped()  # the team rows left out (an unknown GPU), said as every source's note says them

    def fetch(now: datetime) -> Iterator[Row]:
        skipped.lines.clear()
        return rate_card_records(files, now, left_out=skipped.lines)

    return Source(
        "ratecard",
        ttl,
        interval,
        fetch=fetch,
        note=skipped.note,
        description="bundled reference prices and team rate cards",
        age_from_effective_date=True,
        retries=0,
        inputs=lambda: rate_card_inputs(files),
    )


def feed_records(location: str, client: httpx.Client, now: datetime, source: str = "feed") -> Iterator[Row]:
    if location.startswith(("http://", "https://")):
        response = get(client, location)
        fmt = format_of(location, response.headers.get("content-type", ""))
        text = response.text
        yield from parse_text(text, fmt=fmt, origin=location, source=source, fetched_at=now)
    else:
        yield from read_price_file(Path(location), location, source, now)


def feed_source(location: str, client: httpx.Client, *, ttl: timedelta, interval: timedelta) -> Source:
    return Source(
        "feed",
        ttl,
        interval,
        fetch=lambda now: feed_records(location, client, now),
        description=f"generic price feed {location}",
    )


def azure_source(client: httpx.Client, config: azure.AzureConfig, *, ttl: timedelta, interval: timedelta) -> Source:
    return Source(
        "azure",
        ttl,
        interval,
        fetch=lambda now: azure.fetch(client, config, now),
        description=f"Azure Retail Prices API ({config.base_url})",
    )


def ecb_source(client: httpx.Client, url: str, *, ttl: timedelta, interval: timedelta) -> Source:
    return Source(
        "ecb",
        ttl,
        interval,
        fetch_fx=lambda now: fx.parse_ecb(get(client, url).text, now),
        description=f"ECB daily reference rates ({url})",
    )


def gpuhunt_source(catalog: gpuhunt_source_module.Catalog, *, ttl: timedelta, interval: timedelta) -> Source:
    where = str(catalog.folder) if catalog.folder is not None else catalog.base_url
    return Source(
        catalog.source,
        ttl,
        interval,
        fetch=catalog.records,
        age_from_effective_date=True,
        description=f"gpuhunt catalog of {catalog.provider} ({where})",
        note=lambda: catalog.skipped.note(),
    )


def tencent_source(
    ask: aliyun.Ask,
    regions: tuple[str, ...],
    types: dict[str, str | None] | Callable[[], dict[str, str | None]],
    *,
    where: str,
    ttl: timedelta,
    interval: timedelta,
) -> Source:
    """`types`: each instance type with its GPU, or what gives them at each refresh (the types discovery finds, with
    the GPU each instance says, beside those a setting names)."""
    from pricing import tencent

    skipped = aliyun.Skipped()

    def fetch(now: datetime) -> Iterator[Row]:
        return tencent.fetch(ask, regions, types() if callable(types) else types, now, skipped, where)

    return Source(
        "tencent",
        ttl,
        interval,
        fetch=fetch,
        description=f"Tencent Cloud DescribeZoneInstanceConfigInfos ({where})",
        note=skipped.note,
    )


def aliyun_source(
    ask: aliyun.Ask,
    regions: tuple[str, ...],
    types: tuple[str, ...] | Callable[[], Iterable[str]],
    *,
    where: str,
    ttl: timedelta,
    interval: timedelta,
) -> Source:
    """`types`: the instance types to price, or what gives them at each refresh (the types discovery finds running
    beside those a setting names)."""
    skipped = aliyun.Skipped()

    def fetch(now: datetime) -> Iterator[Row]:
        return aliyun.fetch(ask, regions, types() if callable(types) else types, now, skipped, where)

    return Source(
        "aliyun",
        ttl,
        interval,
        fetch=fetch,
        description=f"Alibaba Cloud DescribePrice and DescribeSpotPriceHistory ({where})",
        note=skipped.note,
    )
