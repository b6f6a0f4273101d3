"""The channels' digests as they stand now, read rather than sent (`idle` in a chat and in the terminal, a digest
composed again after a press): composed as the daily digest is, with the stop times of the warnings already given
and no other, since nothing here gives one (the daily digest does, and keeps it)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.actions.warn import Warner
from bot.digest.send import digests
from bot.state.rentals import Rentals
from rules.digest import Digest
from rules.policy import Idle, Metering
from rules.worth import RAW, Worth


def digests_now(
    rentals: Rentals,
    team: str,
    channels: list[str],
    now: datetime,
    rules: Idle,
    metering: Metering,
    zone: ZoneInfo | Callable[[str], ZoneInfo],
    worth: Worth = RAW,
) -> dict[str, Digest]:
    composed = digests(rentals, team, channels, now, rules, metering, zone, worth=worth)
    warner = Warner(rentals)
    return {channel: warner.annotate(team, channel, made, now, promise=False) for channel, made in composed.items()}


def has_news(digest: Digest) -> bool:
    """Whether a digest has an item to look at (the month's figures alone are not news)."""
    return bool(digest.instances or digest.storage or digest.found or digest.lifecycle)
