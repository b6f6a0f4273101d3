"""The keys chats keep one message for (Feishu's uuid, DingTalk's outTrackId, WeCom's task_id): a send made again
with the same key is the same message, so a redo of work after a crash sends nothing twice."""

from __future__ import annotations

import hashlib
import uuid
from datetime import date


def send_key(work: str | None = None, n: int = 0) -> str:
    """A send's key (32 hex digits): from the work it belongs to and its place in it, so a redo of the work sends
    nothing twice; else one of its own, so the client's retries of this send do not."""
    if work is None:
        return uuid.uuid4().hex
    return hashlib.sha256(f"{work}|{n}".encode()).hexdigest()[:32]


def digest_send_key(chat: str, day: date) -> str:
    """A digest's key (at most 50 characters): the same for every sender of this chat's digest of `day`, so a sender
    that takes over a claim left by a kill sends the same message."""
    return "digest-" + hashlib.sha256(f"{chat}|{day.isoformat()}".encode()).hexdigest()[:32]


def part_key(key: str, number: int) -> str:
    """The key of a long message's part (bot/chat/parting.py): the first keeps the message's own, the others add
    their number, so a redo sends each part once (a digest's key, 39 characters, stays within Feishu's 50)."""
    return key if number == 0 else f"{key}.{number}"
