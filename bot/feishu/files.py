"""A file sent into a Feishu thread, fetched for the core (bot/app/capture.py): the message-resource API
(`GET /open-apis/im/v1/messages/{message_id}/resources/{file_key}?type=file`) with the app's tenant access token,
which the SDK's token manager gives (and caches).

Why not the SDK's own `message_resource.get`: it reads the whole body into memory, with no limit on its size or on
the whole download's time (requests' timeout is per read); bot/app/capture_download.py streams it within the bot's
limits, as Slack's are. The token goes only to the Open API's own origin (GPU_ADVISOR_FEISHU_DOMAIN)."""

from __future__ import annotations

from urllib.parse import quote

from bot.app.capture import FetchError, Upload
from bot.app.capture_download import download_capped
from bot.feishu.sdk import FeishuError, OpenApi


def fetch(api: OpenApi, message_id: str, file_key: str, name: str, max_bytes: int, deadline_s: float) -> Upload:
    """The file's bytes; FetchError when it is gone or refused, too big, or not downloaded within `deadline_s`."""
    try:
        token = api.tenant_token()
    except FeishuError as exc:
        raise FetchError("http", name=name, status=str(exc.code or exc.msg)) from None
    url = f"{api.base_url}/open-apis/im/v1/messages/{quote(message_id)}/resources/{quote(file_key)}"
    upload = download_capped(
        url, name, max_bytes, deadline_s, headers={"Authorization": f"Bearer {token}"}, params={"type": "file"}
    )
    return Upload(name, upload.data)  # the name the message gave, whatever the download says
