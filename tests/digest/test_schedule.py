"""Digests on schedule: `/gpu-advise remind at|off`, due digests sent once (also after a restart and
after downtime the same local day), daylight saving in New York beside Shanghai; `list` and `release`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.digest.due import run_due
from bot.state.budgets import Budgets
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from rules.samples import Sample
from tests.support.slack_harness import Harness, running_app

FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "day",
    "price": 400.0,
    "currency": "CNY",
    "owner": "U1",
    "project": "llm",
}
MONDAY_0910_SHANGHAI = datetime(2026, 11, 30, 1, 10, tzinfo=UTC)


def idle_box(h: Harness, name: str = "train-1", channel: str = "C1") -> Rentals:
    rentals = Rentals(h.deps.store)
    now = h.clock.now
    inst, _ = rentals.track_instance("T1", name, FIELDS | {"channel": channel, "started_at": now - timedelta(hours=9)})
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(480, -241, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))  # an agent that reported into the coming hours
    return rentals


def replies(h: Harness, count: int) -> list[dict[str, Any]]:
    return h.fake.wait_for(lambda: (r := h.fake.of("response_url")) and len(r) >= count and r)  # type: ignore[no-any-return]


def test_a_digest_missed_while_down_goes_out_at_start_up_once_across_a_restart(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        idle_box(h)
        assert run_due(h.deps, h.outlets()) == []  # 09:10: not yet
        h.clock.now = MONDAY_0910_SHANGHAI + timedelta(hours=2)  # down at 09:30, back at 11:10
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent" and len(h.posts(channel="C1")) == 1
        assert run_due(h.deps, h.outlets()) == []
    with running_app(tmp_path) as again:  # a restart: the same state database
        again.clock.now = MONDAY_0910_SHANGHAI + timedelta(hours=3)
        assert run_due(again.deps, again.outlets()) == []
        assert again.posts() == []


def test_new_york_follows_its_daylight_saving_and_shanghai_does_not(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = datetime(2026, 11, 2, 13, 0, tzinfo=UTC)  # Monday: 21:00 Shanghai, 08:00 New York (EST)
        idle_box(h, "sh", channel="C1")
        idle_box(h, "ny", channel="C2")
        h.send.command("remind at 09:30 America/New_York", channel="C2", response_url=h.fake.response_url("a"))
        replies(h, 1)
        assert [o.channel for o in run_due(h.deps, h.outlets())] == ["C1"]  # Shanghai's 09:30 has passed
        h.clock.now = datetime(2026, 11, 2, 14, 0, tzinfo=UTC)  # 09:00 in New York now that DST is over
        assert run_due(h.deps, h.outlets()) == []
        h.clock.now = datetime(2026, 11, 2, 14, 30, tzinfo=UTC)  # 09:30 EST
        assert [o.channel for o in run_due(h.deps, h.outlets())] == ["C2"]


def test_remind_at_shows_the_next_send_off_stops_it_and_bad_input_says_the_accepted_form(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        idle_box(h)
        h.send.command("remind at 10:00 Asia/Shanghai mon,wed", response_url=h.fake.response_url("1"))
        assert "10:00" in replies(h, 1)[0]["text"]
        assert "Next: 2026-11-30 10:00 Mon Asia/Shanghai" in replies(h, 1)[0]["text"]  # the zone is named
        h.send.command("remind at 25:00", response_url=h.fake.response_url("2"))
        bad = replies(h, 2)[1]["text"]
        assert "25:00" in bad and "09:30" in bad  # what was wrong, and the accepted forms
        h.send.command("remind at 09:30 Mars/Base", response_url=h.fake.response_url("z"))
        assert "Mars/Base" in replies(h, 3)[2]["text"] and "Asia/Shanghai" in replies(h, 3)[2]["text"]
        h.send.command("remind at 09:30 someday", response_url=h.fake.response_url("d"))
        assert "someday" in replies(h, 4)[3]["text"] and "mon-fri" in replies(h, 4)[3]["text"]
        h.send.command("remind off", response_url=h.fake.response_url("3"))
        assert "off" in replies(h, 5)[4]["text"]
        h.clock.now = MONDAY_0910_SHANGHAI + timedelta(hours=3)
        assert run_due(h.deps, h.outlets()) == []
        h.send.command("remind", response_url=h.fake.response_url("4"))
        assert "off" in replies(h, 6)[5]["text"]


def test_list_and_release_from_slack_owner_or_admin_only(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rentals = idle_box(h)
        rentals.track_storage(
            "T1",
            "ckpt",
            {
                "size_gb": 340.0,
                "price_gb_month": 0.3,
                "currency": "CNY",
                "channel": "C1",
                "owner": "U1",
                "project": None,
                "created_at": h.clock.now,
            },
            "train-1",
        )
        h.send.command("list", response_url=h.fake.response_url("1"))
        listed = replies(h, 1)[0]["text"]
        # on or off and the month's spend, as the terminal's list says them (issue 46)
        assert "*train-1* A100-80GB × 1 · ¥400/day · <@U1> · on · ¥400 this month" in listed
        assert "*ckpt* 340 GB" in listed
        h.send.command("release train-1", user="U7", response_url=h.fake.response_url("2"))
        assert "Only <@U1>" in replies(h, 2)[1]["text"]
        h.send.command("release train-1", user="U1", response_url=h.fake.response_url("3"))
        [note] = h.wait_posts(1, channel="C1")
        assert "released by <@U1>" in note["text"] and "leaves storage *ckpt*" in str(note["blocks"])
        h.send.command("release nope", response_url=h.fake.response_url("4"))
        assert "no instance named 'nope'" in replies(h, 3)[2]["text"]


def test_a_budget_shows_beside_the_project_spend_across_channels_and_flags_over(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI + timedelta(hours=2)
        idle_box(h, "a", channel="C1")
        idle_box(h, "b", channel="C2")  # same project "llm", another channel
        h.send.command("budget llm 50", response_url=h.fake.response_url("1"))
        assert "llm: ¥50 a month" in replies(h, 1)[0]["text"]
        h.send.command("budget llm lots", response_url=h.fake.response_url("2"))
        assert "from 1 to below a trillion" in replies(h, 2)[1]["text"] and "lots" in replies(h, 2)[1]["text"]
        h.send.command("budget", response_url=h.fake.response_url("3"))
        # spent so far and where it is heading, as the terminal says (issue 46): two idle boxes at ¥400/day
        assert "*llm* ¥800 of ¥50. At this rate ¥800 by 11-30, 1,500% over." in replies(h, 3)[2]["text"]
        run_due(h.deps, h.outlets())
        footer = str(h.posts(channel="C1")[0]["blocks"])
        # each box has run 9 hours this month at 400/day, billed by the day started: 400 each, 800 for the
        # project across both channels
        assert "llm ¥800 / 预算 ¥50 :warning: 已超预算" in footer  # the channel speaks GPU_ADVISOR_LANG (zh)
        h.send.command("budget llm off", response_url=h.fake.response_url("4"))
        assert "removed" in replies(h, 4)[3]["text"]


def test_a_channel_speaks_the_language_set_for_it_else_its_setters(tmp_path: Path) -> None:
    """Issue 19.1: an English team's digest arrived in Chinese (GPU_ADVISOR_LANG)."""
    with running_app(tmp_path) as h:  # the workspace default is zh
        h.clock.now = MONDAY_0910_SHANGHAI
        idle_box(h, "a", channel="C1")
        idle_box(h, "b", channel="C2")
        idle_box(h, "c", channel="C3")
        h.send.command("remind at 09:30", channel="C1", user="U1", response_url=h.fake.response_url("1"))  # en-US
        h.fake.locales["U8"] = "zh-CN"
        h.send.command("remind lang=en at 09:30", channel="C2", user="U8", response_url=h.fake.response_url("2"))
        said = {r["_path"].rsplit("/", 1)[-1]: r["text"] for r in replies(h, 2)}  # answered in any order
        assert "in English" in said["1"] and "使用英文" in said["2"]
        h.clock.now = MONDAY_0910_SHANGHAI + timedelta(hours=1)
        run_due(h.deps, h.outlets())
        by_channel = {p["channel"]: h.texts(p) for p in h.posts()}
        assert "GPU rentals" in by_channel["C1"] and "GPU rentals" in by_channel["C2"]  # the setter's, the set
        assert "GPU 租用提醒" in by_channel["C3"]  # no schedule: the workspace default
        h.send.command("remind lang zh", channel="C2", user="U1", response_url=h.fake.response_url("3"))
        assert "in Chinese" in replies(h, 3)[2]["text"]
        h.send.command("remind lang fr", channel="C2", user="U1", response_url=h.fake.response_url("4"))
        assert "`fr` is not a language" in replies(h, 4)[3]["text"]


def test_remind_at_without_a_zone_takes_the_callers_and_says_which(tmp_path: Path) -> None:
    """Issue 19.6 (and 19.4): the zone was always Asia/Shanghai; the weekday was English in Chinese."""
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        h.fake.zones["U5"] = "America/New_York"
        h.send.command("remind at 09:30", user="U5", response_url=h.fake.response_url("1"))
        said = replies(h, 1)[0]["text"]
        assert "09:30 America/New_York" in said and "Next: 2026-11-30 09:30 Mon America/New_York" in said
        h.fake.locales["U6"] = "zh-CN"
        h.send.command("remind", user="U6", response_url=h.fake.response_url("2"))
        chinese = replies(h, 2)[1]["text"]
        assert "周一" in chinese and "Mon" not in chinese and "America/New_York" in chinese


def test_delete_storage_from_slack_owner_or_admin_only(tmp_path: Path) -> None:
    """Issue 19.7: the digest's footer named a terminal command; Slack now has `delete-storage NAME`."""
    with running_app(tmp_path) as h:
        rentals = idle_box(h)
        rentals.track_storage(
            "T1",
            "ckpt",
            {
                "size_gb": 340.0,
                "price_gb_month": 0.3,
                "currency": "CNY",
                "channel": "C1",
                "owner": "U1",
                "project": None,
                "created_at": h.clock.now,
            },
            None,
        )
        h.send.command("delete-storage ckpt", user="U7", response_url=h.fake.response_url("1"))
        assert "Only <@U1>" in replies(h, 1)[0]["text"] and rentals.storage("T1")[0].deleted_at is None
        h.send.command("delete-storage ckpt", user="U1", response_url=h.fake.response_url("2"))
        [note] = h.wait_posts(1, channel="C1")
        assert "~ckpt~ deleted, says <@U1>" in note["text"] and rentals.storage("T1")[0].deleted_at == h.clock.now
        h.send.command("delete-storage nope", response_url=h.fake.response_url("3"))
        missing = replies(h, 2)[1]["text"]
        assert "no storage named 'nope'" in missing and "`/gpu-advise list`" in missing


def test_only_the_setter_or_an_admin_turns_a_digest_off_or_changes_a_budget(tmp_path: Path) -> None:
    """Issue 20.8: anyone could silence a channel's digest or raise another project's budget."""
    with running_app(tmp_path) as h:
        h.fake.admins.add("U9")
        h.send.command("remind at 10:00 Asia/Shanghai", user="U1", response_url=h.fake.response_url("1"))
        h.send.command("budget llm 50", user="U1", response_url=h.fake.response_url("2"))
        replies(h, 2)
        h.send.command("remind off", user="U7", response_url=h.fake.response_url("3"))
        assert "set by <@U1>" in replies(h, 3)[2]["text"]
        h.send.command("budget llm 5000", user="U7", response_url=h.fake.response_url("4"))
        assert "set by <@U1>" in replies(h, 4)[3]["text"]
        h.send.command("budget llm off", user="U7", response_url=h.fake.response_url("5"))
        assert "set by <@U1>" in replies(h, 5)[4]["text"]
        assert Schedules(h.deps.store, h.deps.settings.digest.default_schedule()).of("T1", "C1").enabled
        assert Budgets(h.deps.store).of("T1") == {("llm", "CNY"): 50}
        h.send.command("budget llm 80", user="U9", response_url=h.fake.response_url("6"))  # an admin may
        assert "¥80" in replies(h, 6)[5]["text"]
        h.send.command("remind off", user="U1", response_url=h.fake.response_url("7"))  # the setter may
        assert "off" in replies(h, 7)[6]["text"]
        assert not Schedules(h.deps.store, h.deps.settings.digest.default_schedule()).of("T1", "C1").enabled
        h.send.command("budget new 10", user="U7", response_url=h.fake.response_url("8"))  # a new project: anyone
        assert "new: ¥10" in replies(h, 8)[7]["text"]
        h.send.command("budget new off", user="U7", response_url=h.fake.response_url("9"))
        assert "Budget of new removed" in replies(h, 9)[8]["text"]
        h.send.command("budget new off", user="U7", response_url=h.fake.response_url("10"))  # said "removed" again
        assert "new has no budget" in replies(h, 10)[9]["text"]
