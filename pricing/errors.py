"""Errors raised by the pricing package.

PricingError
├── SourceError         a price source could not be read (network, HTTP status, malformed data)
│   └── TransientSourceError   worth retrying: timeout, connection error, HTTP 429 or 5xx
├── RecordError         a price row failed validation; names the origin, row and field
├── CacheUnavailable    the SQLite file cannot be opened or is not a database
└── QuoteError          a quote cannot be made (no price for the GPU, bad schedule, ...)
"""

from __future__ import annotations


class PricingError(Exception):
    """Base of every error in this package."""


class SourceError(PricingError):
    """A source could not be read."""


class TransientSourceError(SourceError):
    """A source failed in a way that may pass: retry later. `retry_after` is in seconds, when the server said."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class RecordError(PricingError):
    """A price row is invalid: `origin` (file or URL), `row` (1-based data row) and `field` say where."""

    def __init__(self, origin: str, row: int | None, field: str | None, problem: str) -> None:
        self.origin, self.row, self.field, self.problem = origin, row, field, problem
        where = origin + (f", row {row}" if row is not None else "") + (f", field {field!r}" if field else "")
        super().__init__(f"{where}: {problem}")


class CacheUnavailable(PricingError):
    """The price cache's database file cannot be used; the message names the file and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"cannot use the database {path}: {reason}. Set --db or GPU_ADVISOR_DB to a writable SQLite file"
        )
        self.path, self.reason = path, reason


class QuoteError(PricingError):
    """A quote cannot be computed; the message says why and what is accepted (in English, for logs).

    `code` (`no_price`, `no_region_price`, `unknown_gpu`, `no_fx`) and `params` let a front end say
    the same in the user's language."""

    def __init__(self, code: str, message: str, **params: str) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
