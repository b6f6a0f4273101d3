"""`gpu-advise idle`: each channel's digest as it stands now, read in the terminal; it warns nobody and sends
nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from bot.state.actions import Actions
from bot.state.rentals import Rentals
from bot.state.store import Store
from tests.support.cli import run_cli
from tests.support.idle_item import idle_item

EN = {"GPU_ADVISOR_LANG": "en"}


def test_idle_says_each_channels_idle_items_and_warns_nobody(tmp_path: Path) -> None:
    assert run_cli("act", "C1", "stop", "--team", "T1", env=EN, tmp=tmp_path).returncode == 0
    store = Store(f"sqlite:///{tmp_path / 'advisor.state.db'}")
    idle_item(store, store.now(), "T1", "C1", "U1")  # quiet from eight hours back (the command's clock is now)
    Rentals(store).track_storage(
        "T1", "ckpt", {"size_gb": 500.0, "price_gb_month": 0.3, "currency": "CNY", "channel": "C2", "owner": "U2",
                       "created_at": store.now() - timedelta(days=20)}, None,
    )  # fmt: skip
    shown = run_cli("idle", "--team", "T1", env=EN, tmp=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "C1: GPU rentals: 1 to look at" in shown.stdout and "train-1" in shown.stdout
    assert "has been idle since" in shown.stdout and "will be stopped" not in shown.stdout
    assert "C2: GPU rentals: 1 to look at" in shown.stdout and "ckpt" in shown.stdout and "<@" not in shown.stdout
    assert Actions(store).history("T1") == []  # warned nobody
    only = json.loads(run_cli("idle", "--team", "T1", "--channel", "C1", "--json", env=EN, tmp=tmp_path).stdout)
    assert [c["channel"] for c in only] == ["C1"] and only[0]["instances"][0]["name"] == "train-1"
    assert only[0]["instances"][0]["activity"] == "idle" and only[0]["instances"][0]["stop_at"] is None
    zh = run_cli("idle", "--team", "T1", "--channel", "C2", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert "C2: GPU 租用提醒：1 项需要处理" in zh.stdout
    mine = run_cli("idle", "--team", "T1", "--owner", "U2", env=EN, tmp=tmp_path)  # chat's `idle mine`
    assert "ckpt" in mine.stdout and "train-1" not in mine.stdout and "C1:" not in mine.stdout, mine.stdout
    nobody = run_cli("idle", "--team", "T1", "--owner", "U9", env=EN, tmp=tmp_path)
    assert "Nothing to look at now" in nobody.stdout
    refused = run_cli("idle", "--team", "T1", "--owner", "someone@example.com", env=EN, tmp=tmp_path)
    assert refused.returncode == 2 and "--owner" in refused.stderr


def test_nothing_idle_says_the_rule(tmp_path: Path) -> None:
    box = ("--gpu", "A100-80GB", "--price", "400/day", "--channel", "C1", "--owner", "U1", "--team", "T1")
    assert run_cli("track", "instance", "box1", *box, env=EN, tmp=tmp_path).returncode == 0  # young: not judged
    shown = run_cli("idle", "--team", "T1", env=EN, tmp=tmp_path)
    assert shown.returncode == 0 and "Nothing to look at now in any channel" in shown.stdout
    assert "under 5% over the last 60 min" in shown.stdout
    bad = run_cli("idle", "--team", "T1", "--channel", "U0123ABCD", env=EN, tmp=tmp_path)
    assert bad.returncode == 2 and "--channel" in bad.stderr
