"""What a rental platform does with an instance left powered off, where it costs money or data: said in the digest
so nobody loses a disk by surprise. Facts per platform, with their source.

AutoDL (its documentation, 实例关机释放规则): an instance that stays powered off for 15 days in a row is released,
and its data with it; a paid data-disk expansion keeps billing while the instance is powered off."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from rules.power import Power, Stretch


@dataclass(frozen=True)
class Lifecycle:
    released_after_off: timedelta  # powered off this long in a row: the platform releases it, with its data
    disk_bills_off: bool  # a paid data disk keeps billing while it is off
    source: str


LIFECYCLES = {
    "autodl": Lifecycle(
        timedelta(days=15), True, "AutoDL docs: an instance powered off 15 days in a row is released with its data"
    ),
}


def off_since(stretches: Sequence[Stretch], now: datetime) -> datetime | None:
    """When the trailing powered-off stretch (of any source) began; None when it is not off now."""
    start = None
    for stretch in reversed(stretches):
        if stretch.start > now:
            continue
        if stretch.state is not Power.OFF:
            break
        start = stretch.start
    return start


# An item off for less than a day is on its daily schedule (an hourly slice used a few hours a day), not left off:
# nothing to act on, so not news. From a day off it is said, two weeks before AutoDL's release.
SAY_AFTER_OFF = timedelta(days=1)


def release_at(provider: str | None, stretches: Sequence[Stretch], now: datetime) -> tuple[datetime, datetime] | None:
    """(off since, released around) for an instance left powered off (a day or more) on a platform that releases
    what stays off; None for one off on its daily schedule."""
    rule = LIFECYCLES.get((provider or "").lower())
    since = off_since(stretches, now) if rule else None
    if rule is None or since is None or now - since < SAY_AFTER_OFF:
        return None
    return since, since + rule.released_after_off
