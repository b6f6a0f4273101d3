"""Where a digest goes: the chat a team talks in, as the digest needs it (bot/slack/digest_outlet.py posts with
Block Kit and message metadata; bot/feishu/digest_outlet.py posts a card with an idempotency key). The digest's
bookkeeping (claims, exactly once, the warnings) is this room's and the same for every chat."""

from __future__ import annotations

from datetime import date
from typing import Protocol
from zoneinfo import ZoneInfo

from bot.text import Lang
from rules.digest import Digest


class Undelivered(Exception):
    """A digest the chat did not take. `unknown`: it may have it (a timeout, a 5xx): the next run looks first."""

    def __init__(self, error: str, *, unknown: bool = False) -> None:
        super().__init__(error)
        self.error, self.unknown = error, unknown


class Outlet(Protocol):
    # the least time between two digests this chat takes from one app (None: GPU_ADVISOR_REMIND_PACE_S)
    pace_s: float | None

    def compose(self, digest: Digest | None, lang: Lang, zone: ZoneInfo) -> object:
        """What is posted (None: the all-clear line). ArithmeticError or ValueError for a figure no digest can
        show: nothing is posted for that channel."""

    def post(self, channel: str, composed: object, day: date) -> str:
        """Post `composed` in `channel` as `day`'s digest: its message id. Undelivered when the chat refused."""

    def posted_before(self, channel: str, day: date, zone: ZoneInfo) -> str | None:
        """The id of `day`'s digest already in `channel`, when the chat can tell (a sender killed after posting)."""
