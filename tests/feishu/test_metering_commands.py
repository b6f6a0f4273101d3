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
