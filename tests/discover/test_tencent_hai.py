"""Tencent Cloud's HAI GPU servers against the local fake of its API 3.0 (tests/support/fake_tencent.py, the TC3
signature checked for product hai): found in every region it is offered in (a region without HAI is not a
problem), named by their bundle, stopped with STOP_CHARGE and read again as stopped without charge."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.discover.run import discover
from bot.discover.tencent_hai import TencentHai
from bot.settings import Settings
from bot.state import Store
from bot.state.rentals import Rentals
from tests.support.fake_tencent import ENV, fake_tencent
from tests.support.state_template import migrated_state_db

NOW = datetime.now(UTC).replace(second=0, microsecond=0)  # the fake refuses signatures 5 minutes off the clock
REGIONS = ("ap-guangzhou", "ap-shanghai")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def no_offers(gpu: str) -> list[Any]:
    return []


def test_hai_servers_are_found_and_stopped_without_charge(tmp_path: Path) -> None:
    with fake_tencent() as fake:
        fake.hai_regions = ("ap-guangzhou",)  # not offered in ap-shanghai
        server = fake.server(name="sd-webui", gpus=1)
        fake.server(state="STOPPED_NO_CHARGE", bundle="GPU基础型", gpu_memory_gb="16")
        cloud = TencentHai(REGIONS, fake.url, sleep=lambda s: None)
        scan = cloud.scan()
        assert scan.problems == {} and scan.regions_ok == list(REGIONS)
        found = {f.key: f for f in scan.found}
        mine = found[f"tencent-hai:{server.id}"]
        assert (mine.name, mine.gpu, mine.cards, mine.state, mine.currency) == (
            "sd-webui",
            "HAI GPU进阶型",
            1,
            "running",
            "CNY",
        )
        assert mine.launched_at == datetime(2026, 12, 1, 1, 0, tzinfo=UTC)  # 09:00 Beijing
        off = [f for f in found.values() if f.state == "stopped"]
        assert len(off) == 1 and off[0].charging is False
        stopped = cloud.stop("ap-guangzhou", server.id)
        assert (stopped.state, stopped.charging, stopped.how) == ("stopped", False, "StopInstance(STOP_CHARGE)")
        assert ("StopInstance", {"InstanceId": server.id, "StopMode": "STOP_CHARGE"}) in fake.calls
        settings = Settings(
            db=tmp_path / "bot.db", tencent_regions=",".join(REGIONS), tencent_endpoint=fake.url, discover_channel="C1"
        )
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        report = discover(settings, store, "T1", NOW, offers=no_offers, cloud=cloud)
        assert report.problems == {}
        kept = {i.provider_id: i for i in Rentals(store).instances("T1")}
        assert kept[f"tencent-hai:{server.id}"].source == "tencent-hai" and len(kept) == 2
        again = discover(settings, store, "T1", NOW, offers=no_offers, cloud=cloud)
        assert again.applied.new == [] and len(Rentals(store).instances("T1")) == 2  # a re-run never duplicates
