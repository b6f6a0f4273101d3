"""`gpu-advise power`, `billing`, `balance` and `track instance --billing/--provider` in the terminal: what they
keep, what `list --json` and `power --json` then say, and bad values refused naming the field, nothing written."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.text.format import money
from tests.support.cli import run_cli

ENV = {"GPU_ADVISOR_LANG": "en", "GPU_ADVISOR_REMIND_TZ": "Asia/Shanghai"}


def cli(tmp: Path, *args: str, lang: str = "en"):  # type: ignore[no-untyped-def]
    team = () if "--team" in args else ("--team", "T1")
    return run_cli(*args, *team, env=ENV | {"GPU_ADVISOR_LANG": lang}, tmp=tmp)


def track(tmp: Path, name: str, price: str, started: datetime, *extra: str) -> None:
    done = cli(
        tmp, "track", "instance", name, "--gpu", "A100-80GB", "--share", "1/2", "--price", price, "--channel", "C1",
        "--owner", "U1", "--started", started.isoformat(), *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_power_reports_make_an_hourly_slice_bill_only_while_on(tmp_path: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    start = now - timedelta(hours=10)
    track(tmp_path, "slice", "14/h", start, "--provider", "autodl")
    off, on = now - timedelta(hours=8), now - timedelta(hours=2)
    assert cli(tmp_path, "power", "slice", "off", "--at", off.isoformat()).returncode == 0
    again = cli(tmp_path, "power", "slice", "off", "--at", off.isoformat())
    assert again.returncode == 0 and "already kept" in again.stdout  # a repeated report is kept once
    assert cli(tmp_path, "power", "slice", "on", "--at", on.isoformat()).returncode == 0
    stretches = json.loads(cli(tmp_path, "power", "slice", "--json").stdout)
    assert [(s["state"], s["source"]) for s in stretches] == [("on", "track"), ("off", "person"), ("on", "person")]
    assert stretches[1]["from"] == off.isoformat() and stretches[1]["to"] == on.isoformat()
    [item] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert (item["billing"], item["stop_billing"], item["power"], item["provider"]) == (
        "hourly",
        "stops",
        "on",
        "autodl",
    )
    month = now.astimezone(ZoneInfo("Asia/Shanghai")).replace(day=1, hour=0, minute=0, second=0)

    def within_month(lo: datetime, hi: datetime) -> float:  # the run may straddle the month's start
        return max((hi - max(lo, month)).total_seconds(), 0.0) / 3600

    expected = within_month(start, off) + within_month(on, now)  # 4 h of the 10: the 6 off are not billed
    assert abs(item["billed_hours_this_month"] - expected) < 0.05
    assert abs(item["spent_this_month"] - expected * 14) < 0.7  # the same hours at ¥14/h, the chats' figure
    [line] = [ln for ln in cli(tmp_path, "list").stdout.splitlines() if ln.startswith("slice\t")]
    assert line.split("\t")[-1] == money(item["spent_this_month"], "CNY")  # the text says the JSON's money


def test_billing_and_a_balance_with_its_runway(tmp_path: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "card", "400/day", now - timedelta(hours=1), "--provider", "autodl")
    [item] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert item["billing"] == "day"  # from the price's unit
    shown = cli(tmp_path, "billing", "card")  # alone: how it bills now (it was refused for want of a basis)
    assert shown.stdout.startswith(
        "card: billed by the day (each day started); on or off, each period started is billed until it is released;"
        " at ¥400/day. Change it with `gpu-advise billing card"
    ), shown.stdout
    changed = cli(tmp_path, "billing", "card", "hourly", "--stop-billing", "keeps")
    assert changed.returncode == 0 and "billed hourly" in changed.stdout
    assert "a month is billed" not in changed.stdout  # by the hour: its day price spread over the hours
    monthly = cli(tmp_path, "billing", "card", "month")  # a month at a day's price: what a month is billed, said
    assert "card is priced ¥400/day: a month is billed at ¥12,000" in monthly.stdout, monthly.stdout
    assert "`billing card price=20000/month`" in monthly.stdout
    assert cli(tmp_path, "billing", "card", "hourly", "--stop-billing", "keeps").returncode == 0
    assert "a stopped box is still billed" in cli(tmp_path, "billing", "card").stdout
    # the stop mode said in Chinese, as chat's `billing card 包月 关机也计费` says it (refused before)
    assert cli(tmp_path, "billing", "card", "hourly", "--stop-billing", "关机不计费").returncode == 0
    assert "stopping it stops the meter" in cli(tmp_path, "billing", "card").stdout
    assert cli(tmp_path, "billing", "card", "hourly", "--stop-billing", "关机也计费").returncode == 0
    assert "a stopped box is still billed" in cli(tmp_path, "billing", "card").stdout
    assert "--price 1.88/h" in cli(tmp_path, "billing", "card", "--stop-billing", "keeps").stderr  # no basis to keep
    moved = cli(tmp_path, "billing", "card", "--provider", "阿里云")  # the provider alone (it asked for a basis)
    assert moved.returncode == 0 and "bills to the aliyun balance" in moved.stdout, moved.stderr
    assert cli(tmp_path, "billing", "card", "--provider", "autodl").returncode == 0
    recorded = cli(tmp_path, "balance", "autodl", "320", "--at", now.isoformat())
    assert recorded.returncode == 0, recorded.stderr
    [row] = json.loads(cli(tmp_path, "balance", "--json").stdout)
    # 400/day billed by the hour: 16.67/h, nothing billed since the balance was recorded a moment ago
    assert (row["provider"], row["balance"], row["currency"]) == ("autodl", 320.0, "CNY")
    assert abs(row["burn_per_hour"] - 400 / 24) < 1e-3 and 18.9 < row["runway_hours"] <= 19.2
    text = cli(tmp_path, "balance").stdout
    assert (
        text.startswith("autodl: about ¥")
        and "h at the average rate since its items started, 1 h ago" in text  # rented an hour ago
        and "Asia/Shanghai" in text
    )


def test_a_runpod_box_and_balance_said_without_a_currency_are_in_dollars(tmp_path: Path) -> None:
    """`--provider runpod --price 2/h` kept ¥2 an hour and `balance runpod 500` ¥500: RunPod bills in dollars."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "pod", "2/h", now - timedelta(hours=1), "--provider", "runpod")
    [item] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert (item["price"], item["currency"]) == (2.0, "USD")
    assert cli(tmp_path, "balance", "runpod", "500").returncode == 0
    [row] = json.loads(cli(tmp_path, "balance", "--json").stdout)
    assert (row["provider"], row["balance"], row["currency"]) == ("runpod", 500.0, "USD")
    track(tmp_path, "home", "2/h", now - timedelta(hours=1), "--provider", "autodl")  # a Chinese platform: yuan
    listed = {i["name"]: i["currency"] for i in json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]}
    assert listed == {"pod": "USD", "home": "CNY"}


def test_at_takes_the_times_the_chats_take(tmp_path: Path) -> None:
    """`--at` reads what chat's `at=` reads (bot/fields/moments.py): `2h ago` was refused as not ISO 8601."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "slice", "14/h", now - timedelta(hours=5))
    done = cli(tmp_path, "power", "slice", "off", "--at", "2h ago")
    assert done.returncode == 0 and "slice: off from " in done.stdout, done.stderr
    [_, off] = json.loads(cli(tmp_path, "power", "slice", "--json").stdout)
    assert abs(datetime.fromisoformat(off["from"]) - (now - timedelta(hours=2))) < timedelta(minutes=1)
    assert off["source"] == "person"


def test_a_balance_as_typed_keeps_the_currency_its_sign_says(tmp_path: Path) -> None:
    """`balance autodl '$500'` kept ¥500 (the sign dropped, --currency's CNY kept); `还剩三千二` was no balance."""
    assert cli(tmp_path, "balance", "autodl", "$500").returncode == 0
    assert cli(tmp_path, "balance", "aliyun", "还剩三千二").returncode == 0
    assert cli(tmp_path, "balance", "aws", "3千2", "--currency", "USD").returncode == 0
    rows = {r["provider"]: (r["balance"], r["currency"]) for r in json.loads(cli(tmp_path, "balance", "--json").stdout)}
    assert rows == {"autodl": (500.0, "USD"), "aliyun": (3200.0, "CNY"), "aws": (3200.0, "USD")}


def test_bad_values_name_the_field_in_the_users_language_and_write_nothing(tmp_path: Path) -> None:
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "slice", "14/h", now - timedelta(hours=3))
    for args, said in [
        (("balance", "--team", "T1", "--", "autodl", "-5"), "a prepaid balance cannot be negative"),
        (("balance", "autodl", "inf"), "is not a balance"),
        (("balance", "AutoDL!", "5"), "is not a provider name"),
        (("balance", "AutoDL!"), "is not a provider name"),  # said first: it asked for the balance of AutoDL!
        (("billing", "slice", "--price", "$8/h"), "'slice' is billed in CNY, and that price is in USD"),
        (("balance", "autodl", "5", "--at", (now + timedelta(days=1)).isoformat()), "is in the future"),
        (("balance", "autodl", "$500", "--currency", "CNY"), "'$500' is in another currency than CNY"),
        (("billing", "slice", "weekly"), "is not a billing basis: give hourly, day, month"),
        (("billing", "slice", "hourly", "--stop-billing", "maybe"), "stops (stopping stops the meter) or keeps"),
        (("power", "slice", "sideways"), "is not a power state: give on or off"),
        (("power", "slice", "off", "--at", (now + timedelta(hours=1)).isoformat()), "is in the future"),
        (("power", "slice", "off", "--at", "soon"), "--at: 'soon' is not a time: give 23:30 (the last 23:30)"),
        (("power", "nope", "off"), "no instance named 'nope'"),
    ]:
        done = cli(tmp_path, *args)
        assert done.returncode == 2 and said in done.stderr, (args, done.stderr)
    bad_basis = cli(tmp_path, "track", "instance", "b2", "--gpu", "A100-80GB", "--price", "14/h", "--channel", "C1",
                    "--owner", "U1", "--billing", "weekly")  # fmt: skip
    assert bad_basis.returncode == 2 and "--billing: 'weekly' is not a billing basis" in bad_basis.stderr
    assert json.loads(cli(tmp_path, "balance", "--json").stdout) == []
    assert [i["name"] for i in json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]] == ["slice"]
    assert [s["source"] for s in json.loads(cli(tmp_path, "power", "slice", "--json").stdout)] == ["track"]
    zh = cli(tmp_path, "billing", "slice", "weekly", lang="zh")
    assert zh.returncode == 2 and "不是计费方式" in zh.stderr


def test_a_persons_report_inside_what_the_agent_saw_is_refused_naming_it(tmp_path: Path) -> None:
    from bot.settings import state_db_beside
    from bot.state import Store
    from bot.state.power import PowerLog, Sighting
    from bot.state.rentals import Rentals
    from rules.power import Power

    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "slice", "14/h", now - timedelta(hours=3))
    store = Store(f"sqlite:///{state_db_beside(tmp_path / 'advisor.db')}")
    inst = Rentals(store).instance("T1", "slice")
    assert inst is not None
    beats = [Sighting(inst.id, Power.ON, now - timedelta(minutes=m), "agent") for m in range(60, -1, -5)]
    PowerLog(store).sight(beats)  # its agent posted every 5 minutes for the last hour
    inside = cli(tmp_path, "power", "slice", "off", "--at", (now - timedelta(minutes=30)).isoformat())
    assert inside.returncode == 2 and "agent saw it the other way" in inside.stderr
    assert "give a time outside that stretch" in inside.stderr
    assert [s["source"] for s in json.loads(cli(tmp_path, "power", "slice", "--json").stdout)][-1] == "agent"


def test_a_balance_without_at_is_now_and_a_negative_or_future_one_is_refused_naming_it(tmp_path: Path) -> None:
    """Issue 53.8: `balance autodl 100` (no --at, as documented) was always "in the future"; `-5` was click's "No
    such option"; a time to come did not say which flag it was about."""
    kept = cli(tmp_path, "balance", "autodl", "100")
    assert kept.returncode == 0, kept.stderr
    assert not kept.stdout.startswith("Kept:")  # read now: the runway line says it
    read = (datetime.now(ZoneInfo("Asia/Shanghai")) - timedelta(days=1)).replace(hour=9, minute=0, second=0)
    earlier = cli(tmp_path, "balance", "autodl", "100", "--at", f"{read:%Y-%m-%dT%H:%M}")  # yesterday 9:00, any day
    assert earlier.stdout.startswith(f"Kept: autodl had ¥100 at {read:%Y-%m-%d} 09:00 Asia/Shanghai.\n"), earlier.stdout
    [row] = json.loads(cli(tmp_path, "balance", "--json").stdout)
    assert (row["provider"], row["balance"]) == ("autodl", 100.0)
    negative = cli(tmp_path, "balance", "autodl", "-5")
    assert (
        negative.returncode == 2 and "cannot be negative" in negative.stderr and "No such option" not in negative.stderr
    )
    later = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    future = cli(tmp_path, "balance", "autodl", "90", "--at", later)
    assert future.returncode == 2 and future.stderr.strip().startswith("--at:") and "in the future" in future.stderr
    track(tmp_path, "slice", "14/h", datetime.now(UTC) - timedelta(hours=1))
    power = cli(tmp_path, "power", "slice", "off", "--at", later)
    assert power.returncode == 2 and "--at" in power.stderr and "in the future" in power.stderr
    assert [r["balance"] for r in json.loads(cli(tmp_path, "balance", "--json").stdout)] == [100.0]  # nothing kept


def test_a_balance_says_which_items_burn_it_most_first(tmp_path: Path) -> None:
    """Issue 52: `balance` and the digest say which items burn a wallet."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "small", "4/h", now - timedelta(hours=3), "--provider", "autodl")
    track(tmp_path, "big", "20/h", now - timedelta(hours=3), "--provider", "autodl")
    track(tmp_path, "elsewhere", "9/h", now - timedelta(hours=3), "--provider", "matpool")
    assert cli(tmp_path, "balance", "autodl", "500", "--at", now.isoformat()).returncode == 0
    [row] = json.loads(cli(tmp_path, "balance", "--json").stdout)
    assert row["burning"] == ["big", "small"]
    assert "; burning it: big, small" in cli(tmp_path, "balance").stdout


def test_a_slice_on_its_daily_schedule_is_listed_as_such(tmp_path: Path) -> None:
    """Issue 52: a slice powered off on its normal daily schedule read as an item to act on. `list` says it is on a
    schedule, about how many hours a day, and `list --json` gives schedule_hours_a_day."""
    # the terminal reads its own clock: the slice starts three days before it, to the second, whatever the hour
    # (rounded to the hour, the average read 3.9 h late in an hour: the last stretch off ran on to the minute)
    now = datetime.now(UTC).replace(microsecond=0)
    start = now - timedelta(days=3)
    track(tmp_path, "slice", "14/h", start, "--provider", "autodl")
    for day in range(3):  # on 4 h, then off 20 h, each day
        off = start + timedelta(days=day, hours=4)
        assert cli(tmp_path, "power", "slice", "off", "--at", off.isoformat()).returncode == 0
        if day < 2:
            on = start + timedelta(days=day + 1)
            assert cli(tmp_path, "power", "slice", "on", "--at", on.isoformat()).returncode == 0
    [item] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert item["power"] == "off" and item["schedule_hours_a_day"] == 4.0
    assert "off, on a schedule (about 4 h a day)" in cli(tmp_path, "list").stdout


def test_storage_says_its_money_this_month_in_list_json_and_its_table(tmp_path: Path) -> None:
    """Budgets and App Home count storage by the GB-month since the month began; `list` gave only its price."""
    created = datetime.now(UTC) - timedelta(days=40)  # a month and more ago: this month counts from its start
    stored = cli(
        tmp_path, "track", "storage", "ckpt", "--size-gb", "300", "--price-gb-month", "0.3", "--channel", "C1",
        "--owner", "U1", "--created", created.isoformat(),
    )  # fmt: skip
    assert stored.returncode == 0, stored.stderr
    before = datetime.now(UTC)
    [kept] = json.loads(cli(tmp_path, "list", "--json").stdout)["storage"]
    month = before.astimezone(ZoneInfo("Asia/Shanghai")).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    days = (datetime.now(UTC) - month).total_seconds() / 86400
    assert abs(kept["spent_this_month"] - 300 * 0.3 / 30 * days) < 0.02, kept  # ¥3 a day since the 1st, Shanghai
    row = cli(tmp_path, "list").stdout.splitlines()[-1].split("\t")  # piped: a row a line, the money last
    assert row[0] == "ckpt" and row[-1] == money(kept["spent_this_month"], "CNY"), row


def test_a_tracked_price_with_its_sign_is_in_that_currency(tmp_path: Path) -> None:
    """`--price '$2.5/h'` was kept as 2.5 CNY an hour: --currency defaulted to CNY over the sign."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "usd-box", "$2.5/h", now - timedelta(hours=1))
    [row] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert (row["price"], row["currency"]) == (2.5, "USD")
    both = cli(tmp_path, "track", "instance", "b2", "--gpu", "A100", "--price", "$2/h", "--currency", "CNY",
               "--channel", "C1", "--owner", "U1")  # fmt: skip
    assert both.returncode == 2 and "'$2/h' is in another currency than CNY" in both.stderr
    disk = cli(tmp_path, "track", "storage", "d1", "--size-gb", "500", "--price-gb-month", "0.02美元/GB/月",
               "--channel", "C1", "--owner", "U1")  # fmt: skip
    assert disk.returncode == 0, disk.stderr
    [kept] = json.loads(cli(tmp_path, "list", "--json").stdout)["storage"]
    assert (kept["price_gb_month"], kept["currency"]) == (0.02, "USD")


def test_a_top_up_is_added_to_what_is_left_now(tmp_path: Path) -> None:
    """`balance autodl +2000` (or 充值2000): a person who tops up knows what they paid in, rarely the new total; the
    amount typed as a balance replaced ¥3,000 with ¥2,000. It is added to what is left now and kept as the balance
    now; with no balance known, in another currency, or at another time, it is refused and nothing is kept."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "box", "14/h", now - timedelta(hours=3), "--provider", "autodl")
    refused = cli(tmp_path, "balance", "autodl", "+2000")
    assert refused.returncode == 2 and "no balance of autodl is known to add 2000 to" in refused.stderr
    assert json.loads(cli(tmp_path, "balance", "--json").stdout) == []
    assert cli(tmp_path, "balance", "autodl", "3000", "--at", "2h ago").returncode == 0  # ¥28 billed since
    done = cli(tmp_path, "balance", "autodl", "+2000")
    assert done.returncode == 0 and "autodl: topped up ¥2,000; ¥2,972 was left, ¥4,972 now" in done.stdout, done.stdout
    assert cli(tmp_path, "balance", "autodl", "充值500").returncode == 0
    [row] = json.loads(cli(tmp_path, "balance", "--json").stdout)
    assert abs(row["balance"] - 5472) < 0.1 and row["currency"] == "CNY"
    for said, problem in (("+$5", "a top-up in USD is not added"), ("+abc", "abc")):
        refused = cli(tmp_path, "balance", "autodl", said)
        assert refused.returncode == 2 and problem in refused.stderr, refused.stderr
    refused = cli(tmp_path, "balance", "autodl", "+5", "--at", "1h ago")
    assert refused.returncode == 2 and "added to what is left now" in refused.stderr
    [same] = json.loads(cli(tmp_path, "balance", "--json").stdout)
    assert same["balance"] == row["balance"]


def test_budget_forecast_is_the_teams_month_budgeted_or_not(tmp_path: Path) -> None:
    """`gpu-advise budget forecast` (chat's `这个月大概要花多少`): the team's month in each currency, with no budget."""
    refused = cli(tmp_path, "budget", "forecast")
    assert refused.returncode == 0 and "`gpu-advise track instance NAME" in refused.stdout, refused.stdout
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "slice", "14/h", now - timedelta(hours=2))
    [row] = json.loads(cli(tmp_path, "budget", "forecast", "--json").stdout)
    [item] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert row["currency"] == "CNY" and row["forecast"] > row["spent"] > 0, row
    assert row["next_month"] > 14 * 24 * 27, row  # every hour of next month (at least 28 days) at its rate
    assert abs(row["spent"] - item["spent_this_month"]) < 0.02  # one figure: list's month (the hour may move on)
    said = cli(tmp_path, "budget", "forecast").stdout
    assert "The whole team this month" in said and f"{money(row['spent'], 'CNY')} so far" in said, said
    assert json.loads(cli(tmp_path, "budget", "--json").stdout) == []  # no budget was set by asking


def test_billing_takes_chats_words_as_the_flags_they_stand_for(tmp_path: Path) -> None:
    """`billing card provider=autodl`, which the balance's own hint says, was refused as "not a billing basis"; chat's
    keys and words are the flags they stand for, a key given as its flag too is refused, and nothing is written."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "card", "400/day", now - timedelta(hours=1))
    assert "bills to the autodl balance" in cli(tmp_path, "billing", "card", "provider=autodl").stdout
    said = cli(tmp_path, "billing", "card", "包月", "price=12000/month", "项目=llm", "owner=U2", "关机也计费")
    assert said.returncode == 0, said.stderr
    [item] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    kept = ("billing", "stop_billing", "provider", "project", "owner", "price", "unit")
    assert {k: item[k] for k in kept} == {
        "billing": "month", "stop_billing": "keeps", "provider": "autodl", "project": "llm", "owner": "U2",
        "price": 12000, "unit": "month",
    }  # fmt: skip
    for words, error in (
        (["foo=1"], "unknown key 'foo'; keys: cards, gpu, owner"),
        (["哈哈"], "'哈哈' is not a billing basis"),
        (["hourly", "哈哈"], "`哈哈` is not read: give how it bills"),
        (["provider=aliyun", "--provider", "autodl"], "--provider is given twice"),
    ):
        refused = cli(tmp_path, "billing", "card", *words)
        assert refused.returncode == 2 and error in refused.stderr, (words, refused.stderr)
    [after] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert after == item


def test_power_takes_chats_at_among_its_words(tmp_path: Path) -> None:
    """`power NAME off at=23:30`, as chat's power and its own usage say it, was "more than the command takes"."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "slice", "14/h", now - timedelta(hours=10))
    off = now - timedelta(hours=8)
    said = cli(tmp_path, "power", "slice", "off", f"at={off.isoformat()}")
    assert said.returncode == 0, said.stderr
    stretches = json.loads(cli(tmp_path, "power", "slice", "--json").stdout)
    assert [(s["state"], s["from"]) for s in stretches][-1] == ("off", off.isoformat())
    twice = cli(tmp_path, "power", "slice", "on", f"at={now.isoformat()}", "--at", now.isoformat())
    assert twice.returncode == 2 and "--at is given twice" in twice.stderr
    extra = cli(tmp_path, "power", "slice", "on", "soon")  # read as its time, which it is not: refused naming it
    assert extra.returncode == 2 and "--at: 'soon' is not a time" in extra.stderr, extra.stderr
    again = cli(tmp_path, "power", "slice", "on", "2h", "ago", "--at", now.isoformat())
    assert again.returncode == 2 and "--at is given twice" in again.stderr
    more = cli(tmp_path, "power", "slice", "on", "soon", f"at={now.isoformat()}")  # a word more, then the time
    assert more.returncode == 2 and "more than the command takes: soon" in more.stderr, more.stderr
    after = json.loads(cli(tmp_path, "power", "slice", "--json").stdout)
    assert [(s["state"], s["from"]) for s in after] == [(s["state"], s["from"]) for s in stretches]  # nothing kept


def test_balance_takes_its_amount_in_words_and_its_provider_last(tmp_path: Path) -> None:
    """`balance 3200 aliyun` was refused as no provider named "3200", `balance aliyun 3300 元` as "more than the command
    takes": as chat reads them."""
    said_so = ((["3200", "aliyun"], 3200), (["aliyun", "3300", "元"], 3300), (["aliyun", "还剩", "三千二"], 3200))
    for words, left in said_so:
        said = cli(tmp_path, "balance", *words)
        assert said.returncode == 0 and f"¥{left:,} left" in said.stdout, (words, said.stderr)
    listed = json.loads(cli(tmp_path, "balance", "--json").stdout)
    assert [(b["provider"], b["balance"]) for b in listed] == [("aliyun", 3200)], listed


def test_a_balance_typed_under_a_wrong_name_is_forgotten_with_forget(tmp_path: Path) -> None:
    """The terminal's `balance autdl 300` says the provider likely meant and the terminal's way to take it back;
    `--forget` takes back every row of it (the operator's: no one else's to refuse), exit 2 for none kept or more
    words, as chat's `balance autdl forget`."""
    typo = cli(tmp_path, "balance", "autdl", "300")
    assert typo.returncode == 0 and "did you mean autodl? If so, `gpu-advise balance autdl --forget`" in typo.stdout
    assert cli(tmp_path, "balance", "aliyun", "500").returncode == 0
    forgot = cli(tmp_path, "balance", "autdl", "--forget")
    assert forgot.returncode == 0 and "Forgot the balance of autdl (1 kept)" in forgot.stdout, forgot.stderr
    assert "aliyun: about ¥500 left" in forgot.stdout and "autdl:" not in forgot.stdout
    again = cli(tmp_path, "balance", "autdl", "--forget")
    assert (
        again.returncode == 2
        and "No balance of autdl is kept, so there is none to forget; kept: aliyun" in again.stderr
    )
    more = cli(tmp_path, "balance", "aliyun", "300", "--forget")
    assert more.returncode == 2 and "--forget takes the provider alone" in more.stderr
    alone = cli(tmp_path, "balance", "--forget")  # no provider named
    assert alone.returncode == 2 and "--forget takes the provider alone" in alone.stderr
    assert [b["provider"] for b in json.loads(cli(tmp_path, "balance", "--json").stdout)] == ["aliyun"]


def test_power_takes_the_time_after_on_or_off_without_at(tmp_path: Path) -> None:
    """`power NAME off 昨晚11点` and `power NAME on at 2h ago` were "more than the command takes": the words after on
    or off are its time, as chat's `训练机 关机 昨晚11点` takes them."""
    now = datetime.now(UTC).replace(microsecond=0)
    track(tmp_path, "slice", "14/h", now - timedelta(hours=10))
    assert cli(tmp_path, "power", "slice", "off", "3h", "ago").returncode == 0
    assert cli(tmp_path, "power", "slice", "on", "at", "2h", "ago").returncode == 0
    stretches = json.loads(cli(tmp_path, "power", "slice", "--json").stdout)
    states = [(s["state"], round((now - datetime.fromisoformat(s["from"])).total_seconds() / 3600)) for s in stretches]
    assert states[-2:] == [("off", 3), ("on", 2)], states


def test_power_in_a_terminal_is_a_table_in_the_readers_words_and_through_a_pipe_as_scripts_read_it(
    tmp_path: Path,
) -> None:
    """`gpu-advise power NAME` printed `on` and `track` between tabs in a terminal too, in a Chinese team's terminal."""
    track(tmp_path, "slice", "14/h", datetime.now(UTC) - timedelta(hours=5))
    assert cli(tmp_path, "power", "slice", "off", "--at", "2h ago").returncode == 0
    piped = [line.split("\t") for line in cli(tmp_path, "power", "slice").stdout.splitlines()]
    assert [(row[2], row[4]) for row in piped] == [("on", "track"), ("off", "person")], piped
    env = ENV | {"GPU_ADVISOR_LANG": "zh", "TTY_COMPATIBLE": "1", "COLUMNS": "100"}
    shown = run_cli("power", "slice", "--team", "T1", env=env, tmp=tmp_path).stdout
    assert "开始（" in shown and "开机" in shown and "关机" in shown and "登记时" in shown and "有人报告" in shown, (
        shown
    )
    assert "\ton\t" not in shown


def test_a_balance_no_item_burns_says_the_terminals_commands_and_they_work(tmp_path: Path) -> None:
    """It suggested chat's `billing NAME provider=autodl` in the terminal."""
    kept = cli(tmp_path, "balance", "autodl", "3000")
    assert kept.returncode == 0 and "(gpu-advise billing NAME --provider autodl)" in kept.stdout, kept.stdout
    assert "`billing" not in kept.stdout and "provider=autodl" not in kept.stdout
    track(tmp_path, "box1", "14/h", datetime.now(UTC) - timedelta(hours=2))
    assert cli(tmp_path, "billing", "box1", "--provider", "autodl").returncode == 0  # what it suggests works
    burned = cli(tmp_path, "balance", "autodl")  # the provider alone: its own, as chat's (it was "give the balance")
    assert burned.returncode == 0 and "burning it: box1" in burned.stdout, burned.stderr
    none = cli(tmp_path, "balance", "阿里云")  # named as people name it, kept as aliyun
    assert none.returncode == 0 and "No balance of aliyun recorded: gpu-advise balance aliyun" in none.stdout
