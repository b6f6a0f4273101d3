"""The digest's Slack blocks: most expensive first, never above Slack's 50, the rest counted."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.chat.digest_messages import digest_message
from bot.slack.chat import render as render_message
from bot.slack.markup import mrkdwn
from bot.slack.ui.digest import MAX_BLOCKS, render
from bot.text import Lang
from rules.digest import Digest, InstanceNews, Spend, StorageNews
from rules.idle import Activity

NOW = datetime(2026, 11, 30, 1, 30, tzinfo=UTC)
SHANGHAI = ZoneInfo("Asia/Shanghai")


def idle(i: int) -> InstanceNews:
    return InstanceNews(
        f"box-{i:02d}", "U1", Activity.IDLE, 100.0 + i, "CNY", NOW - timedelta(hours=2), (100.0 + i) / 12
    )


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
def test_eighty_items_fit_in_fifty_blocks_most_expensive_first(lang: Lang) -> None:
    digest = Digest([idle(i) for i in range(80)], spend=[Spend("llm", "CNY", 5000.0, 20000.0)], saved={"CNY": 120.0})
    _, blocks = render(digest, lang, SHANGHAI)
    assert len(blocks) <= MAX_BLOCKS
    sections = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert "box-79" in sections[0] and "box-78" in sections[1]
    shown = len(sections)
    assert shown >= 20 and len([b for b in blocks if b["type"] == "actions"]) == shown  # each item has its buttons
    more = [b for b in blocks if b["type"] == "context" and "/gpu-advise list" in b["elements"][0]["text"]]
    assert more and str(80 - shown) in more[0]["elements"][0]["text"]
    footer = " ".join(b["elements"][0]["text"] for b in blocks if b["type"] == "context")
    assert "¥5,000" in footer and "¥20,000" in footer and "¥120" in footer


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
def test_a_digest_composed_again_as_a_message_has_the_digests_blocks_within_fifty(lang: Lang) -> None:
    """A digest composed again after a press (and `idle`'s answer) reaches Slack as a neutral message: each item
    keeps its line and buttons as the digest posted them, the header its language, within Slack's 50 blocks."""
    digest = Digest([idle(i) for i in range(80)], spend=[Spend("llm", "CNY", 5000.0, 20000.0)])
    blocks = render_message(digest_message(digest, lang, SHANGHAI))
    assert len(blocks) <= MAX_BLOCKS and blocks[0]["block_id"] == f"digest:{lang.value}"
    _, posted = render(digest, lang, SHANGHAI)
    acts = [b for b in blocks if b["type"] == "actions"]
    assert len(acts) >= 20 and acts == [b for b in posted if b["type"] == "actions"][: len(acts)]
    notes = " ".join(b["elements"][0]["text"] for b in blocks if b["type"] == "context")
    assert str(80 - len(acts)) in notes and "¥5,000" in notes


def test_each_kind_of_item_has_its_sentence_with_local_time() -> None:
    digest = Digest(
        [
            InstanceNews("nb", "U2", Activity.MEMORY_HELD, 336.0, "CNY", NOW - timedelta(hours=1), 14.0),
            InstanceNews("dark", "U3", Activity.UNKNOWN, 48.0, "USD"),
        ],
        [
            StorageNews("ckpt", "U1", "left_behind", 340, 102.0, "CNY", 3),
            StorageNews("old", "U1", "stale", 100, 30.0, "CNY", 20.4),
        ],
    )
    text, blocks = render(digest, Lang.EN, SHANGHAI)
    lines = [b["text"]["text"] for b in blocks if b["type"] == "section"]
    assert lines[0].startswith("*nb* (<@U2>) holds GPU memory") and "since 11-30 08:30" in lines[0]
    assert "no activity data, still running?" in lines[1] and "$48 a day" in lines[1]
    assert "outlived its instance" in lines[2] and "¥102 a month" in lines[2]
    assert "untouched for 20 days" in lines[3]
    assert text.startswith("GPU rentals: 4 to look at")


def test_each_item_has_its_buttons_named_for_it() -> None:
    digest = Digest([idle(1)], [StorageNews("ckpt", "U1", "left_behind", 340, 102.0, "CNY", 3)])
    _, blocks = render(digest, Lang.ZH, SHANGHAI)
    actions = {
        b["block_id"]: [(e["action_id"], e["value"], e["text"]["text"]) for e in b["elements"]]
        for b in blocks
        if b["type"] == "actions"
    }
    assert actions["act:i:box-01"][0] == ("rental_released", "box-01", "已释放")
    assert [a for a, _, _ in actions["act:i:box-01"]] == [
        "rental_released",
        "rental_still_needed",
        "rental_snooze_week",
        "rental_stopped",
    ]
    assert [a for a, _, _ in actions["act:s:ckpt"]] == ["storage_deleted", "storage_keep"]


def test_a_digest_of_storage_only_counts_it_and_says_what_it_costs() -> None:
    """Issue 19.10: with only storage listed the text said '(¥0 a day on instances that may not be working)'."""
    stored = StorageNews(
        name="ckpt", owner="U1", size_gb=340, per_month=102.0, currency="CNY", reason="left_behind", untouched_days=20
    )
    text, blocks = render(
        Digest(instances=[], storage=[stored, replace(stored, name="data")], spend=[], saved={}),
        Lang.EN,
        ZoneInfo("Asia/Shanghai"),
    )
    assert text == "GPU rentals: 2 to look at (¥204 a month on storage left behind)"
    assert blocks[0]["text"]["text"] == "GPU rentals: 2 to look at"


def test_an_enrolled_box_without_a_price_says_so_instead_of_a_figure() -> None:
    from bot.state.rentals import Instance
    from rules.digest import compose
    from rules.policy import Idle

    box = Instance(
        1,
        "T1",
        "old-box",
        "C1",
        "U1",
        None,
        "Tesla V100-SXM2-16GB",
        8,
        None,
        "hour",
        None,
        "CNY",
        NOW - timedelta(days=2),
        None,
        source="agent",
    )
    digest = compose([box], [], {}, now=NOW, rules=Idle())
    [news] = digest.instances
    assert (news.activity, news.priced, news.per_day) == (Activity.UNKNOWN, False, 0.0)
    _, blocks = render(digest, Lang.EN, SHANGHAI)
    line = next(b["text"]["text"] for b in blocks if b["type"] == "section")
    assert "an unknown amount a day" in line and "¥0" not in line
    assert "未知金额" in render(digest, Lang.ZH, SHANGHAI)[0] + str(render(digest, Lang.ZH, SHANGHAI)[1])


def test_a_forecast_over_budget_is_said_before_the_threshold_is_crossed() -> None:
    from datetime import date

    from rules.budget import Standing

    ahead = Standing("llm", "CNY", 20000.0, 5000.0, 23400.0, date(2026, 12, 31), ())
    digest = Digest([idle(1)], spend=[Spend("llm", "CNY", 5000.0, 20000.0, ahead)])
    _, blocks = render(digest, Lang.EN, SHANGHAI)
    footer = " ".join(b["elements"][0]["text"] for b in blocks if b["type"] == "context")
    assert "At this rate ¥23,400 by 12-31, 17% over." in footer
    under = Digest(
        [idle(1)],
        spend=[
            Spend("llm", "CNY", 5000.0, 20000.0, Standing("llm", "CNY", 20000.0, 5000.0, 9000.0, ahead.month_end, ()))
        ],
    )
    assert "At this rate" not in json.dumps(render(under, Lang.EN, SHANGHAI)[1])


def test_the_money_line_counts_only_instances_that_may_not_be_working() -> None:
    """Issue 34.11: the headline's "a day on instances that may not be working" counted storage found in the cloud
    and instances never judged (no activity data); it counts what its words say."""
    from bot.slack.ui.digest import render
    from rules.digest import Digest, FoundNews, InstanceNews
    from rules.idle import Activity

    idle = InstanceNews(name="a", owner="U1", activity=Activity.IDLE, per_day=400, currency="CNY")
    unknown = InstanceNews(name="b", owner="U1", activity=Activity.UNKNOWN, per_day=383, currency="CNY")
    volume = FoundNews(kind="s", name="vol-1", what="500 GB", per_day=1.3, currency="USD")
    text, _ = render(Digest(instances=[idle, unknown], found=[volume]), Lang.EN, ZoneInfo("UTC"))
    assert "3 to look at (¥400 a day on instances that may not be working)" in text
    only_unknown, _ = render(Digest(instances=[unknown]), Lang.ZH, ZoneInfo("UTC"))
    assert only_unknown == "GPU 租用提醒：1 项需要处理"  # nothing it could call not working: no figure


def test_each_line_names_the_card_as_people_read_it() -> None:
    """Issue 32: a rented Ascend box was only its name in the digest; its card is said after it."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from bot.chat.digest_messages import instance_line
    from bot.text import Lang
    from rules.digest import InstanceNews
    from rules.idle import Activity

    since = datetime(2026, 12, 3, 1, tzinfo=UTC)
    zone = ZoneInfo("Asia/Shanghai")
    ascend = InstanceNews("npu-1", "U1", Activity.IDLE, 744.0, "CNY", since, 93.0, gpu="Ascend-910B2-64GB", cards=8)
    assert mrkdwn(instance_line(ascend, Lang.EN, zone)).startswith(
        "*npu-1* · Ascend 910B2 64 GB ×8 (<@U1>) has been idle"
    )
    assert mrkdwn(instance_line(ascend, Lang.ZH, zone)).startswith("*npu-1* · Ascend 910B2 64 GB ×8（<@U1>）自 ")
    unnamed = InstanceNews("box", "U1", Activity.UNKNOWN, 10.0, "CNY")
    assert mrkdwn(instance_line(unnamed, Lang.EN, zone)).startswith("*box* (<@U1>): no activity data")


def test_names_tags_and_projects_from_data_cannot_ping_or_link() -> None:
    """Issue 34.3: an instance named by a cloud tag `<!channel>`, a project `<!here>`: shown, escaped."""
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from bot.chat.digest_messages import found_line, instance_line, spend_line, storage_line
    from bot.text import Lang
    from rules.digest import Digest, FoundNews, InstanceNews, Spend, StorageNews
    from rules.idle import Activity

    zone = ZoneInfo("Asia/Shanghai")
    since = datetime(2026, 12, 3, 1, tzinfo=UTC)
    lines = [
        instance_line(InstanceNews("<!channel>", "U1", Activity.IDLE, 400.0, "CNY", since, 50.0), Lang.EN, zone),
        storage_line(StorageNews("<https://evil|ckpt>", "U1", "left_behind", 500, 50.0, "CNY", 9.0), Lang.ZH),
        found_line(FoundNews("i", "<!here>", "<@U9> A100", 100.0, "CNY"), Lang.EN),
    ]
    digest = Digest([], [], [Spend("<!everyone>", "CNY", 10.0)])
    lines.append(spend_line(digest, Lang.EN) or "")
    lines = [mrkdwn(line) for line in lines]  # as Slack shows them (bot/slack/markup.py)
    for line in lines:
        assert "<!" not in line and "<http" not in line and "<@U9>" not in line, line
    assert "&lt;!channel&gt;" in lines[0] and "&lt;!everyone&gt;" in lines[3]


def test_app_home_shows_a_hostile_project_as_text(tmp_path: Path) -> None:
    """Issue 34.3: App Home listed a project named from a tag, `<!here>`, as it was (names typed into the bot are
    checked when kept; projects from tags are not)."""
    from datetime import UTC, datetime, timedelta

    from bot.deps import build_deps
    from bot.settings import Settings
    from bot.slack.listeners.home_rentals import rentals_text
    from bot.state.budgets import Budgets
    from bot.state.rentals import Rentals
    from bot.text import Lang
    from tests.support.state_template import migrated_state_db

    migrated_state_db(tmp_path / "bot-state.db")
    deps = build_deps(Settings(db=tmp_path / "bot.db", state_db=tmp_path / "bot-state.db", azure_enabled=False))
    now = datetime.now(UTC)
    fields = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 10.0, "currency": "CNY"}
    Rentals(deps.store).track_instance(
        "T1",
        "train-1",
        fields | {"owner": "U1", "channel": "C1", "project": "<!here>", "started_at": now - timedelta(hours=2)},
    )
    Budgets(deps.store).put("T1", "<!here>", 100.0, "CNY", "U1", now)
    text = mrkdwn(rentals_text(deps, "T1", "U1", Lang.EN, now))
    assert "train-1" in text and "&lt;!here&gt;" in text and "<!" not in text


def test_a_budget_alert_names_a_hostile_project_and_item_as_text() -> None:
    """Issue 34.3: the budget alert posted a project and its costliest items as they were."""
    from datetime import date

    from bot.digest.budget_alerts import alert_text
    from bot.text import Lang
    from rules.budget import Standing

    standing = Standing("<!channel>", "CNY", 1000.0, 900.0, 1200.0, date(2026, 12, 31), (("<@U9>", 500.0),))
    for lang in (Lang.EN, Lang.ZH):
        text = mrkdwn(alert_text(standing, 80, lang))  # as Slack shows it
        assert "&lt;!channel&gt;" in text and "&lt;@U9&gt;" in text and "<!" not in text and "<@U9>" not in text
