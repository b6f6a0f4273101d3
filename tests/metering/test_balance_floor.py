"""An amount a prepaid balance is told below (`余额低于500提醒我`, `balance autodl alert 500`, the terminal's
`--alert`): the runway alerts told hours left only, and `余额低于200时提醒我` was answered with that rule. Told once a
balance in the chats of the provider's items and the one it was set in, afresh after a top-up; `off` stops it."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from bot.digest.due import runways_due
from bot.server.chats import Chats
from bot.state.balance_floors import EVERY, Floors
from bot.state.balances import Balances
from bot.state.rentals import Rentals
from tests.chat.test_both_platforms import driving
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.cli import run_cli
from tests.support.fake_wecom import BOT_ID
from tests.support.wecom_harness import WeComHarness, running_wecom

TEAM = f"wecom:{BOT_ID}"
GROUP, OTHER, ANA = "wrkSFfCgAAxyzGroup01", "wrkSFfCgAAxyzGroup02", "ana.li"
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 10.0, "currency": "CNY",
          "owner": ANA, "project": "llm", "channel": OTHER, "provider": "autodl"}  # fmt: skip


def _say(h: WeComHarness, text: str) -> str:
    """`text` typed in the group; the bot's answer there."""
    before = len(h.fake.to(GROUP))
    h.fake.message(text, ANA, group=GROUP)
    h.fake.wait_for(lambda: len(h.fake.to(GROUP)) > before)
    h.settled()
    return h.fake.to(GROUP)[-1].text


def test_an_amount_set_in_words_is_told_once_a_balance_where_it_was_set_and_where_its_items_are(
    tmp_path: Path,
) -> None:
    with running_wecom(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        Rentals(h.deps.store).track_instance(TEAM, "box", FIELDS | {"started_at": h.clock.now})  # ¥10 an hour
        Balances(h.deps.store).record(TEAM, "autodl", 800.0, "CNY", h.clock.now, h.clock.now)
        said = _say(h, "autodl余额低于500提醒我")
        assert "autodl 的余额低于 500 时会在这里提醒" in said and "余额提醒线：autodl 500" in said, said
        tellers = Chats([h.gateway.wing()]).teller
        h.clock.now += timedelta(hours=20)  # ¥600 left: not yet (80 h left: no runway alert either)
        assert runways_due(h.deps, tellers) == []
        h.clock.now += timedelta(hours=11)  # ¥490 left
        [alert] = runways_due(h.deps, tellers)
        assert (alert.below_h, alert.below_amount, alert.channels) == (None, 500.0, [GROUP, OTHER])
        told = h.fake.to(OTHER)[-1].text
        assert "余额已低于 ¥500" in told and "autodl：约剩 ¥490" in told, told
        assert runways_due(h.deps, tellers) == []  # once a balance
        _say(h, "autodl 充值 1000")  # ¥1,490: above it, and a new balance
        h.clock.now += timedelta(hours=100)  # ¥490 again
        [again] = runways_due(h.deps, tellers)
        assert again.below_amount == 500.0
        assert "已取消 autodl 的余额金额提醒" in _say(h, "balance autodl alert off")
        assert Floors(h.deps.store).of(TEAM) == {}


def test_every_providers_amount_in_each_balances_currency_and_words_in_english(tmp_path: Path) -> None:
    with driving("wecom", tmp_path) as chat:
        said = chat.command("余额低于200时提醒我")  # answered with the hours rule before
        assert "各平台的余额低于 200 时会在这里提醒" in said, said
        chat.command("runpod balance 80 dollars")
        said = chat.command("alert me when runpod is below $50")
        assert "runpod's balance falls below $50" in said, said
        floors = Floors(chat.deps.store).of()  # type: ignore[attr-defined]
        assert {(p, f.amount, f.currency) for (_, p), f in floors.items()} == {
            (EVERY, 200.0, None),
            ("runpod", 50.0, "USD"),
        }
        refused = chat.command("autdl余额低于500提醒我")  # no balance of it, no item on it: a typo, said
        assert "这里没有记录 autdl 的余额" in refused, refused
        asked = chat.command("余额不足会提醒吗")  # asked, not set: the rule, and how to set one
        assert "余额按还能用多久提醒" in asked, asked
        before = Floors(chat.deps.store).of()  # type: ignore[attr-defined]
        assert "“lots”不是余额" in chat.command("balance runpod alert lots")  # an amount that is none: said, kept none
        assert Floors(chat.deps.store).of() == before  # type: ignore[attr-defined]


def test_the_terminal_sets_lists_and_takes_away_an_amount(tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db")}
    team = ("--team", "T1", "--lang", "en")
    assert run_cli("balance", "autodl", "3000", *team, env=env, tmp=tmp_path).returncode == 0
    done = run_cli("balance", "autodl", "--alert", "500", *team, env=env, tmp=tmp_path)
    assert done.returncode == 0 and "told when its balance falls below 500" in done.stdout, done.stdout
    listed = json.loads(run_cli("balance", "--json", *team, env=env, tmp=tmp_path).stdout)
    assert [(r["provider"], r["alert_below"]) for r in listed] == [("autodl", 500.0)]
    typo = run_cli("balance", "autdl", "--alert", "5", *team, env=env, tmp=tmp_path)
    assert typo.returncode == 2 and "did you mean autodl?" in typo.stderr
    off = run_cli("balance", "autodl", "--alert", "off", *team, env=env, tmp=tmp_path)
    assert off.returncode == 0 and "No amount alert for autodl now" in off.stdout
