"""A file sent to the robot, fetched for the core (bot/app/capture.py): DingTalk's robot file API gives a download
address for the message's downloadCode (POST /v1.0/robot/messageFiles/download, with the app's token), and the file
is downloaded from it within the bot's limits (bot/app/capture_download.py)."""

from __future__ import annotations

from bot.app.capture import FetchError, Upload
from bot.app.capture_download import download_capped
from bot.dingtalk.openapi import DingTalkError, OpenApi


def fetch(api: OpenApi, code: str, name: str, max_bytes: int, deadline_s: float) -> Upload:
    body = {"downloadCode": code, "robotCode": api.robot_code}
    try:
        answer = api.call("robot.messageFiles.download", "robot_1_0", "robot_message_file_download_with_options",
                          body, report=False)  # fmt: skip
    except DingTalkError as exc:
        gone = exc.status is not None and 400 <= exc.status < 500
        raise FetchError("gone" if gone else "http", name=name, status=exc.code) from None
    url = str(answer.get("downloadUrl") or "")
    if not url:
        raise FetchError("gone", name=name)
    return Upload(name, download_capped(url, name, max_bytes, deadline_s).data)
