"""The bill's commands typed to the bot in a Feishu group: `balance autodl 320` kept for the tenant and answered
with its runway in the card, `power NAME off` from the owner kept as a person's report, and a bad amount named."""

from __future__ import annotations

import json
from pathlib import Path

from bot.state.balances import Balances
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.power import Power
from tests.feishu.test_digest import GROUP, MONDAY_0910_SHANGHAI, OWNER, idle_box
from tests.support.feishu_harness import FeishuHarness, running_feishu
from tests.support.pending import settled

MENTION = [{"key": "@_user_1", "id": {"open_id": "ou_bot"}, "name": "GPU Advisor"}]


def say(h: FeishuHarness, text: str) -> str:
    before = len(h.fake.of("messages.reply"))
    h.send.message(f"@_user_1 {text}", chat=GROUP, chat_type="group", user=OWNER, mentions=MENTION)
    h.fake.wait_for(lambda: len(h.fake.of("messages.reply")) > before)
    settled(h.deps)
    return json.dumps(h.fake.of("messages.reply")[-1].card, ensure_ascii=False)


def test_balance_and_power_typed_in_a_group(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        idle_box(h)
        team = "feishu:" + h.send.tenant
        said = say(h, "balance autodl 320")
        assert "autodl" in said and "320" in said
        [kept] = Balances(h.deps.store).latest(team)
        assert (kept.provider, kept.amount, kept.recorded_by) == ("autodl", 320.0, OWNER)
        refused = say(h, "balance autodl lots")
        assert "lots" in refused and ("不是余额" in refused or "is not a balance" in refused)
        assert len(Balances(h.deps.store).latest(team)) == 1  # nothing written
        say(h, "power train-1 off")
        inst = Rentals(h.deps.store).instance(team, "train-1")
        assert inst is not None
        [*_, last] = PowerLog(h.deps.store).reports([inst.id])[inst.id]
        assert (last.state, last.source, last.at) == (Power.OFF, "person", h.clock.now)


def test_power_at_a_time_of_day_in_a_group_is_read_on_the_groups_clock(tmp_path: Path) -> None:
    """Feishu does not tell the bot a person's time zone: `power NAME off at=2:00` is read on the group's clock (its
    digest's zone, set with `remind at … ZONE`), not the server's."""
    from datetime import timedelta

    with running_feishu(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI  # 02:10 in Berlin
        idle_box(h)
        say(h, "remind at 09:30 Europe/Berlin")
        said = say(h, "power train-1 off at=2:00")
        assert "2026-11-30 02:00 Europe/Berlin" in said, said
        inst = Rentals(h.deps.store).instance("feishu:" + h.send.tenant, "train-1")
        assert inst is not None
        [*_, last] = PowerLog(h.deps.store).reports([inst.id])[inst.id]
        assert (last.state, last.source, last.at) == (Power.OFF, "person", h.clock.now - timedelta(minutes=10))
