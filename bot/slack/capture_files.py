"""Fetching an uploaded capture from Slack and posting the chart back.

Download: `files.info` gives the private download URL, fetched with the bot token in the
Authorization header (Slack's documented way; the token is sent only to Slack's own hosts, or to the
host the WebClient is pointed at). Upload: slack_sdk's `files_upload_v2`, which is
`files.getUploadURLExternal`, a POST of the bytes, then `files.completeUploadExternal` into the thread.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import httpx
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.app.capture import FetchError, Upload
from bot.tls import shared_context


def _trusted(url: str, client: WebClient) -> bool:
    host = urlsplit(url).hostname or ""
    own = urlsplit(client.base_url).hostname or ""
    return host == own or host == "slack.com" or host.endswith(".slack.com")


def fetch(client: WebClient, file_id: str, max_bytes: int, deadline_s: float = 60.0) -> Upload:
    """The uploaded file's name and bytes; FetchError when it is gone, too big, not Slack's, refused, or
    not downloaded within `deadline_s` (one deadline for the whole download: a byte now and then does
    not keep it going; a stalled read is cut by the same figure)."""
    try:
        info = client.files_info(file=file_id)["file"]
    except SlackApiError as exc:
        error = str(exc.response.get("error"))
        if error in ("file_not_found", "file_deleted", "missing_scope", "no_permission"):
            raise FetchError("gone" if error.startswith("file_") else "login_page", name=file_id) from None
        raise
    name = str(info.get("name") or file_id)
    if int(info.get("size") or 0) > max_bytes:
        raise FetchError("too_large", name=name, limit_mib=round(max_bytes / 1024 / 1024, 1))
    url = str(info.get("url_private_download") or info.get("url_private") or "")
    if not url or not _trusted(url, client):
        raise FetchError("not_slack", name=name)
    try:
        return Upload(name, _download(url, client, name, max_bytes, deadline_s))
    except httpx.TimeoutException:
        raise FetchError("timeout", name=name, seconds=f"{deadline_s:g}") from None
    except httpx.TransportError as exc:  # the connection broke off mid-download
        raise FetchError("http", name=name, status=type(exc).__name__) from None


def _download(url: str, client: WebClient, name: str, max_bytes: int, deadline_s: float) -> bytes:
    ends = time.monotonic() + deadline_s
    chunks: list[bytes] = []
    size = 0
    with httpx.stream(
        "GET",
        url,
        headers={"Authorization": f"Bearer {client.token}"},
        timeout=httpx.Timeout(min(30.0, deadline_s)),
        follow_redirects=False,
        verify=shared_context(),
    ) as response:
        if response.status_code != 200:
            raise FetchError("http", name=name, status=response.status_code)
        if "text/html" in response.headers.get("content-type", ""):
            raise FetchError("login_page", name=name)  # Slack answers a refused token with its sign-in page
        for chunk in response.iter_bytes():
            if time.monotonic() > ends:
                raise FetchError("timeout", name=name, seconds=f"{deadline_s:g}")
            size += len(chunk)
            if size > max_bytes:
                raise FetchError("too_large", name=name, limit_mib=round(max_bytes / 1024 / 1024, 1))
            chunks.append(chunk)
    return b"".join(chunks)
