"""Issue 53.1: a stop whose power-off overlapped what a machine saw at that moment (an agent reporting during a
12-second StopInstances; discovery sighting the instance in the same minute) raised power_overlaps inside the
stop's bookkeeping, after the action had moved to stopped: stopped, nobody told, nothing released, never tried
again. The bot's stop is kept at the moment the machines last saw it on, never refused, and always told."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.state import Store
from bot.state.power import PowerLog, Sighting
from bot.state.rentals import Rentals
from rules.power import Power

T0 = datetime(2026, 12, 1, 2, tzinfo=UTC)
FIELDS = {"gpu": "A100-80GB", "cards": 1, "unit": "hour", "price": 14.0, "currency": "CNY", "owner": "U1"}


@pytest.fixture
def store(db_target: str) -> Store:
    return Store(db_target)


def test_a_stop_overlapping_an_agents_report_is_kept_where_the_agent_last_saw_it_on(store: Store) -> None:
    inst, _ = Rentals(store).track_instance("T1", "box", FIELDS | {"channel": "C1", "started_at": T0})
    log = PowerLog(store)
    # the agent reported it on until 8 s after the moment the stop was confirmed
    for minutes in range(60, 121, 5):  # a heartbeat every 5 minutes: one report, on from 1 h
        log.sight([Sighting(inst.id, Power.ON, T0 + timedelta(minutes=minutes), "agent")])
    log.sight([Sighting(inst.id, Power.ON, T0 + timedelta(hours=2, seconds=8), "agent")])
    confirmed = T0 + timedelta(hours=2)
    with pytest.raises(Exception, match="power_overlaps"):
        log.say(inst.id, Power.OFF, confirmed, confirmed, source="bot", by="bot")  # what the stop did before
    kept = log.stopped(inst.id, confirmed, confirmed)
    assert kept == confirmed + timedelta(seconds=8)
    [*_, last] = log.reports([inst.id])[inst.id]
    assert (last.state, last.source, last.at) == (Power.OFF, "bot", kept)
    assert log.stopped(inst.id, confirmed, confirmed) == kept  # a redo keeps it once
    assert len([r for r in log.reports([inst.id])[inst.id] if r.source == "bot"]) == 1
