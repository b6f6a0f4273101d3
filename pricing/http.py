"""Fetching with an injected httpx.Client: status and transport errors become SourceErrors. httpx is imported when
a fetch asks (its client exists by then): a command that only reads the cache never loads it (bot/price_book.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pricing.errors import SourceError, TransientSourceError

if TYPE_CHECKING:
    import httpx


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def short(url: str | httpx.URL) -> str:
    """The URL without its query, for messages: a price API's filter can run to a thousand characters."""
    import httpx

    parsed = httpx.URL(str(url))
    return str(parsed.copy_with(query=None, fragment=None)) + ("?…" if parsed.query else "")


def get(client: httpx.Client, url: str | httpx.URL, params: dict[str, str] | None = None) -> httpx.Response:
    """GET `url`; raise TransientSourceError for timeouts, connection errors, 429 and 5xx, SourceError otherwise."""
    import httpx

    where = short(url)
    try:
        response = client.get(url, params=params)
    except httpx.TimeoutException as exc:
        raise TransientSourceError(f"timed out fetching {where}: {type(exc).__name__}") from None
    except httpx.TransportError as exc:
        raise TransientSourceError(f"could not reach {where}: {exc}") from None
    if response.status_code == 429 or response.status_code >= 500:
        raise TransientSourceError(f"HTTP {response.status_code} from {where}", _retry_after(response))
    if response.status_code >= 400:
        raise SourceError(f"HTTP {response.status_code} from {where}")
    return response
