"""One figure everywhere, as a person reads it (issue 52): one item whose price changed mid-month, at one
moment, reads the same month-to-date money in Slack's `list`, `budget`, `balance`, App Home and the digest, and
in the report's rows (as `report --json` composes them), each through the surface a person uses (real signed
requests to the app, the digest as the fake Slack received it). `tests/metering/test_one_figure.py` checks the
functions beneath; this checks that no surface computes the figure another way (another zone, another price,
the burn of this instant)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.state.balances import Balances
from bot.state.budgets import Budgets
from bot.state.rentals import Rentals
from rules.samples import Sample
from tests.metering.test_chat_commands import reply, say
from tests.support.slack_harness import Harness, running_app

SHANGHAI = ZoneInfo("Asia/Shanghai")  # the harness's digest zone (the default)
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)  # the month's first minute there
NOW = START + timedelta(days=3)
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 10.0, "currency": "CNY",
          "channel": "C1", "owner": "U1", "project": "llm", "provider": "autodl"}  # fmt: skip
EXPECTED = 36 * 10.0 + 36 * 20.0  # each hour at the price it had: ¥1,080


def amounts(text: str) -> list[float]:
    return [float(a.replace(",", "")) for a in re.findall(r"¥([\d,]+(?:\.\d+)?)", text)]


def rented(h: Harness) -> None:
    h.clock.now = NOW
    h.fake.locales["U1"] = "en-US"
    rentals = Rentals(h.deps.store)
    inst, _ = rentals.track_instance("T1", "box", FIELDS | {"started_at": START})
    rentals.set_price("T1", "box", 20.0, "hour", "U1", START + timedelta(hours=36))
    quiet = [Sample(NOW - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(180, -1, -5)]  # idle: digested
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    Budgets(h.deps.store).put("T1", "llm", 5000.0, "CNY", "U1", START)
    Balances(h.deps.store).record("T1", "autodl", 5000.0, "CNY", START, START, by="U1")


def app_home(h: Harness) -> str:
    h.send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}, event_id="EvHomeOne")
    (published,) = h.fake.wait_for(lambda: h.fake.of("views.publish"))
    return json.dumps(published["view"], ensure_ascii=False)


def digest(h: Harness) -> str:
    assert h.send_digest().status == "sent"
    [posted] = [p for p in h.posts(channel="C1") if p.get("blocks")]
    return json.dumps(posted["blocks"], ensure_ascii=False)


def report_json(h: Harness) -> dict[str, Any]:
    from bot.report.compose import compose

    # what `report --json` prints for this month so far: its rows are the days of [START, NOW)
    made = compose(Rentals(h.deps.store), "T1", START.date(), (NOW - timedelta(days=1)).date(), zone=SHANGHAI,
                   now=NOW, busy_above_pct=5)  # fmt: skip
    return {"cost": sum(r.cost for r in made.rows if r.item == "box")}


def test_one_items_money_reads_the_same_in_every_surface(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rented(h)
        listed = say(h, 1, "list")
        [line] = [ln for ln in listed.splitlines() if "*box*" in ln]
        assert amounts(line)[-1] == EXPECTED, line  # '· ¥1,080 this month'
        budget = say(h, 2, "budget")
        assert EXPECTED in amounts(budget), budget
        balance = say(h, 3, "balance")
        assert 5000.0 - EXPECTED in amounts(balance), balance  # what is left of the wallet billed since
        home = app_home(h)
        assert f"Your spend this month: ¥{EXPECTED:,.0f}" in home, home
        said = digest(h)
        assert f"llm ¥{EXPECTED:,.0f} of ¥5,000" in said, said
        assert report_json(h)["cost"] == EXPECTED


def test_a_channel_with_its_own_digest_zone_counts_its_items_month_there_everywhere(tmp_path: Path) -> None:
    """The month of an item starts at midnight in its channel's digest zone: a channel on UTC counts December from
    08:00 in Shanghai, in `list`, `budget`, the digest and App Home alike (App Home counted from the default zone)."""
    with running_app(tmp_path) as h:
        rented(h)
        assert "UTC" in say(h, 1, "remind at 09:30 UTC")
        expected = 28 * 10.0 + 36 * 20.0  # from 00:00 UTC on 1 December (08:00 in Shanghai): 8 hours fewer
        [line] = [ln for ln in say(h, 2, "list").splitlines() if "*box*" in ln]
        assert amounts(line)[-1] == expected, line
        assert expected in amounts(say(h, 3, "budget"))
        assert f"Your spend this month: ¥{expected:,.0f}" in app_home(h)


def test_storage_reads_its_months_money_in_list_as_budgets_and_app_home_count_it(tmp_path: Path) -> None:
    """Budgets, the digest and App Home counted storage by the GB-month since the month began; `list` said only its
    price a month, so its lines did not add up to the budget's spend."""
    with running_app(tmp_path) as h:
        rented(h)
        stored = {"channel": "C1", "owner": "U1", "project": "llm", "size_gb": 300.0, "price_gb_month": 0.3,
                  "currency": "CNY", "created_at": START - timedelta(days=10)}  # fmt: skip
        Rentals(h.deps.store).track_storage("T1", "ckpt", stored, None)
        kept = 300 * 0.3 / 30 * 3  # three days of this month: ¥9
        [line] = [ln for ln in say(h, 1, "list").splitlines() if "*ckpt*" in ln]
        assert amounts(line)[-1] == kept and "this month" in line, line
        assert EXPECTED + kept in amounts(say(h, 2, "budget"))
        assert f"Your spend this month: ¥{EXPECTED + kept:,.0f}" in app_home(h)


def test_list_typed_in_another_channel_counts_each_items_month_in_its_own(tmp_path: Path) -> None:
    """`list` counted every item's month from the zone of the channel it was typed in: typed in a channel on the
    default zone it said a UTC channel's item eight hours richer than that item's budget and digest."""
    with running_app(tmp_path) as h:
        rented(h)
        assert "UTC" in say(h, 1, "remind at 09:30 UTC")  # C1, where the box is
        expected = 28 * 10.0 + 36 * 20.0
        h.send.command("list", channel="C2", response_url=h.fake.response_url("2"))
        [line] = [ln for ln in reply(h, 2).splitlines() if "*box*" in ln]
        assert amounts(line)[-1] == expected, line
