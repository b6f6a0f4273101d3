"""A file sent to the robot, fetched for the core (bot/app/capture.py): WeCom's message carries the file's address
and its AES key; the file is downloaded within the bot's limits (bot/app/capture_download.py: the SDK's own
download reads a whole body with no limit) and decrypted with the SDK's decrypt_file (AES-256-CBC)."""

from __future__ import annotations

from bot.app.capture import FetchError, Upload
from bot.app.capture_download import download_capped


def fetch(url: str, aes_key: str, name: str, max_bytes: int, deadline_s: float) -> Upload:
    got = download_capped(url, name, max_bytes, deadline_s)
    if not aes_key:
        return got
    from aibot import decrypt_file

    try:
        return Upload(got.name, decrypt_file(got.data, aes_key))
    except (ValueError, RuntimeError):
        raise FetchError("http", name=name, status="not decrypted with the message's key") from None
