"""`/gpu-advise track … billing= provider=`, `power NAME on|off`, `billing NAME …` and `balance …` through real
signed Slack requests to the app: what is kept, who may say it, and bad values named with what is accepted."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.state.balances import Balances
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.power import Power
from tests.support.slack_harness import Harness, running_app

NOW = datetime(2026, 12, 1, 2, tzinfo=UTC)


def reply(h: Harness, n: int) -> str:
    found: list[Any] = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith(f"/{n}")])
    return str(found[-1]["text"])


def say(h: Harness, n: int, text: str, user: str = "U1") -> str:
    h.send.command(text, user=user, response_url=h.fake.response_url(str(n)))
    return reply(h, n)


def test_track_power_billing_and_balance_from_slack(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = NOW
        h.fake.locales["U1"] = "en-US"
        said = say(h, 1, "track slice gpu=A100-80GB share=1/2 price=14/h provider=autodl stop-billing=keeps")
        assert "slice" in said
        inst = Rentals(h.deps.store).instance("T1", "slice")
        assert inst is not None and (inst.provider, inst.stop_billing, inst.billing) == ("autodl", "keeps", None)
        h.clock.advance(hours=3)
        assert "is off from now" in say(h, 2, "power slice off")
        assert "Only <@U1> (its owner) or a workspace admin" in say(h, 3, "power slice on", user="U7")
        reports = PowerLog(h.deps.store).reports([inst.id])[inst.id]
        assert [(r.state, r.source) for r in reports] == [(Power.ON, "track"), (Power.OFF, "person")]
        shown = say(h, 41, "billing slice")  # how it bills now, and how to change it (it answered the usage)
        assert shown.startswith("slice: billed hourly (while its meter runs); a stopped box is still billed; at ¥14/h")
        assert "Change it with `billing slice hourly|day|month [stops|keeps]`" in shown
        by_day = say(h, 4, "billing slice day")
        # a day item bills each day started, on or off: "a stopped box is still billed" (its hourly stop mode) is not
        # what it does, nor "stopping it stops the meter"
        assert by_day == "slice: billed by the day (each day started); " + (
            "on or off, each period started is billed until it is released\n"
            "slice is priced ¥14/hour: a day is billed at ¥336 (its hours at that rate); a daily price of its own: "
            "`billing slice price=400/day`"
        )
        assert "is not a billing basis" in say(h, 5, "billing slice weekly")
        listed = say(h, 6, "balance autodl 320")
        assert listed.startswith("autodl: about ¥")  # now a day card: its day's price spread over the day
        assert "at the average rate of the last 7 days (¥14/h)" in listed  # 14/h x 24 = 336 a day, spread: 14 an hour
        assert "is not a balance" in say(h, 7, "balance autodl lots")
        assert "is not a power state" in say(h, 8, "power slice sideways")
        [kept] = Balances(h.deps.store).latest("T1")
        assert (kept.provider, kept.amount, kept.currency, kept.recorded_by) == ("autodl", 320.0, "CNY", "U1")


def test_a_heartbeat_with_a_power_word_it_cannot_read_is_refused_naming_the_field(tmp_path: Path) -> None:
    import json
    import urllib.error
    import urllib.request

    with running_app(tmp_path) as h:
        h.clock.now = NOW
        _, token = Rentals(h.deps.store).track_instance(
            "T1", "box", {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 14.0,
                          "currency": "CNY", "channel": "C1", "owner": "U1", "project": None, "started_at": NOW},
        )  # fmt: skip
        request = urllib.request.Request(
            h.base_url + "/api/heartbeat",
            data=json.dumps({"samples": [], "power": "sideways"}).encode(),
            method="POST",
            headers={"Authorization": f"Bearer {token}"},
        )
        try:
            urllib.request.urlopen(request, timeout=10)
            raise AssertionError("a power word it cannot read was taken")
        except urllib.error.HTTPError as answer:
            said = json.loads(answer.read())
            assert answer.code == 400 and said["field"] == "power" and "'on' or 'off'" in said["error"]


def test_a_price_set_by_hand_in_chat_bills_from_then_and_is_refused_when_unreadable(tmp_path: Path) -> None:
    """Issue 52: there was no way to give a found item a price; `billing NAME price=1.88/h` sets one from now on."""
    from datetime import timedelta

    from rules import metering

    with running_app(tmp_path) as h:
        h.clock.now = NOW
        h.fake.locales["U1"] = "en-US"
        say(h, 1, "track box gpu=A100-80GB price=14/h")
        h.clock.advance(hours=4)
        said = say(h, 2, "billing box price=1.88/h")
        assert "box: ¥1.88/hour from now on, set by hand" in said, said
        refused = say(h, 3, "billing box price=cheap")
        assert "price: Could not read 'cheap'" in refused and "Accepted: 400/day, 14/h" in refused
        assert "Only <@U1> (its owner) or a workspace admin" in say(h, 5, "billing box price=1/h", user="U7")
        h.clock.advance(hours=6)
        inst = Rentals(h.deps.store).instance("T1", "box")
        assert inst is not None and (inst.price, inst.price_by) == (1.88, "U1")
        [stretches] = PowerLog(h.deps.store).timelines([inst], h.clock.now).values()
        billed = metering.cost(inst, stretches, NOW, NOW + timedelta(hours=10))
        assert billed == 4 * 14 + 6 * 1.88  # the first 4 hours at the price they had


def test_power_at_a_time_said_as_people_say_it_is_read_on_their_clock_and_bills_from_then(tmp_path: Path) -> None:
    """`power NAME off at=…` in chat (the terminal had `--at`; chat had only "now"): a time of day is the last such
    time on the person's own clock, `yesterday 23:30` and `30m ago` are read, and a time to come or one that is not
    a time is refused saying what is taken, with nothing kept."""
    from datetime import timedelta

    from rules import metering

    with running_app(tmp_path) as h:
        h.clock.now = NOW  # 2026-11-30 21:00 in New York
        h.fake.locales["U1"] = "en-US"
        h.fake.zones["U1"] = "America/New_York"
        say(h, 1, "track slice gpu=A100-80GB price=14/h")
        h.clock.advance(hours=5)  # 02:00 on 12-01 in New York
        said = say(h, 2, "power slice off at=yesterday 23:30")
        assert "*slice* is off from 2026-11-30 23:30 America/New_York" in said, said
        assert "is on from 2026-12-01 01:30 America/New_York" in say(h, 3, "power slice on at 30m ago")
        assert "is off from 2026-12-01 01:59" in say(h, 4, "power slice off at=1:59")
        refused = {
            "power slice on at=tomorrow": "at: 'tomorrow' is not a time: give 23:30 (the last 23:30), yesterday",
            'power slice on "at=today 23:00"': "at: the time 2026-12-01 23:00 America/New_York is in the future",
            "power slice on at=400d ago": "at: 400d is outside what is accepted here: from 0s to 366d",
            "power slice on at=6h ago": "is before it started (2026-11-30 21:00 America/New_York), where its bill",
            "power slice on at=": "add when, if not now: `power NAME off at=23:30`",
            # the words after on/off are its time, with or without at= (`power slice off 昨晚十一点`): said as one
            "power slice on soon": "at: 'soon' is not a time: give 23:30 (the last 23:30), yesterday",
        }
        for n, (text, words) in enumerate(refused.items(), start=5):
            assert words in say(h, n, text), text
        inst = Rentals(h.deps.store).instance("T1", "slice")
        assert inst is not None
        reports = PowerLog(h.deps.store).reports([inst.id])[inst.id]
        assert [(r.state, r.source, r.at) for r in reports] == [
            (Power.ON, "track", NOW),
            (Power.OFF, "person", NOW + timedelta(hours=2, minutes=30)),
            (Power.ON, "person", NOW + timedelta(hours=4, minutes=30)),
            (Power.OFF, "person", NOW + timedelta(hours=4, minutes=59)),
        ]
        [stretches] = PowerLog(h.deps.store).timelines([inst], h.clock.now).values()
        assert metering.cost(inst, stretches, NOW, h.clock.now) == (2.5 + 29 / 60) * 14


def test_a_box_rented_before_it_was_tracked_says_when_in_chat_and_bills_from_then(tmp_path: Path) -> None:
    """The terminal had --started; chat tracked every box from the moment it was typed, so a box rented yesterday
    could not be billed from then, and `power … at=` before it was refused with advice chat could not follow."""
    from datetime import timedelta

    from rules import metering

    with running_app(tmp_path) as h:
        h.clock.now = NOW  # 2026-11-30 21:00 in New York
        h.fake.locales["U1"] = "en-US"
        h.fake.zones["U1"] = "America/New_York"
        said = say(h, 1, 'track box gpu=A100-80GB price=14/h started="yesterday 9:00"')
        assert "Tracking *box* here" in said and "Billed from 2026-11-29 09:00 America/New_York" in said, said
        inst = Rentals(h.deps.store).instance("T1", "box")
        assert inst is not None and inst.started_at == datetime(2026, 11, 29, 14, tzinfo=UTC)  # 09:00 in New York
        [stretches] = PowerLog(h.deps.store).timelines([inst], h.clock.now).values()
        assert metering.cost(inst, stretches, inst.started_at, NOW) == 36 * 14  # billed from 09:00 yesterday, 36 h
        refused = say(h, 2, "track box2 gpu=A100-80GB price=14/h started=tomorrow")
        assert "`started`: 'tomorrow' is not a time" in refused and Rentals(h.deps.store).instance("T1", "box2") is None
        stored = say(h, 3, "track storage ckpt size=100 price=0.5 created=2026-11-01")
        assert "ckpt" in stored
        # typed without quotes, as people type it: the words after started= up to the next key are its time
        unquoted = say(h, 4, "track box3 gpu=A100-80GB started=yesterday 9:00 price=14/h")
        assert "Billed from 2026-11-29 09:00 America/New_York" in unquoted, unquoted
        assert "'A100-80GB lots'" in say(h, 5, "track box4 gpu=A100-80GB lots price=14/h")  # more of the GPU: unknown
        [kept] = Rentals(h.deps.store).storage("T1")
        assert kept.created_at == datetime(2026, 11, 1, 4, tzinfo=UTC) and kept.created_at < NOW - timedelta(days=20)


def test_billing_reads_a_price_a_basis_and_a_stop_mode_in_any_order_without_keys(tmp_path: Path) -> None:
    """`billing box 每天1000` was refused as no billing basis, `billing box 包月 一万二` read 一万二 as a stop mode,
    and a stop mode alone (`关机也计费`) was refused with the usage."""
    with running_app(tmp_path) as h:
        h.clock.now = NOW
        h.fake.locales["U1"] = "en-US"
        say(h, 1, "track box gpu=A100-80GB price=14/h")
        assert "¥1,000/day" in say(h, 2, "billing box 每天1000")
        monthly = say(h, 3, "计费 box 包月 一万二")  # the basis says what the bare amount is per
        assert "¥12,000/month" in monthly and "billed by the month" in monthly, monthly
        box = Rentals(h.deps.store).instance("T1", "box")
        assert box is not None and (box.price, str(box.unit), box.billing) == (12000.0, "month", "month")
        assert "billed hourly" in say(h, 4, "billing box hourly")
        assert "a stopped box is still billed" in say(h, 5, "计费 box 关机也计费")  # the stop mode alone
        priced = say(h, 7, "billing box 包月 lots")  # a basis, then no price: the price's own error
        assert "price:" in priced and "'lots'" in priced, priced
        refused = say(h, 6, "billing box lots")
        assert "'lots' is not a billing basis, a stop mode, a price or a provider" in refused, refused
        box = Rentals(h.deps.store).instance("T1", "box")
        assert box is not None and (box.price, box.billing, box.stop_billing) == (12000.0, "hourly", "keeps")


def test_a_balance_with_nothing_on_its_provider_says_how_to_name_it_and_billing_names_it(tmp_path: Path) -> None:
    """`balance autodl 5000` beside a box tracked without its provider said "nothing of it has been billing", and
    the provider could not be named after tracking (`billing box provider=autodl` was "not a billing basis")."""
    with running_app(tmp_path) as h:
        h.clock.now = NOW
        h.fake.locales["U1"] = "en-US"
        say(h, 1, "track box gpu=A100-80GB price=14/h")
        unnamed = say(h, 2, "balance autodl 5000")
        assert "no tracked item is on autodl" in unnamed and "billing NAME provider=autodl" in unnamed, unnamed
        assert "bills to the autodl balance" in say(h, 3, "billing box provider=autodl")
        box = Rentals(h.deps.store).instance("T1", "box")
        assert box is not None and box.provider == "autodl" and box.billing is None  # its basis untouched
        assert "autodl: about ¥5,000 left" in say(h, 4, "balance") and "burning it: box" in say(h, 5, "balance")
        assert "bills to the aliyun balance" in say(h, 6, "计费 box 平台=阿里云")
        assert "bills to the autodl balance" in say(h, 7, "billing box autodl")  # its name alone
        twice = say(h, 8, "billing box autodl provider=aliyun")
        assert "twice" in twice, twice


def test_a_balance_is_kept_in_the_currency_its_sign_says_and_as_people_type_what_is_left(tmp_path: Path) -> None:
    """`balance autodl $500` kept ¥500 (the sign was dropped, the team's CNY kept), and `$500 CNY` did too;
    `余额 AutoDL 还剩三千二` and `还剩 3200 元` were refused as no balance, or as too many words."""
    with running_app(tmp_path) as h:
        h.clock.now = NOW
        h.fake.locales["U1"] = "en-US"
        assert "autodl: about $500" in say(h, 1, "balance autodl $500")
        refused = say(h, 2, "balance aws $300 CNY")
        assert "'$300' is in another currency than CNY: give the sign or the currency" in refused
        assert "aliyun: about ¥3,200" in say(h, 3, "余额 阿里云 还剩三千二")
        assert "tencent: about ¥3,200" in say(h, 4, "balance tencent 还剩 3200 元")
        assert "huawei: about $1,200" in say(h, 5, "balance huawei 1.2k USD")
        assert "'EUR' is not CNY or USD" in say(h, 6, "balance aws 300 EUR")
        kept = {b.provider: (b.amount, b.currency) for b in Balances(h.deps.store).latest("T1")}
        assert kept == {
            "autodl": (500.0, "USD"),
            "aliyun": (3200.0, "CNY"),
            "tencent": (3200.0, "CNY"),
            "huawei": (1200.0, "USD"),
        }


def test_a_balance_read_earlier_is_kept_as_of_then(tmp_path: Path) -> None:
    """The terminal's `balance … --at` had no chat form: a balance read in the morning and typed at noon counted the
    morning's spend twice. `balance autodl 320 at=9:00` keeps it as of then; a time to come is refused."""
    from datetime import timedelta

    with running_app(tmp_path) as h:
        h.clock.now = NOW  # 2026-12-01 10:00 in Shanghai, the fake's zone for U1
        h.fake.locales["U1"] = "en-US"
        said = say(h, 1, "balance autodl 320 at=2h ago")
        assert said.startswith("Kept: autodl had ¥320 at 2026-12-01 08:00 Asia/Shanghai.\n"), said  # what it was then
        assert "autodl: about ¥320" in said
        [kept] = Balances(h.deps.store).latest("T1")
        assert (kept.amount, kept.at) == (320.0, NOW - timedelta(hours=2))
        refused = say(h, 2, "balance autodl 300 at=tomorrow")
        assert "at: 'tomorrow' is not a time" in refused and Balances(h.deps.store).latest("T1")[0].amount == 320.0
        assert "`balance PROVIDER AMOUNT [CNY|USD] [at=TIME]`" in say(h, 3, "balance autodl 300 at=")
        unkeyed = say(h, 9, "余额 aliyun 还剩 800 元 1h ago")  # the time without at=, as power takes it
        assert unkeyed.startswith("Kept: aliyun had ¥800 at 2026-12-01 09:00 Asia/Shanghai."), unkeyed


def test_power_with_a_name_alone_says_its_stretches_this_month(tmp_path: Path) -> None:
    """The terminal's `power NAME` listed when a box was on and off; chat answered the usage. Now chat says whether
    it is on now and this month's stretches on the box's channel clock, with who said each (12 at most)."""
    with running_app(tmp_path) as h:
        h.clock.now = NOW  # 10:00 on 1 December in Shanghai, the channel's zone
        h.fake.locales["U1"] = "en-US"
        assert "slice" in say(h, 1, 'track slice gpu=A100-80GB share=1/2 price=14/h started="yesterday 20:00"')
        h.clock.advance(hours=2)
        say(h, 2, "power slice off at=1h ago")
        h.clock.advance(minutes=30)
        listed = say(h, 3, "power slice").splitlines()
        assert listed[0] == "*slice* is off; this month (Asia/Shanghai):", listed
        # its November hours are last month's: the month's first stretch starts at midnight
        assert listed[1:] == [
            "• 12-01 00:00 – 12-01 11:00 · on · 11.0 h · from tracking",
            "• 12-01 11:00 – now · off · 1.5 h · said by someone",
        ]
        for n in range(4, 20):  # switched often: the latest twelve, and how many came before
            h.clock.advance(minutes=10)
            say(h, n, f"power slice {'on' if n % 2 == 0 else 'off'}")
        h.clock.advance(minutes=10)
        many = say(h, 20, "power slice").splitlines()
        assert many[1] == "… 6 more before these" and len(many) == 14, many
        assert "no instance named 'other'" in say(h, 21, "power other")
        say(h, 22, "track fresh gpu=A100-80GB price=14/h")  # tracked this moment: said so, not an empty list
        assert say(h, 23, "power fresh").splitlines()[1:] == [
            "(no time of it billed this month yet: it started just now)"
        ]


def test_a_balance_typed_under_a_wrong_name_says_the_one_meant_and_can_be_forgotten(tmp_path: Path) -> None:
    """`balance autdl 300` (for autodl) stayed in every list, runway and digest with no way to take it back: it says
    which provider was likely meant and how to forget it; `balance autdl forget` (or `删除 autdl 的余额`) takes back
    every row of it, by whoever recorded its latest or an admin; a provider we know by name is never called a typo."""
    with running_app(tmp_path) as h:
        h.clock.now = NOW
        h.fake.locales["U1"] = h.fake.locales["U2"] = "en-US"
        typo = say(h, 1, "balance autdl 300")
        assert "did you mean autodl? If so, `balance autdl forget` takes this one back" in typo, typo
        assert "did you mean" not in say(h, 2, "balance autodl 300")  # known by name: no typo, whatever is like it
        assert "did you mean" not in say(h, 3, "balance autdl 250")  # kept before: said twice on purpose
        refused = say(h, 4, "balance autdl forget", user="U2")
        assert "recorded by <@U1>: only they or an admin can forget it" in refused, refused
        forgot = say(h, 5, "balance autdl forget")
        assert "Forgot the balance of autdl (2 kept)" in forgot and "autodl: about ¥300 left" in forgot, forgot
        assert [b.provider for b in Balances(h.deps.store).latest("T1")] == ["autodl"]
        assert "No balance of autdl is kept, so there is none to forget; kept: autodl." in say(
            h, 6, "balance autdl forget"
        )
        h.fake.admins.add("U2")
        assert "Forgot the balance of autodl (1 kept)" in say(h, 7, "删除 autodl 的余额", user="U2")  # an admin's
        assert Balances(h.deps.store).latest("T1") == []


def test_a_balance_forgotten_said_in_words() -> None:
    from bot.app.free_words import free_words

    said_so = (
        ("删除 autdl 的余额", "autdl"),
        ("autdl的余额删掉", "autdl"),
        ("帮我删掉阿里云余额", "阿里云"),
        ("forget the autdl balance", "autdl"),
        ("delete runpod's balance", "runpod"),
    )
    for said, provider in said_so:
        assert free_words(said) == ("balance", [provider, "forget"]), said
