"""A file sent into a Feishu thread, fetched for the core (bot/app/capture.py): the message-resource API
(`GET /open-apis/im/v1/messages/{message_id}/resources/{file_key}?type=file`) with the app's tenant access token,
which the SDK's token manager gives (and caches).

Why not the SDK's own `message_resource.get`: it reads the whole body into memory, with no limit on its size or on
the whole download's time (requests' timeout is per read). Streamed with httpx instead, a capture over
GPU_ADVISOR_CAPTURE_MAX_BYTES is cut at that size and a download past GPU_ADVISOR_CAPTURE_TIMEOUT_S at that time,
as Slack's are. The token goes only to the Open API's own origin (GPU_ADVISOR_FEISHU_DOMAIN)."""

from __future__ import annotations

import time
from urllib.parse import quote

import httpx

from bot.app.capture import FetchError, Upload
from bot.feishu.sdk import FeishuError, OpenApi
from bot.tls import shared_context


def fetch(api: OpenApi, message_id: str, file_key: str, name: str, max_bytes: int, deadline_s: float) -> Upload:
    """The file's bytes; FetchError when it is gone or refused, too big, or not downloaded within `deadline_s`."""
    try:
        token = api.tenant_token()
    except FeishuError as exc:
        raise FetchError("http", name=name, status=str(exc.code or exc.msg)) from None
    url = f"{api.base_url}/open-apis/im/v1/messages/{quote(message_id)}/resources/{quote(file_key)}"
    ends = time.monotonic() + deadline_s
    chunks: list[bytes] = []
    size = 0
    limit = {"name": name, "limit_mib": round(max_bytes / 1024 / 1024, 1)}
    try:
        with httpx.stream(
            "GET",
            url,
            params={"type": "file"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=httpx.Timeout(min(30.0, deadline_s)),
            follow_redirects=False,
            verify=shared_context(),
        ) as response:
            if response.status_code in (400, 403, 404):  # deleted, recalled, or another tenant's
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
    except httpx.TimeoutException:
        raise FetchError("timeout", name=name, seconds=f"{deadline_s:g}") from None
    except httpx.TransportError as exc:  # the connection broke off mid-download
        raise FetchError("http", name=name, status=type(exc).__name__) from None
    return Upload(name, b"".join(chunks))
