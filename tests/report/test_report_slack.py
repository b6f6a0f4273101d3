"""The report in Slack: weekly per channel on its day at the digest time, once, with its chart in the thread;
on demand with /gpu-advise report; off and on per channel."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.report.compose import CSV_COLUMNS
from bot.server.jobs import weekly_reports
from bot.state.rentals import Rentals
from bot.state.report_channels import ReportChannels
from rules.samples import Sample
from tests.support.slack_harness import Harness, running_app

MONDAY = datetime(2026, 12, 7, 2, tzinfo=UTC)  # 10:00 in Shanghai, a Monday: past the 09:30 digest time
FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "day",
    "price": 480.0,
    "currency": "CNY",
    "channel": "C1",
    "project": "llm",
}


def rented(h: Harness) -> None:
    """Last week: `a` (U1) idle throughout, `b` (U2) busy; both reporting every 10 minutes."""
    h.clock.now = MONDAY
    rentals = Rentals(h.deps.store)
    start = MONDAY - timedelta(days=7)
    for name, owner, util in (("a", "U1", 1.0), ("b", "U2", 90.0)):
        inst, _ = rentals.track_instance("T1", name, FIELDS | {"owner": owner, "started_at": start})
        samples = [Sample(start + timedelta(minutes=m), 0, util, 1000, 81920) for m in range(0, 7 * 1440, 10)]
        rentals.add_samples(inst.id, samples, [None] * len(samples))


def reports(h: Harness) -> list[dict[str, Any]]:
    return [p for p in h.posts(channel="C1") if "GPU report" in str(p.get("text")) or "GPU 报告" in str(p.get("text"))]


def test_the_weekly_report_goes_out_once_with_its_chart(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rented(h)
        h.clock.now = MONDAY - timedelta(hours=1)  # 09:00: before the digest time
        assert weekly_reports(h.deps, h.tellers()) == []
        h.clock.now = MONDAY
        assert weekly_reports(h.deps, h.tellers()) == ["C1"]
        assert weekly_reports(h.deps, h.tellers()) == []  # once per channel and week
        [message] = reports(h)
        assert "11-30 至 12-06" in message["text"]  # the channel's language (the workspace default, zh)
        assert message["text"].index("<@U1>") < len(message["text"])  # U1 left a card idle
        assert "<@U2>" not in message["text"]  # busy all week: not in the idle ranking
        h.fake.wait_for(lambda: h.fake.of("files.completeUploadExternal"))
        h.clock.now = MONDAY + timedelta(days=1)  # Tuesday: not the report day
        assert weekly_reports(h.deps, h.tellers()) == []


def test_on_demand_and_off(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rented(h)
        h.fake.locales["U1"] = "en-US"
        h.send.command("report last-week", user="U1", response_url=h.fake.response_url("1"))
        [message] = h.fake.wait_for(lambda: reports(h))
        assert message["text"].startswith("*GPU report 11-30 to 12-06:*") and "Idle cost by owner" in message["text"]
        # the chart and the rows as a CSV file go into its thread (one row per item per day, as `report --csv`)
        csv_file = h.fake.wait_for(lambda: [d for d in h.fake.uploads.values() if d.startswith(b"\xef\xbb\xbfdate,")])
        rows = list(csv.reader(io.StringIO(csv_file[0].decode("utf-8-sig"))))
        assert tuple(rows[0]) == CSV_COLUMNS and rows[1:] and all(row[1] == "T1" for row in rows[1:])
        h.send.command("report 2026-13", user="U1", response_url=h.fake.response_url("2"))
        bad = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/2")])[0]
        assert "last-week, this-week, this-month, last-month, a month" in bad["text"]
        h.send.command("report off", user="U1", response_url=h.fake.response_url("3"))
        h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/3")])
        assert weekly_reports(h.deps, h.tellers()) == []  # off here
        # issue 34.7d: the same rule as `remind off`: whoever set it, or an admin
        h.send.command("report on", user="U7", response_url=h.fake.response_url("4"))
        refused = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/4")])[0]
        assert "last set by <@U1>" in refused["text"] and weekly_reports(h.deps, h.tellers()) == []
        h.fake.admins.add("UADMIN")
        h.send.command("report on", user="UADMIN", response_url=h.fake.response_url("5"))
        [on] = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/5")])
        assert ReportChannels(h.deps.store).enabled("T1", "C1")
        assert "a weekly report each Mon at its digest time" in on["text"], on  # was "on mons"; zh "每周 mon"


def test_app_home_shows_what_you_rent_your_spend_and_your_budgets(tmp_path: Path) -> None:
    import json

    from bot.state.budgets import Budgets

    with running_app(tmp_path) as h:
        rented(h)
        h.fake.locales["U1"] = "en-US"
        Budgets(h.deps.store).put("T1", "llm", 10000.0, "CNY", "U1", h.clock.now)
        Budgets(h.deps.store).put("T1", "*", 50000.0, "CNY", "U1", h.clock.now)  # the whole team's (`budget 50000`)
        h.send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}, event_id="EvHome2")
        (published,) = h.fake.wait_for(lambda: h.fake.of("views.publish"))
        text = json.dumps(published["view"], ensure_ascii=False)
        assert "What you rent" in text and "*a* A100-80GB × 1 · ¥480/day" in text and "*b*" not in text
        # a: 480/day, billed for each day started: the six days' periods that began since 12-01 00:00 in Shanghai
        assert "Your spend this month: ¥2,880" in text
        assert "Budget of *llm* (you set it): ¥5,760 of ¥10,000. At this rate ¥29,760 by 12-31, 198% over." in text
        assert text.index("Budget of *the whole team* (you set it): ¥") < text.index("Budget of *llm*")


def test_app_home_shows_the_last_report_chart_of_your_channels(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rented(h)
        h.fake.locales["U1"] = "en-US"
        h.send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}, event_id="EvHome3")
        (before,) = h.fake.wait_for(lambda: h.fake.of("views.publish"))
        assert not [b for b in before["view"]["blocks"] if b["type"] == "image"]  # no report yet
        assert weekly_reports(h.deps, h.tellers()) == ["C1"]
        [done] = h.fake.wait_for(lambda: h.fake.of("files.completeUploadExternal"))
        file_id = done["files"][0]["id"] if isinstance(done["files"], list) else json.loads(done["files"])[0]["id"]
        h.send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}, event_id="EvHome4")
        after = h.fake.wait_for(lambda: h.fake.of("views.publish")[1:])[0]
        [image] = [b for b in after["view"]["blocks"] if b["type"] == "image"]
        assert image["slack_file"] == {"id": file_id} and image["title"]["text"] == "GPU spend 11-30 to 12-06"
        assert "Last report of <#C1>: 11-30 to 12-06" in json.dumps(after["view"])
        h.send.event({"type": "app_home_opened", "user": "U9", "channel": "D9", "tab": "home"}, event_id="EvHome5")
        stranger = h.fake.wait_for(lambda: h.fake.of("views.publish")[2:])[0]
        assert not [b for b in stranger["view"]["blocks"] if b["type"] == "image"]  # rents nothing in C1


def test_app_home_in_chinese_says_the_price_in_chinese(tmp_path: Path) -> None:
    """Issue 34.13: App Home's "¥480/day" in a Chinese home."""
    import json

    with running_app(tmp_path) as h:
        rented(h)
        h.fake.locales["U1"] = "zh-CN"
        h.send.event({"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}, event_id="EvHomeZh")
        (published,) = h.fake.wait_for(lambda: h.fake.of("views.publish"))
        text = json.dumps(published["view"], ensure_ascii=False)
        assert "¥480/天" in text and "/day" not in text


def test_one_projects_report_in_chat_names_the_project(tmp_path: Path) -> None:
    """The terminal's `--project` had no chat form: `report llm` was refused as no period."""
    with running_app(tmp_path) as h:
        rented(h)
        Rentals(h.deps.store).track_instance(
            "T1", "c", FIELDS | {"owner": "U3", "project": "cv", "started_at": MONDAY - timedelta(days=7)}
        )  # a and b are llm's
        h.fake.locales["U1"] = "en-US"
        h.send.command("report last week project=cv", user="U1", response_url=h.fake.response_url("1"))
        [message] = h.fake.wait_for(lambda: reports(h))
        assert message["text"].startswith("*Project cv only*\n*GPU report 11-30 to 12-06:* ¥3,360 spent;"), message
        assert "llm" not in message["text"] and "<@U1>" not in message["text"]  # only the project's items
        h.send.command("report project=nope", user="U1", response_url=h.fake.response_url("9"))
        none = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/9")])[0]
        assert "no item of this team has project 'nope': the projects are cv, llm" in none["text"]
        h.send.command("report last week project=CV", user="U1", response_url=h.fake.response_url("8"))
        h.fake.wait_for(lambda: reports(h)[1:])  # CV is cv, as it is spelt: a second report
        assert reports(h)[1]["text"].startswith("*Project cv only*")
        h.send.command("report project=<!here>", user="U1", response_url=h.fake.response_url("2"))
        bad = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/2")])[0]
        assert "`project`:" in bad["text"] and len(reports(h)) == 2  # no markup said in the channel
        h.send.command("report cv last week", user="U1", response_url=h.fake.response_url("3"))  # named bare
        h.fake.wait_for(lambda: reports(h)[2:])
        assert reports(h)[2]["text"].startswith("*Project cv only*\n*GPU report 11-30 to 12-06:*"), reports(h)[2]
        h.send.command("report cvlast-week", user="U1", response_url=h.fake.response_url("4"))  # glued: 上周 typed so
        h.fake.wait_for(lambda: reports(h)[3:])
        assert reports(h)[3]["text"].startswith("*Project cv only*\n*GPU report 11-30 to 12-06:*"), reports(h)[3]


def test_report_alone_with_nothing_last_week_gives_this_week_so_far(tmp_path: Path) -> None:
    """`report` right after tracking said "Nothing was rented from 11-30 to 12-06": true of last week, and no help to
    a team that rented today. It says so, and posts this week's so far; a period asked for stays that period."""
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY + timedelta(hours=5)
        Rentals(h.deps.store).track_instance("T1", "new", FIELDS | {"owner": "U1", "started_at": MONDAY})
        h.fake.locales["U1"] = "en-US"
        h.send.command("report", user="U1", response_url=h.fake.response_url("1"))
        [told] = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/1")])
        assert "Nothing was rented in this channel from 11-30 to 12-06. Here is this week so far" in told["text"]
        [message] = h.fake.wait_for(lambda: reports(h))
        assert message["text"].startswith("*GPU report 12-07 to 12-07:*")
        h.send.command("report last-week", user="U1", response_url=h.fake.response_url("2"))
        [asked] = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/2")])
        assert "Nothing was rented" in asked["text"] and "this week so far" not in asked["text"]
        assert len(reports(h)) == 1


def test_items_that_billed_nothing_yet_are_not_said_never_rented(tmp_path: Path) -> None:
    """`report this-month` a minute after tracking said "Nothing was rented in this channel": its items are running
    and have billed nothing yet, which is what is said; a period that ended before today stays "nothing rented"."""
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY + timedelta(hours=5)
        h.fake.locales["U1"] = "en-US"
        h.send.command("report this-month", user="U1", response_url=h.fake.response_url("0"))
        [none] = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/0")])
        assert "Nothing was rented in this channel" in none["text"]  # nothing tracked: as before
        Rentals(h.deps.store).track_instance("T1", "new", FIELDS | {"owner": "U1", "started_at": h.clock.now})
        h.send.command("report this-month", user="U1", response_url=h.fake.response_url("1"))
        [told] = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/1")])
        assert "Nothing billed in this channel from 12-01 to 12-07 yet: its 1 running item" in told["text"], told
        h.send.command("report last-month", user="U1", response_url=h.fake.response_url("2"))
        [before] = h.fake.wait_for(lambda: [c for c in h.fake.of("response_url") if c["_path"].endswith("/2")])
        assert "Nothing was rented in this channel from 11-01 to 11-30" in before["text"], before
