"""The price-row format shared by rate cards and generic feeds (CSV or JSON), and its reader.

Columns (CSV header, or keys of each JSON object; JSON may be a list or {"prices": [...]}):
  required  provider, instance_type, gpu, gpu_count, pricing_model, amount, currency, unit
  optional  region, region_class, gpu_memory_gb, sharing, mig_profile, effective_date, basis, provenance, kind
A row whose `kind` is storage (unit gb-month) or egress (unit gb) prices what a run costs beside its
cards; its GPU columns stay empty. See the README ("Price feed format") for the values each takes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from pricing.errors import RecordError
from pricing.records import ExtraKind, ExtraPrice, PriceRecord

REQUIRED = ("provider", "instance_type", "gpu", "gpu_count", "pricing_model", "amount", "currency", "unit")
OPTIONAL = (
    "region",
    "region_class",
    "gpu_memory_gb",
    "sharing",
    "mig_profile",
    "effective_date",
    "basis",
    "provenance",
    "kind",
)
EXTRA_COLUMNS = ("kind", "provider", "region", "amount", "currency", "unit", "effective_date", "basis", "provenance")
Row = PriceRecord | ExtraPrice
COLUMNS = REQUIRED + OPTIONAL


def _problem(error: ValidationError) -> tuple[str | None, str]:
    first = error.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or None
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "missing":
        message = "required value is missing"
    return field, message


def _record(values: dict[str, Any], source: str, fetched_at: datetime) -> Row:
    kind = values.pop("kind", "gpu")
    if kind in tuple(ExtraKind):
        extra = {k: v for k, v in values.items() if k in EXTRA_COLUMNS}
        return ExtraPrice(source=source, fetched_at=fetched_at, kind=kind, **extra)
    if kind != "gpu":
        raise ValueError(f"kind must be gpu, storage or egress, not {kind!r}")
    return PriceRecord(source=source, fetched_at=fetched_at, **values)


PLACEHOLDER = "REPLACE:"  # what pricing/data/ratecard.example.csv marks each value to fill in with


def read_rows(
    rows: Iterable[Mapping[str, Any]],
    *,
    origin: str,
    source: str,
    fetched_at: datetime,
    left_out: list[str] | None = None,
) -> Iterator[Row]:
    """Validate rows one at a time (memory does not grow with the feed). The first bad row raises RecordError,
    except, where `left_out` is given (a team's rate card), a row naming a GPU the catalogue does not know: that
    row is left out, said in `left_out`, and the rest of the file still prices."""
    checked_header = False
    for number, row in enumerate(rows, 1):
        if not isinstance(row, Mapping):
            raise RecordError(origin, number, None, "expected an object with the price columns")
        if not checked_header:
            unknown = sorted(set(row) - set(COLUMNS))
            if unknown:
                raise RecordError(origin, number, unknown[0], f"unknown column; accepted: {', '.join(COLUMNS)}")
            missing = [c for c in REQUIRED if c not in row]
            if missing:
                raise RecordError(origin, number, missing[0], "required column is missing")
            checked_header = True
        values = {k: v for k, v in row.items() if v not in (None, "")}
        placeholder = next((k for k, v in values.items() if isinstance(v, str) and v.startswith(PLACEHOLDER)), None)
        if placeholder is not None:  # ratecard.example.csv copied and not filled in: its sample prices are no price
            raise RecordError(
                origin,
                number,
                placeholder,
                f"still the template's {PLACEHOLDER} placeholder: put the platform's own "
                "price and where it comes from in this row, or delete the row",
            )
        values.setdefault("provenance", origin)
        try:
            yield _record(values, source, fetched_at)
        except ValidationError as exc:
            field, message = _problem(exc)
            if field == "gpu" and left_out is not None:
                left_out.append(f"{origin} row {number} left out: {message}")
                continue
            raise RecordError(origin, number, field, message) from None
        except ValueError as exc:  # an unknown kind
            raise RecordError(origin, number, "kind", str(exc)) from None
        except TypeError:  # a later JSON object repeating "source" or "fetched_at"
            raise RecordError(origin, number, None, f"unknown column; accepted: {', '.join(COLUMNS)}") from None


def parse_text(
    text: str, *, fmt: str, origin: str, source: str, fetched_at: datetime, left_out: list[str] | None = None
) -> Iterator[Row]:
    """Rows from CSV or JSON text. `fmt` is 'csv' or 'json'."""

    def rows(data: Iterable[Mapping[str, Any]]) -> Iterator[Row]:
        return read_rows(data, origin=origin, source=source, fetched_at=fetched_at, left_out=left_out)

    if fmt == "csv":
        return rows(csv.DictReader(io.StringIO(text)))
    if fmt == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(origin, None, None, f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
        if isinstance(data, dict) and isinstance(data.get("prices"), list):
            data = data["prices"]
        if not isinstance(data, list):
            raise RecordError(origin, None, None, 'expected a JSON list of prices or {"prices": [...]}')
        return rows(data)
    raise RecordError(origin, None, None, f"unknown feed format {fmt!r}: use .csv or .json")


def format_of(name: str, content_type: str = "") -> str:
    lowered = name.lower().split("?")[0]
    if lowered.endswith(".json") or "json" in content_type:
        return "json"
    if lowered.endswith(".csv") or "csv" in content_type:
        return "csv"
    return "unknown"
