"""gpuhunt's catalogs as price sources, one per provider (source `gpuhunt:PROVIDER`).

gpuhunt (dstack's GPU offer catalog, MPL-2.0) publishes one CSV per provider: `{base}/{provider}/version`
names the newest catalog, `{base}/{provider}/{version}/catalog.zip` holds `{provider}.csv`. A local folder
(`GPU_ADVISOR_GPUHUNT_CATALOG_DIR`: `{provider}.csv`, optionally a `version` or `{provider}.version` file,
the layout gpuhunt's own GPUHUNT_CATALOG_DIR reads) is read instead of downloading: how tests and air-gapped
sites use it. Rows are read by gpuhunt's own reader; each offer with a GPU we know becomes a USD price per
hour for the whole instance, dated by the catalog's version (else the file's modification date). Offers
without a GPU, with a GPU we do not know (or of another memory size), or with a price no real offer has are
skipped and counted, never failing the source.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING

from pydantic import ValidationError

from pricing.errors import SourceError
from pricing.http import get
from pricing.records import Currency, PriceRecord, PricingModel, Unit
from rules.errors import UnknownGPU
from rules.gpus import card_model, gpu_model

if TYPE_CHECKING:
    import httpx
    from gpuhunt import CatalogItem

CATALOG_URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3"  # gpuhunt's catalog.CATALOG_URL
MEMORY_TOLERANCE = 0.1  # a catalog's GPU memory within 10% of our model's: the same card
REQUIRED = {"instance_name", "location", "price", "cpu", "memory", "gpu_count", "gpu_name", "gpu_memory", "spot"}


class _Counted:
    """The lines of a file, counted as they are read."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.lines, self.count = iter(lines), 0

    def __iter__(self) -> Iterator[str]:
        for line in self.lines:
            if line.strip():
                self.count += 1
            yield line


_VERSION = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")


def providers() -> tuple[str, ...]:
    """The providers gpuhunt publishes catalogs of (gpuhunt is imported only when a catalog is read: it
    costs a tenth of a second, which a quote without it should not pay)."""
    from gpuhunt._internal.catalog import OFFLINE_PROVIDERS

    return tuple(OFFLINE_PROVIDERS)


def our_gpu(name: str | None, memory_gb: float | None) -> str | None:
    """Our canonical model for gpuhunt's GPU name and memory per card ("A100", 40 -> A100-40GB; "A10G" ->
    A10-24GB; "H100NVL", 94 -> H100-94GB); None when we do not know the card or not at that memory."""
    if not name:
        return None
    model = card_model(name, memory_gb * 1024 if memory_gb else None)
    if model is None:
        return None
    try:
        known = gpu_model(model).memory_gb
    except UnknownGPU:
        return None
    if memory_gb and abs(known - memory_gb) > MEMORY_TOLERANCE * known:
        return None  # e.g. a V100 of 16 GB: we only price the 32 GB one
    return model


def catalog_date(version: str) -> date | None:
    """A catalog version such as "20251130" or "2025-11-30T00:00" as a date."""
    found = _VERSION.search(version)
    if found is None:
        return None
    try:
        return date(int(found[1]), int(found[2]), int(found[3]))
    except ValueError:
        return None


@dataclass
class Skipped:
    """What one refresh left out, said in `prices status`."""

    no_gpu: int = 0
    unknown: Counter[str] = field(default_factory=Counter)
    invalid: int = 0
    unreadable: int = 0  # rows gpuhunt's reader skipped (malformed)

    def note(self) -> str | None:
        parts = []
        if self.unknown:
            ranked = sorted(self.unknown.items(), key=lambda kv: (-kv[1], kv[0]))
            names = ", ".join(name for name, _ in ranked[:5]) + (", ..." if len(ranked) > 5 else "")
            parts.append(f"{sum(self.unknown.values())} offers skipped: GPU not known ({names})")
        if self.no_gpu:
            parts.append(f"{self.no_gpu} without a GPU")
        if self.invalid:
            parts.append(f"{self.invalid} with a price no real offer has")
        if self.unreadable:
            parts.append(f"{self.unreadable} rows gpuhunt could not read")
        return "; ".join(parts) or None


@dataclass
class Catalog:
    """One provider's catalog, read from a folder or downloaded."""

    provider: str
    folder: Path | None = None
    base_url: str = CATALOG_URL
    client: httpx.Client | None = None
    skipped: Skipped = field(default_factory=Skipped)

    @property
    def source(self) -> str:
        return f"gpuhunt:{self.provider}"

    def records(self, now: datetime) -> Iterator[PriceRecord]:
        if self.provider not in providers():
            raise SourceError(f"gpuhunt publishes no catalog of {self.provider!r}; it has: {', '.join(providers())}")
        self.skipped = Skipped()
        if self.folder is not None:
            path = self.folder / f"{self.provider}.csv"
            try:
                handle = path.open(encoding="utf-8", newline="")
            except OSError as exc:
                raise SourceError(f"cannot read the gpuhunt catalog {path}: {exc.strerror or exc}") from None
            with handle:
                yield from self._rows(handle, self._folder_version(path), str(path), now)
            return
        yield from self._download(now)

    def _folder_version(self, csv_path: Path) -> date:
        for name in (f"{self.provider}.version", "version"):
            marker = csv_path.with_name(name)
            if marker.is_file():
                found = catalog_date(marker.read_text("utf-8", errors="replace"))
                if found is not None:
                    return found
        return datetime.fromtimestamp(csv_path.stat().st_mtime, UTC).date()

    def _download(self, now: datetime) -> Iterator[PriceRecord]:
        assert self.client is not None, "a download needs the HTTP client"
        base = self.base_url.rstrip("/")
        version = get(self.client, f"{base}/{self.provider}/version").text.strip()
        when = catalog_date(version)
        if when is None:
            raise SourceError(f"gpuhunt's {self.provider} catalog version {version[:40]!r} is not a date")
        url = f"{base}/{self.provider}/{version}/catalog.zip"
        try:
            with (
                zipfile.ZipFile(io.BytesIO(get(self.client, url).content)) as archive,
                archive.open(f"{self.provider}.csv") as raw,
            ):
                yield from self._rows(io.TextIOWrapper(raw, "utf-8"), when, url, now)
        except (zipfile.BadZipFile, KeyError) as exc:
            raise SourceError(f"gpuhunt's catalog {url} is not a zip with {self.provider}.csv: {exc}") from None

    def _rows(self, handle: IO[str], when: date, origin: str, now: datetime) -> Iterator[PriceRecord]:
        """The catalog's offers as prices. A file that is not a gpuhunt catalog (its header lacks the columns
        gpuhunt writes), or of which gpuhunt can read no row, fails the source: its last prices stay."""
        from gpuhunt._internal import storage  # gpuhunt's reader of its catalog CSV (format v2)

        header = handle.readline()
        missing = sorted(REQUIRED - set(next(csv.reader([header]), [])))
        if missing:
            raise SourceError(f"{origin} is not a gpuhunt catalog: no column {', '.join(missing)}")
        lines = _Counted(handle)
        read = 0
        try:
            for item in storage.load(itertools.chain([header], lines), provider=self.provider):
                read += 1
                record = self._record(item, when, origin, now)
                if record is not None:
                    yield record
        except (csv.Error, UnicodeDecodeError, ValueError) as exc:  # a field over the CSV limit, bad bytes, ...
            raise SourceError(
                f"{origin} is a malformed gpuhunt catalog near row {lines.count + 1}: {str(exc)[:160]}"
            ) from None
        self.skipped.unreadable = lines.count - read
        if lines.count and not read:
            raise SourceError(f"gpuhunt could read none of the {lines.count} rows of {origin}")

    def _record(self, item: CatalogItem, when: date, origin: str, now: datetime) -> PriceRecord | None:
        if not item.gpu_count or not item.gpu_name:
            self.skipped.no_gpu += 1
            return None
        gpu = our_gpu(item.gpu_name, item.gpu_memory)
        if gpu is None:
            self.skipped.unknown[f"{item.gpu_name} {item.gpu_memory:g}GB" if item.gpu_memory else item.gpu_name] += 1
            return None
        try:
            return PriceRecord(
                source=self.source,
                provider=self.provider,
                region=item.location or "any",
                region_class="cloud",
                instance_type=item.instance_name,
                gpu=gpu,
                gpu_count=item.gpu_count,
                gpu_memory_gb=round(item.gpu_memory * item.gpu_count, 2) if item.gpu_memory else None,
                pricing_model=PricingModel.SPOT if item.spot else PricingModel.ON_DEMAND,
                amount=item.price,
                currency=Currency.USD,
                unit=Unit.HOUR,
                fetched_at=now,
                effective_date=when,
                provenance=origin,
                basis=f"gpuhunt catalog of {when.isoformat()}",
            )
        except ValidationError:
            self.skipped.invalid += 1
            return None
