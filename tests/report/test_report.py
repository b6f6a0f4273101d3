"""Who wastes what: the report's figures from stored samples (busy, idle and unknown GPU-hours per item per
local day, money by billing), rankings by idle cost, and the terminal's JSON, CSV and chart adding up."""

from __future__ import annotations

import csv
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.report.chart import chart, day_parts
from bot.report.compose import as_json, compose
from bot.state import Store
from bot.state.rentals import Rentals
from bot.text import Lang
from rules.samples import Sample
from tests.support.cli import run_cli
from tests.support.state_template import migrated_state_db

NOW = datetime(2026, 12, 3, 4, tzinfo=UTC)  # 12:00 in Shanghai
SHANGHAI = ZoneInfo("Asia/Shanghai")
# a day's price billed by the hour while it runs (here: all the time), so the money is the hours' share of it
FIELDS = {"gpu": "A100-80GB", "share": None, "unit": "day", "billing": "hourly", "currency": "CNY", "channel": "C1"}


def world(target: Path | str, started: datetime = datetime(2026, 12, 2, 16, tzinfo=UTC)) -> Rentals:
    """Two boxes and a volume: `a` (2 cards, 480/day, U1, llm) busy 6 hours then idle 10, both cards reporting;
    `b` (1 card, 240/day, U2, cv) with no data; a 300 GB volume at 0.3/GB-month (U2, cv)."""
    # (started by default at 00:00 in Shanghai on 12-03); `target`: a folder for state.db, or a database
    rentals = Rentals(Store(migrated_state_db(target / "state.db") if isinstance(target, Path) else target))
    a, _ = rentals.track_instance(
        "T1", "a", FIELDS | {"cards": 2, "price": 480.0, "owner": "U1", "project": "llm", "started_at": started}
    )
    rentals.track_instance(
        "T1", "b", FIELDS | {"cards": 1, "price": 240.0, "owner": "U2", "project": "cv", "started_at": started}
    )
    rentals.track_storage(
        "T1",
        "ckpt",
        {
            "size_gb": 300.0,
            "price_gb_month": 0.3,
            "currency": "CNY",
            "channel": "C1",
            "owner": "U2",
            "project": "cv",
            "created_at": started,
        },
        None,
    )
    samples = [
        Sample(started + timedelta(minutes=m), gpu, 90.0 if m < 360 else 1.0, 1000, 81920)
        for m in range(0, 12 * 60, 10)
        for gpu in (0, 1)
    ]  # 12 h of samples: 6 busy, 6 idle
    rentals.add_samples(a.id, samples, [None] * len(samples))
    return rentals


def test_busy_idle_and_unknown_hours_and_money_per_item(db_target: str) -> None:
    rentals = world(db_target)  # SQLite and PostgreSQL group the samples by hour each their own way
    made = compose(rentals, "T1", date(2026, 12, 3), date(2026, 12, 3), zone=SHANGHAI, now=NOW, busy_above_pct=5)
    rows = {r.item: r for r in made.rows}
    a, b, ckpt = rows["a"], rows["b"], rows["ckpt"]
    assert (a.day, a.gpu_hours, a.busy_gpu_hours, a.idle_gpu_hours, a.unknown_gpu_hours) == (
        date(2026, 12, 3),
        24.0,
        12.0,
        12.0,
        0.0,
    )  # 12 hours from local midnight to NOW, 2 cards
    assert a.cost == 240.0 and a.idle_cost == 120.0  # half a day of 480, half of it idle
    assert (b.gpu_hours, b.unknown_gpu_hours, b.idle_gpu_hours, b.cost) == (12.0, 12.0, 0.0, 120.0)  # unknown
    assert ckpt.cost == pytest.approx(300 * 0.3 / 30 / 2, abs=1e-3)
    said = as_json(made)
    assert said["totals"]["cost"] == {"CNY": 361.5} and said["totals"]["idle_gpu_hours"] == 12.0
    assert [r["owner"] for r in said["by_owner"]] == ["U1", "U2"]  # most idle cost first
    assert said["by_owner"][0]["busy_share"] == 0.5 and said["by_owner"][1]["busy_share"] is None
    assert [r["project"] for r in said["by_project"]] == ["llm", "cv"]


def test_the_terminal_json_csv_and_chart_add_up(tmp_path: Path) -> None:
    # the terminal reports up to the real now: the data is put two days before it, and the period ends with
    # yesterday, so every run reads the same whole days
    today = datetime.now(SHANGHAI).date()
    world(tmp_path, datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=2))
    env = {"GPU_ADVISOR_LANG": "en", "GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db")}
    first, last = (today - timedelta(days=4)).isoformat(), (today - timedelta(days=1)).isoformat()
    base = ("report", "--from", first, "--to", last, "--team", "T1")
    said = json.loads(run_cli(*base, "--json", env=env, tmp=tmp_path).stdout)
    assert said["period"] == {"from": first, "to": last}
    done = run_cli(
        *base, "--csv", str(tmp_path / "week.csv"), "--chart", str(tmp_path / "week.png"), env=env, tmp=tmp_path
    )
    assert done.returncode == 0, done.stderr
    with (tmp_path / "week.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["item"] for r in rows} == {"a", "b", "ckpt"} and rows[0]["workspace"] == "T1"
    assert round(sum(float(r["cost"]) for r in rows), 2) == said["totals"]["cost"]["CNY"]
    for key in ("gpu_hours", "busy_gpu_hours", "idle_gpu_hours", "unknown_gpu_hours"):
        assert round(sum(float(r[key]) for r in rows), 2) == said["totals"][key], key
    for row in (r for r in rows if r["item"] == "b"):  # one card, on all along: every hour billed, none off
        assert float(row["billed_hours"]) == float(row["gpu_hours"]) == float(row["on_hours"])
        assert float(row["off_hours"]) == float(row["unknown_hours"]) == 0.0
    assert (tmp_path / "week.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = run_cli(*base, env=env, tmp=tmp_path).stdout
    assert "Idle cost by owner:" in text and text.index("U1") < text.index("U2")
    bad = run_cli("report", "--from", "2026-12-05", "--to", "2026-12-01", "--team", "T1", env=env, tmp=tmp_path)
    assert bad.returncode == 2 and "must not be after" in bad.stderr
    both = run_cli("report", "--week", "--month", "2026-12", "--team", "T1", env=env, tmp=tmp_path)
    assert both.returncode == 2 and "one period" in both.stderr
    # --channel as people paste it ("#C1") is the channel C1; one that names no channel is refused, not "nothing"
    channel = json.loads(run_cli(*base, "--channel", "#C1", "--json", env=env, tmp=tmp_path).stdout)
    assert channel["totals"]["cost"] == said["totals"]["cost"]
    wrong = run_cli(*base, "--channel", "general chat", env=env, tmp=tmp_path)
    assert wrong.returncode == 2 and "is not a channel" in wrong.stderr


def test_what_releases_saved_and_the_storage_that_cost_most(tmp_path: Path) -> None:
    rentals = world(tmp_path)
    rentals.release("T1", "b", datetime(2026, 12, 2, 22, tzinfo=UTC), by="U2")  # 06:00 in Shanghai on 12-03
    made = compose(rentals, "T1", date(2026, 12, 3), date(2026, 12, 3), zone=SHANGHAI, now=NOW, busy_above_pct=5)
    said = as_json(made)
    [released] = said["released"]
    assert (released["item"], released["by"], released["per_day"], released["saved"]) == ("b", "U2", 240.0, 60.0)
    assert said["storage"] == [{"item": "ckpt", "currency": "CNY", "cost": 1.5}]
    from bot.report.post import report_text
    from bot.text import Lang
    from bot.text.spans import plain_text

    text = plain_text(report_text(made, Lang.EN))
    assert "Instances released during the period: 1, saving ¥60 by its end." in text and "*ckpt* ¥1.5" in text


def test_a_report_read_in_parts_has_the_rows_of_one_read_whole(tmp_path: Path) -> None:
    """`--csv` writes a month part by part (a few hundred instances at a time): the same rows."""
    from bot.report.compose import compose_parts, csv_rows

    rentals = world(tmp_path)
    for n in range(5):
        rentals.track_instance(
            "T1",
            f"extra-{n}",
            FIELDS | {"cards": 1, "price": 100.0 + n, "owner": "U3", "started_at": datetime(2026, 12, 1, tzinfo=UTC)},
        )
    options = {"zone": SHANGHAI, "now": NOW, "busy_above_pct": 5}
    whole = compose(rentals, "T1", date(2026, 12, 1), date(2026, 12, 3), **options)  # type: ignore[arg-type]
    parts = list(compose_parts(rentals, "T1", date(2026, 12, 1), date(2026, 12, 3), part=2, **options))  # type: ignore[arg-type]
    assert len(parts) == 4  # 7 instances two at a time, the storage with the last
    streamed = [row for p in parts for row in csv_rows(p, "T1")]
    assert sorted(map(tuple, streamed)) == sorted(map(tuple, csv_rows(whole, "T1")))
    assert len(streamed) == 2 + 5 * 3 + 1  # a and b from 12-03 (their start), extras 3 days each, ckpt 12-03


def test_the_totals_name_the_items_they_count_at_nothing(tmp_path: Path) -> None:
    """Issue 52: totals left unpriced items out without saying so."""
    from bot.report.post import report_text
    from bot.text import Lang
    from bot.text.spans import plain_text

    rentals = world(tmp_path)
    started = datetime(2026, 12, 2, 16, tzinfo=UTC)
    rentals.track_instance(
        "T1", "found-4090", FIELDS | {"cards": 1, "price": None, "owner": "U3", "project": "cv", "started_at": started}
    )
    made = compose(rentals, "T1", date(2026, 12, 3), date(2026, 12, 3), zone=SHANGHAI, now=NOW, busy_above_pct=5)
    said = as_json(made)
    assert said["unpriced"] == ["found-4090"] and said["totals"]["cost"] == {"CNY": 361.5}
    text = plain_text(report_text(made, Lang.EN))
    assert "1 item(s) have no known price, so these totals count nothing for them: found-4090." in text
    assert "以上合计未计入它们的费用：found-4090" in plain_text(report_text(made, Lang.ZH))


def test_a_half_slice_busy_six_hours_and_idle_six_has_half_its_money_idle(tmp_path: Path) -> None:
    """Issue 52: a half slice got no idle money in `report --json` while the digest listed it idle: the card it sees
    reports whole GPU-hours, which are the slice's share of them."""
    started = datetime(2026, 12, 2, 16, tzinfo=UTC)
    rentals = Rentals(Store(migrated_state_db(tmp_path / "state.db")))
    half, _ = rentals.track_instance(
        "T1", "half", FIELDS | {"cards": 1, "share": 0.5, "price": 480.0, "owner": "U1", "project": "llm",
                                "started_at": started},
    )  # fmt: skip
    samples = [
        Sample(started + timedelta(minutes=m), 0, 90.0 if m < 360 else 1.0, 1000, 40960) for m in range(0, 720, 10)
    ]
    rentals.add_samples(half.id, samples, [None] * len(samples))
    made = compose(rentals, "T1", date(2026, 12, 3), date(2026, 12, 3), zone=SHANGHAI, now=NOW, busy_above_pct=5)
    [row] = [r for r in made.rows if r.item == "half"]
    assert (row.gpu_hours, row.busy_gpu_hours, row.idle_gpu_hours) == (6.0, 3.0, 3.0)  # 12 h × a half card
    assert row.cost == 240.0 and row.idle_cost == 120.0  # half a day of 480, half of it idle


def test_the_charts_bars_are_the_csvs_days_for_a_day_card(tmp_path: Path) -> None:
    """Issue 52: the chart stacked a day card's idle money (its price spread over the day) over the day's billed
    cost: a day drawn at ¥112 where the CSV said ¥62.57. Each bar is now the day's rows as the CSV adds them up."""
    started = datetime(2026, 12, 1, 16, 30, tzinfo=UTC)  # a day card started at 00:30 Shanghai on 12-02
    rentals = Rentals(Store(migrated_state_db(tmp_path / "state.db")))
    card, _ = rentals.track_instance(
        "T1", "day-card", FIELDS | {"billing": "day", "cards": 1, "price": 62.57, "owner": "U1", "project": "cv",
                                    "started_at": started},
    )  # fmt: skip
    idle = [Sample(started + timedelta(minutes=m), 0, 1.0, 1000, 81920) for m in range(0, 36 * 60, 10)]
    rentals.add_samples(card.id, idle, [None] * len(idle))
    made = compose(rentals, "T1", date(2026, 12, 2), date(2026, 12, 3), zone=SHANGHAI, now=NOW, busy_above_pct=5)
    csv_days: dict[date, float] = {}
    for row in made.rows:
        csv_days[row.day] = csv_days.get(row.day, 0.0) + row.cost
    parts = day_parts(made, "CNY")
    for day, cost in csv_days.items():
        assert sum(parts[day]) == pytest.approx(cost), day
    figure = chart(made, Lang.EN)
    heights: dict[int, float] = {}
    for bar in figure.axes[0].patches:  # busy, idle and no data stacked: each day's bar is their sum
        heights[round(bar.get_x())] = heights.get(round(bar.get_x()), 0.0) + bar.get_height()
    assert sorted(round(h, 2) for h in heights.values()) == sorted(round(c, 2) for c in csv_days.values())


def test_idle_gpu_hours_follow_the_samples_own_time_not_whole_clock_hours(db_target: str) -> None:
    """Issue 52: 3.0 idle GPU-hours were counted for 1.45 h of 0 % samples (each clock hour touched counted whole),
    ¥50 where the digest said ¥33.49. A box on from 10:33, sampled idle each minute to 11:29, then no data: 0.95 idle
    GPU-hours (27 minutes of the 10 o'clock hour, 30 of the 11), the rest of its 1.45 hours unknown."""
    started = datetime(2026, 12, 3, 2, 33, tzinfo=UTC)  # 10:33 in Shanghai
    rentals = Rentals(Store(db_target))
    box, _ = rentals.track_instance(
        "T1", "box", FIELDS | {"cards": 1, "price": 480.0, "owner": "U1", "project": "llm", "started_at": started}
    )
    quiet = [Sample(started + timedelta(minutes=m), 0, 0.0, 1000, 81920) for m in range(57)]
    rentals.add_samples(box.id, quiet, [None] * len(quiet))
    made = compose(rentals, "T1", date(2026, 12, 3), date(2026, 12, 3), zone=SHANGHAI, now=NOW, busy_above_pct=5)
    [row] = [r for r in made.rows if r.item == "box"]
    assert row.idle_gpu_hours == pytest.approx(0.95, abs=0.01) and row.gpu_hours == pytest.approx(1.45, abs=0.01)
    assert row.idle_cost == pytest.approx(480 / 24 * 0.95, abs=0.2)  # the idle hours' money, not the clock hours'


def test_an_owner_with_nothing_idle_is_said_in_money_not_a_bare_zero(tmp_path: Path) -> None:
    """`U2  idle 0 (0 GPU-h)  spent ¥37.5`: the idle figure read as a count beside the spend; it is money."""
    env = {"GPU_ADVISOR_LANG": "en"}
    box = ("--gpu", "A100-80GB", "--price", "12/h", "--channel", "C1", "--owner", "U2", "--team", "T1")
    assert run_cli("track", "instance", "b", *box, "--started", "3h ago", env=env, tmp=tmp_path).returncode == 0
    today = datetime.now(ZoneInfo("Asia/Shanghai")).date()
    period = ("--from", (today - timedelta(days=3)).isoformat(), "--to", today.isoformat())
    text = run_cli("report", *period, "--team", "T1", env=env, tmp=tmp_path).stdout
    owner = next(line for line in text.splitlines() if line.startswith("  U2"))
    assert "idle ¥0 (0 GPU-h)" in owner and "spent ¥" in owner, text
    # in a terminal a table a ranking, in the reader's words: its columns named, no project said as such
    terminal = {"GPU_ADVISOR_LANG": "zh", "TTY_COMPATIBLE": "1", "COLUMNS": "100"}
    shown = run_cli("report", *period, "--team", "T1", env=terminal, tmp=tmp_path).stdout
    assert "闲置 GPU 小时" in shown and "（无项目）" in shown and "GPU-h" not in shown and "\t" not in shown, shown


def test_the_report_says_each_projects_spend_most_first(tmp_path: Path) -> None:
    """ "Which project spends most" (哪个项目花钱最多) had no answer: the report ranked projects by idle cost only."""
    from bot.report.post import report_text
    from bot.text import Lang
    from bot.text.spans import plain_text

    rentals = world(tmp_path)
    made = compose(rentals, "T1", date(2026, 12, 3), date(2026, 12, 3), zone=SHANGHAI, now=NOW, busy_above_pct=5)
    costs = {r.who: r.cost for r in made.ranked("project")}
    text = plain_text(report_text(made, Lang.EN))
    spend = text.split("*Spend by project:*\n", 1)[1].splitlines()
    dearest = sorted(costs, key=lambda who: -sum(costs[who].values()))
    assert [line.split(":")[0] for line in spend[: len(costs)]] == [f"• {who}" for who in dearest], text
    assert spend[0].startswith("• llm: ¥") and spend[1].startswith("• cv: ¥")  # two cards of 480 a day, one of 240
    assert "*Spend by project:*" not in plain_text(report_text(made, Lang.EN, project="llm"))  # one project's own


def test_the_terminal_refuses_a_project_no_item_has_as_chat_does(tmp_path: Path) -> None:
    """`gpu-advise report --project nope` printed "nothing was rented", as if the project had rented nothing, where
    chat's report refuses it naming the projects; where no item has a project yet, both say how to give one."""
    env = {"GPU_ADVISOR_LANG": "en", "GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db")}
    Rentals(Store(migrated_state_db(tmp_path / "state.db"))).track_instance(
        "T1", "z", FIELDS | {"cards": 1, "price": 240.0, "owner": "U2", "started_at": datetime(2026, 12, 2, tzinfo=UTC)}
    )
    none = run_cli("report", "--team", "T1", "--project", "llm", env=env, tmp=tmp_path)
    assert none.returncode == 2 and "no item of this team has a project yet, 'llm'" in none.stderr, none.stderr
    world(tmp_path)
    other = run_cli("report", "--team", "T1", "--project", "nope", env=env, tmp=tmp_path)
    assert other.returncode == 2 and "has project 'nope': the projects are cv, llm" in other.stderr, other.stderr
    spelt = run_cli("report", "--team", "T1", "--project", "LLM", "--json", env=env, tmp=tmp_path)
    assert spelt.returncode == 0 and {r["project"] for r in json.loads(spelt.stdout)["by_project"]} <= {"llm"}
