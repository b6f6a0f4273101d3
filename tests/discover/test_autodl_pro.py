"""AutoDL Pro container instances through its developer API, against a local fake (tests/support/fake_autodl.py):
found page by page with the card its snapshot names and priced from the price cache, nobody's until claimed;
once claimed in a stop channel and idle past the warning, powered off (its GPU stops billing) and said so;
the wallet read with the same scan; an account the Pro API refuses is one line, and nothing known changes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.actions.due import run_actions
from bot.discover.autodl import AutoDL
from bot.state.actions import Actions
from bot.state.balances import Balances
from bot.state.rentals import Rentals
from bot.tls import shared_context
from tests.actions.test_stop import GRACE, digest, quiet
from tests.support.fake_autodl import TOKEN, fake_autodl
from tests.support.slack_harness import running_app


def test_pro_instances_are_found_with_their_card_across_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.discover.autodl.PAGE", 2)
    with fake_autodl() as fake, httpx.Client(verify=shared_context()) as client:
        fake.add("pro-1a2b3c", name="train-4090")
        fake.add("pro-2b3c4d", gpu="A800 80GB", status="shutdown", req_gpu_amount=2)
        fake.add("pro-3c4d5e", gpu="Ascend 910B2", charge_type="monthly")
        scan = AutoDL(fake.url, TOKEN, client).scan()
    assert scan.problems == {} and scan.regions_ok == ["autodl"]
    found = {f.key: f for f in scan.found}
    assert list(found) == ["autodl:pro-1a2b3c", "autodl:pro-2b3c4d", "autodl:pro-3c4d5e"]  # three pages of two
    first = found["autodl:pro-1a2b3c"]
    assert (first.name, first.gpu, first.cards, first.state, first.currency) == (
        "train-4090",
        "RTX4090-24GB",
        1,
        "running",
        "CNY",
    )
    assert first.launched_at == datetime(2026, 12, 1, 1, 0, tzinfo=UTC) and first.tags == {"AutoDLRegion": "西北B区"}
    off = found["autodl:pro-2b3c4d"]
    assert (off.gpu, off.cards, off.state, off.charging) == ("A800-80GB", 2, "stopped", False)
    assert found["autodl:pro-3c4d5e"].billing == "month"


def test_an_account_the_pro_api_refuses_is_one_line_and_nothing_is_lost() -> None:
    with fake_autodl() as fake, httpx.Client(verify=shared_context()) as client:
        fake.add("pro-1a2b3c")
        fake.refuse_pro = "NotVerified"
        scan = AutoDL(fake.url, TOKEN, client).scan()
        wrong = AutoDL(fake.url, "someone-elses", client).scan()
    assert scan.found == [] and scan.regions_ok == []  # not complete: nothing is released for not being seen
    assert scan.problems == {"autodl": "AutoDL NotVerified: 请先完成实名认证"}
    assert wrong.problems["autodl"].startswith("AutoDL refused the developer token (HTTP 401)")


def jobs(h: Any) -> dict[str, Any]:
    from bot.server.jobs import jobs_of

    return {j.id: j for j in jobs_of(h.settings, h.deps, h.doors())}


def test_a_claimed_idle_pro_instance_is_powered_off_and_its_wallet_read(tmp_path: Path) -> None:
    with fake_autodl() as fake:
        fake.assets_li = 88_000
        fake.add("pro-1a2b3c", name="train-4090")
        with running_app(tmp_path, autodl_token=TOKEN, autodl_url=fake.url, discover_channel="C1") as h:
            table = jobs(h)
            assert "balances:read" not in table  # the wallet is read with the scan
            table["discover:autodl"].work()
            [inst] = Rentals(h.deps.store).instances("T1")
            assert (inst.source, inst.provider, inst.gpu, inst.cloud_state) == (
                "autodl",
                "autodl",
                "RTX4090-24GB",
                "running",
            )
            [wallet] = Balances(h.deps.store).latest("T1")
            assert (wallet.provider, wallet.amount, wallet.source) == ("autodl", 88.0, "autodl-api")
            Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
            h.clock.advance(hours=3)
            quiet(h, inst)  # as an agent on the box would report it (AutoDL has no metrics API)
            message = digest(h)
            assert "Found, not tracked" in json.dumps(message["blocks"], ensure_ascii=False)
            h.send.click(message, "found_claim", user="U5")
            h.fake.wait_for(lambda: h.fake.of("chat.update"))
            h.clock.advance(minutes=31)
            quiet(h, inst, minutes=60)
            assert run_actions(h.deps, h.tellers()) == 1
            assert fake.pro["pro-1a2b3c"]["status"] == "shutdown"
            [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
            assert warning.status == "stopped" and "power_off" in (warning.detail or "")
            said = [c["text"] for c in h.fake.of("chat.postMessage") if "train-4090" in c.get("text", "")]
            assert any(t.startswith("Stopped *train-4090* (<@U5>)") for t in said), said
            # AutoDL's list price of an RTX 4090 is in no rate card: the saving is an unknown amount, in English
            assert all("未知" not in t for t in said) and any("an unknown amount a day saved" in t for t in said)
            [dm] = [c for c in h.fake.of("chat.postMessage") if c.get("channel") == "U5"]  # its claimer, its owner
            assert "无卡模式" in dm["text"] and "clone it to another host" in dm["text"]
