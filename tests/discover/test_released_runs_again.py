"""A released instance that runs again in the cloud is an item again (issue 34.2): released in the bot (a
person's release, or the bot's own stop) and then started again at AWS (moto's server here), the next discovery
brings it back, unreleased with the same owner, and its spend counts from the scan that saw it running."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.discover.run import discover
from bot.state import Store
from bot.state.power import PowerLog
from bot.state.rentals import Instance, Rentals
from rules.power import Power
from tests.discover.test_aws import no_offers, settings
from tests.support.aws import ec2, launch, moto_server
from tests.support.state_template import migrated_state_db


@dataclass
class Released:
    """A g5 box discovered at AWS (moto), stopped there and released here: the scene of both tests."""

    url: str
    client: Any
    box: str
    store: Store
    t0: datetime
    rentals: Rentals
    inst: Instance


@contextmanager
def released(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Released]:
    with moto_server(monkeypatch) as url:
        client = ec2(url)
        box = launch(client, "g5.xlarge", {"Owner": "U0456", "SlackChannel": "C1"})
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        t0 = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)
        discover(settings(tmp_path, url), store, "T1", t0, offers=no_offers)
        rentals = Rentals(store)
        [inst] = rentals.instances("T1")
        client.stop_instances(InstanceIds=[box])
        rentals.release("T1", inst.name, t0 + timedelta(hours=1))
        yield Released(url, client, box, store, t0, rentals, inst)


def test_an_instance_released_then_started_again_comes_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with released(tmp_path, monkeypatch) as it:
        rentals, inst, t0 = it.rentals, it.inst, it.t0
        assert rentals.instances("T1", active_only=True) == []
        discover(settings(tmp_path, it.url), it.store, "T1", t0 + timedelta(hours=2), offers=no_offers)  # stopped
        assert rentals.instances("T1", active_only=True) == []
        it.client.start_instances(InstanceIds=[it.box])
        report = discover(settings(tmp_path, it.url), it.store, "T1", t0 + timedelta(hours=3), offers=no_offers)
        assert report.applied.back == [inst.name]
        [again] = rentals.instances("T1", active_only=True)
        assert (again.id, again.owner, again.released_at, again.released_by) == (inst.id, "U0456", None, None)
        [stretches] = PowerLog(it.store).timelines([again], t0 + timedelta(hours=4)).values()
        assert stretches[-1].state is Power.ON and stretches[-1].start == t0 + timedelta(hours=3)


def test_an_instance_back_after_its_name_was_tracked_anew_comes_back_under_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name is free once its box is released (migration 0036): where a person tracked another box under it, the
    cloud's box started again comes back under its cloud id (then with -2), not over the new box's name, and the
    scan is not lost to the unique index."""
    with released(tmp_path, monkeypatch) as it:
        rentals, inst, t0 = it.rentals, it.inst, it.t0
        fields = {"channel": "C1", "owner": "U1", "gpu": "A10G-24GB", "unit": "hour", "price": 1.0, "currency": "USD"}
        newer, _ = rentals.track_instance("T1", inst.name, fields | {"started_at": t0 + timedelta(hours=1)})
        it.client.start_instances(InstanceIds=[it.box])
        report = discover(settings(tmp_path, it.url), it.store, "T1", t0 + timedelta(hours=3), offers=no_offers)
        [back_name] = report.applied.back
        running = {i.id: i.name for i in rentals.instances("T1", active_only=True)}
        assert running[newer.id] == inst.name and running[inst.id] == back_name != inst.name, running
