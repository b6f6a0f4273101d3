"""A capture downloaded from a chat's file API within the bot's limits (GPU_ADVISOR_CAPTURE_MAX_BYTES,
GPU_ADVISOR_CAPTURE_TIMEOUT_S), streamed with httpx: cut at the size and at the time, whatever the server sends.
The chats' own SDKs read a whole body into memory with no limit on its size or the download's time, so they are
not used for it. FetchError (bot/app/capture.py) says why a file could not be had."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import httpx

from bot.app.capture import FetchError, Upload
from bot.logs import keep_secret
from bot.tls import shared_context


def download_capped(
    url: str,
    name: str,
    max_bytes: int,
    deadline_s: float,
    *,
    headers: dict[str, str] | None = None,
    params: dict[str, str] | None = None,
) -> Upload:
    """The file's bytes; FetchError when it is gone or refused, too big, or not downloaded within `deadline_s`.
    A signed address's query (its signature, its expiry) is kept from every log line, httpx's own included."""
    query = urlsplit(url).query
    if query:
        keep_secret(query)
    ends = time.monotonic() + deadline_s
    chunks: list[bytes] = []
    size = 0
    limit = {"name": name, "limit_mib": round(max_bytes / 1024 / 1024, 1)}
    try:
        with httpx.stream(
            "GET",
            url,
            params=params,
            headers=headers,
            timeout=httpx.Timeout(min(30.0, deadline_s)),
            follow_redirects=False,
            verify=shared_context(),
        ) as response:
            if response.status_code in (400, 403, 404, 410):  # deleted, recalled, expired, or another tenant's
                raise FetchError("gone", name=name)
            if response.status_code != 200 or "application/json" in response.headers.get("content-type", ""):
                raise FetchError("http", name=name, status=response.status_code)
            if int(response.headers.get("content-length") or 0) > max_bytes:
                raise FetchError("too_large", **limit)
            for chunk in response.iter_bytes():
                if time.monotonic() > ends:
                    raise FetchError("timeout", name=name, seconds=f"{deadline_s:g}")
                size += len(chunk)
                if size > max_bytes:
                    raise FetchError("too_large", **limit)
                chunks.append(chunk)
            disposition = response.headers.get("content-disposition", "")
    except httpx.TimeoutException:
        raise FetchError("timeout", name=name, seconds=f"{deadline_s:g}") from None
    except httpx.TransportError as exc:  # the connection broke off mid-download
        raise FetchError("http", name=name, status=type(exc).__name__) from None
    return Upload(_named(disposition) or name, b"".join(chunks))


def _named(disposition: str) -> str | None:
    """The file's name from a Content-Disposition header, where the server gives one."""
    from email.message import Message

    if not disposition:
        return None
    header = Message()
    header["content-disposition"] = disposition
    found = header.get_filename()
    return str(found) if found else None
