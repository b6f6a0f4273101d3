"""An idle tracked instance, as the digest scenarios of every chat need one: tracked in `channel` for `owner`,
started nine hours before the clock, its agent reporting a quiet card from eight hours back into the coming hours."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.state.rentals import Rentals
from bot.state.store import Store
from rules.samples import Sample
from tests.digest.test_schedule import FIELDS


def idle_item(store: Store, now: datetime, team: str, channel: str, owner: str, name: str = "train-1") -> Rentals:
    rentals = Rentals(store)
    fields = FIELDS | {"owner": owner, "channel": channel, "started_at": now - timedelta(hours=9)}
    inst, _ = rentals.track_instance(team, name, fields)
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(480, -241, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    return rentals
