"""The board (issue 48) through the real serve: its routes, its links (signed, expiring, one team's), its headers
and escaping, its figures equal to `report --json`, `budget --json`, `balance --json` and the digest at the same
moment, its languages, and `board` in Slack and in the terminal."""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from bot.report.compose import as_json as report_json
from bot.report.compose import compose
from bot.report.money import balance_rows, budget_rows, budget_standings, runways
from bot.state.balances import Balances
from bot.state.budgets import Budgets
from bot.state.rentals import Rentals
from bot.tls import shared_context
from bot.web.board_links import Expired, Forged, make_token, read_token
from rules.samples import Sample
from tests.metering.test_chat_commands import say
from tests.support.slack_harness import Harness, running_app

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 12, 4, 2, tzinfo=UTC)  # 10:00 on 4 December in Shanghai
PUBLIC = "https://gpu.example.com"
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "currency": "CNY", "provider": "autodl"}


def rented(h: Harness) -> None:
    """T1: an idle box (U1, llm, C1), a busy one (U2, search, C2), a budget and a balance; T2: a box of its own."""
    h.clock.now = NOW
    rentals = Rentals(h.deps.store)
    for team, name, owner, project, channel, util, price in (
        ("T1", "idle-a100", "U1", "llm", "C1", 0.0, 10.0),
        ("T1", "busy-a100", "U2", "search", "C2", 90.0, 12.0),
        ("T2", "secret-box", "U9", "other", "C9", 0.0, 99.0),
    ):
        inst, _ = rentals.track_instance(
            team, name, FIELDS | {"price": price, "owner": owner, "project": project, "channel": channel,
                                  "started_at": NOW - timedelta(days=3)},
        )  # fmt: skip
        samples = [Sample(NOW - timedelta(minutes=m), 0, util, 1000, 81920) for m in range(0, 600, 5)]
        rentals.add_samples(inst.id, samples, [None] * len(samples))
    Budgets(h.deps.store).put("T1", "llm", 5000.0, "CNY", "U1", NOW)
    Balances(h.deps.store).record("T1", "autodl", 3000.0, "CNY", NOW - timedelta(days=2), NOW, by="U1")
    h.fake.names.update({"U1": "Wang <b>Fang</b>", "U2": "Li Lei"})


def token(h: Harness, team: str = "T1", channel: str | None = None, hours: float = 24) -> str:
    return make_token(h.deps.store, team, channel, h.clock.now, hours)[0]


def get(h: Harness, path: str) -> httpx.Response:
    return httpx.get(h.base_url + path, timeout=10, verify=shared_context())


def test_a_token_names_its_team_and_channel_expires_and_refuses_any_change(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        made, expires = make_token(h.deps.store, "T1", "C1", NOW, 0.5)  # fractions of an hour
        link = read_token(h.deps.store, made, NOW + timedelta(minutes=29))
        assert (link.team, link.channel, link.expires_at) == ("T1", "C1", NOW + timedelta(minutes=30)) == (
            "T1", "C1", expires)  # fmt: skip
        with pytest.raises(Expired):
            read_token(h.deps.store, made, NOW + timedelta(minutes=30))
        body, signature = made.rsplit(".", 1)
        # the signature's first character changed (its last one may carry only base64's padding bits), cut, or
        # the payload changed
        changed = body + "." + ("A" if signature[0] != "A" else "B") + signature[1:]
        other = ("f" if body[0] != "f" else "g") + body[1:] + "." + signature  # the payload's first character changed
        for forged in (changed, body + ".", "x" + made, "", "....", other):
            with pytest.raises(Forged):
                read_token(h.deps.store, forged, NOW)
    with running_app(tmp_path / "other") as other, pytest.raises(Forged):  # another state: its own secret
        read_token(other.deps.store, made, NOW)


def test_no_figure_without_a_valid_link_and_every_answer_has_the_headers(tmp_path: Path) -> None:
    with running_app(tmp_path, public_url=PUBLIC, board_link_hours=1) as h:
        rented(h)
        good = token(h, hours=1)
        h.clock.advance(hours=2)
        expired = get(h, f"/board/{good}")
        missing, bare = get(h, "/board/"), get(h, "/board")
        forged = get(h, f"/board/{good[:-3]}abc")
        forged_json = get(h, f"/board/{good[:-3]}abc.json")
        assert (expired.status_code, missing.status_code, bare.status_code) == (401, 401, 401)
        assert (forged.status_code, forged_json.status_code) == (403, 403)
        assert "新链接" in expired.text and "过期" in expired.text  # the state's language: ask the bot for a new one
        for answer in (expired, missing, bare, forged, forged_json):
            assert "idle-a100" not in answer.text and "¥" not in answer.text and "U1" not in answer.text
            assert answer.headers["Content-Security-Policy"].startswith("default-src 'none'")
            assert "script-src" not in answer.headers["Content-Security-Policy"]  # none at all
            assert answer.headers["X-Content-Type-Options"] == "nosniff"
            assert answer.headers["Referrer-Policy"] == "no-referrer"
        fresh = get(h, f"/board/{token(h)}")
        assert fresh.status_code == 200 and "<script" not in fresh.text
        assert fresh.headers["Cache-Control"] == "no-store" and fresh.headers["X-Content-Type-Options"] == "nosniff"
        assert get(h, f"/board/{token(h)}?lang=fr").status_code == 400


def test_a_link_shows_its_team_only_and_a_channel_link_that_channel_only(tmp_path: Path) -> None:
    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        team = get(h, f"/board/{token(h)}?lang=en")
        assert "idle-a100" in team.text and "secret-box" not in team.text and "U9" not in team.text
        channel = get(h, f"/board/{token(h, channel='C2')}.json").json()
        assert channel["channel"] == "C2" and channel["idle_now"] == []  # C2's box is busy
        assert [r["project"] for r in channel["week"]["by_project"]] == ["search"]
        assert channel["budgets"] == []  # llm's budget is not C2's project
        other = get(h, f"/board/{token(h, team='T2')}.json").json()
        assert [r["item"] for r in other["idle_now"]] == ["secret-box"]


def test_the_whole_teams_budget_shows_on_every_board_and_digest_with_one_figure(tmp_path: Path) -> None:
    """A budget with no project named counts every item of the team: a channel's board shows it beside its own
    projects' budgets, and its figure is the team board's, `budget --json`'s and C2's digest's (C2 has no llm item:
    its digest counted only its own project's items and would have said less)."""
    from bot.digest.send import digests

    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        Budgets(h.deps.store).put("T1", "*", 9000.0, "CNY", "U1", NOW)
        rentals, metering = Rentals(h.deps.store), h.deps.policy.metering
        team = get(h, f"/board/{token(h)}.json").json()["budgets"]
        channel = get(h, f"/board/{token(h, channel='C2')}.json").json()["budgets"]
        assert [b["project"] for b in team] == ["*", "llm"] and [b["project"] for b in channel] == ["*"]
        assert team[0] == channel[0] == budget_rows(budget_standings(rentals, "T1", NOW, SHANGHAI, metering))[0]
        week = sum(r["cost"].get("CNY", 0) for r in get(h, f"/board/{token(h)}.json").json()["month"]["by_project"])
        assert team[0]["spent"] == pytest.approx(week, abs=0.05)  # both boxes, this month
        [spend] = [s for s in digests(rentals, "T1", ["C2"], NOW, h.deps.policy.idle, metering, SHANGHAI)["C2"].spend
                   if s.project == "*"]  # fmt: skip
        assert (spend.amount, spend.budget) == (team[0]["spent"], 9000.0)
        assert "<td>全队</td>" in get(h, f"/board/{token(h)}?lang=zh").text
        assert "<td>the whole team</td>" in get(h, f"/board/{token(h, channel='C2')}?lang=en").text


def test_names_are_escaped_and_owners_named_as_their_chat_names_them(tmp_path: Path) -> None:
    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        page = get(h, f"/board/{token(h)}?lang=en").text
        assert "Wang &lt;b&gt;Fang&lt;/b&gt;" in page and "<b>Fang" not in page  # the chat's name, as text


def test_the_figures_equal_the_reports_budgets_balances_and_the_digests(tmp_path: Path) -> None:
    from bot.digest.send import digests

    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        shown = get(h, f"/board/{token(h)}.json").json()
        rentals, metering = Rentals(h.deps.store), h.deps.policy.metering
        today = NOW.astimezone(SHANGHAI).date()
        busy = h.deps.policy.idle.utilisation_max_pct
        made = compose(rentals, "T1", today - timedelta(days=6), today, zone=SHANGHAI, now=NOW, busy_above_pct=busy,
                       metering=metering)  # fmt: skip
        week = report_json(made)
        assert shown["week"]["by_owner"] == week["by_owner"] and shown["week"]["by_project"] == week["by_project"]
        assert shown["week"]["totals"] == week["totals"]
        first = today.replace(day=1)
        month = report_json(compose(rentals, "T1", first, first.replace(day=31), zone=SHANGHAI, now=NOW,
                                    busy_above_pct=busy, metering=metering))  # fmt: skip
        assert {k: shown["month"][k] for k in ("period", "totals", "by_owner", "by_project")} == {
            k: month[k] for k in ("period", "totals", "by_owner", "by_project")}  # fmt: skip
        assert shown["budgets"] == budget_rows(budget_standings(rentals, "T1", NOW, SHANGHAI, metering))
        assert shown["balances"] == balance_rows(runways(rentals, "T1", NOW, metering))
        [idle] = shown["idle_now"]
        [news] = digests(rentals, "T1", ["C1"], NOW, h.deps.policy.idle, metering, SHANGHAI)["C1"].instances
        assert news.since is not None
        assert (idle["item"], idle["billed_since"], idle["since"]) == (
            news.name, round(news.burned, 2), news.since.isoformat())  # fmt: skip
        by_owner = {r["owner"]: r for r in shown["week"]["by_owner"]}
        assert by_owner["U1"]["idle_cost"]["CNY"] > 0
        assert by_owner["U2"]["idle_cost"].get("CNY", 0) == 0  # U2's box is busy
        assert shown["owners"] == {"U1": "Wang <b>Fang</b>", "U2": "Li Lei"}
        days = shown["chart"]["days"]
        assert len(days) == 7 and sum(d["busy"] + d["idle"] + d["no_data"] for d in days) == pytest.approx(
            sum(week["totals"]["cost"].values()), abs=0.05)  # fmt: skip


def test_the_page_speaks_the_channels_language_and_switches_with_lang(tmp_path: Path) -> None:
    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        zh = get(h, f"/board/{token(h)}").text  # the state's default: zh
        en = get(h, f"/board/{token(h)}?lang=en").text
        assert "当前空闲" in zh and "Idle now" not in zh and 'lang="zh-CN"' in zh
        assert "Idle now" in en and "当前空闲" not in en and 'href="?lang=zh"' in en
        # the bundled card was loaded a moment ago and its reference prices are old: how many, not a bare STALE
        assert re.search(r"STALE: \d+ of 17 rows", en) and re.search(r"已过期：17 条中 \d+ 条", zh), en[-1500:]
        assert "Asia/Shanghai" in say(h, 1, "remind at 09:30 Asia/Shanghai lang=en")  # C1's digest in English
        assert "Idle now" in get(h, f"/board/{token(h, channel='C1')}").text  # so is C1's board


def test_board_in_slack_answers_a_link_that_opens_it_and_says_what_is_missing(tmp_path: Path) -> None:
    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        h.fake.locales["U1"] = "en-US"
        said = say(h, 1, "board")
        url = said.split("https://gpu.example.com", 1)[1].split(" ", 1)[0]
        assert "The board of <#C1>" in said and url.startswith("/board/")  # Slack links the channel
        assert get(h, url + ".json").json()["channel"] == "C1"
        whole = say(h, 2, "board all").split("https://gpu.example.com", 1)[1].split(" ", 1)[0]
        assert get(h, whole + ".json").json()["channel"] is None
        assert "is not a board" in say(h, 3, "board everything")
        h.send.command("board", user="U1", channel="D0DIRECT", response_url=h.fake.response_url("4"))
        from tests.metering.test_chat_commands import reply

        direct = reply(h, 4).split("https://gpu.example.com", 1)[1].split(" ", 1)[0]
        assert get(h, direct + ".json").json()["channel"] is None  # a direct message: the whole workspace's
    with running_app(tmp_path / "bare") as h:
        h.fake.locales["U1"] = "en-US"
        assert "GPU_ADVISOR_PUBLIC_URL" in say(h, 1, "board")


def test_board_in_the_terminal_prints_a_link_and_its_expiry(tmp_path: Path) -> None:
    from tests.support.cli import run_cli

    env = {"GPU_ADVISOR_LANG": "en", "GPU_ADVISOR_PUBLIC_URL": PUBLIC, "GPU_ADVISOR_BOARD_LINK_HOURS": "1.5"}
    before = datetime.now(UTC).replace(microsecond=0)
    done = run_cli("board", "--team", "T1", "--channel", "C1", "--json", env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    assert made["url"].startswith(PUBLIC + "/board/")
    expires = datetime.fromisoformat(made["expires_at"])
    assert before + timedelta(hours=1.5) <= expires <= datetime.now(UTC) + timedelta(hours=1.5)
    plain = run_cli("board", "--team", "T1", env=env, tmp=tmp_path)
    assert plain.returncode == 0 and plain.stdout.strip().startswith(PUBLIC + "/board/")
    refused = run_cli("board", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert refused.returncode == 2 and "GPU_ADVISOR_PUBLIC_URL" in refused.stderr


def test_every_digest_carries_a_link_to_its_channels_board(tmp_path: Path) -> None:
    from bot.digest.due import run_due

    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        h.clock.now = datetime(2026, 12, 4, 1, 40, tzinfo=UTC)  # 09:40 in Shanghai: the digests are due
        run_due(h.deps, h.outlets())
        [post] = h.posts(channel="C1")
        text = json.dumps(post, ensure_ascii=False)
        url = text.split(PUBLIC, 1)[1].split('"', 1)[0].split(" ", 1)[0].rstrip(">").split("|")[0]
        shown = get(h, url + ".json").json()
        assert shown["channel"] == "C1" and [r["item"] for r in shown["idle_now"]] == ["idle-a100"]


def test_no_token_reaches_serves_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        made = token(h)
        for path in (f"/board/{made}", f"/board/{made}.json", f"/board/{made[:-2]}zz", "/board/"):
            get(h, path)
    signature = made.rsplit(".", 1)[1]
    serves = [r for r in caplog.records if not r.name.startswith("httpx")]  # httpx: this test's own client
    assert serves and not [r for r in serves if signature in r.getMessage()]


def test_a_boards_figures_are_shown_again_for_a_minute_with_their_moment(tmp_path: Path) -> None:
    """A digest's link is opened by many at once: the figures are added up once a minute at most, and each page
    says the moment they are of."""
    with running_app(tmp_path, public_url=PUBLIC) as h:
        rented(h)
        made = token(h)
        first = get(h, f"/board/{made}.json").json()
        Budgets(h.deps.store).put("T1", "search", 100.0, "CNY", "U2", NOW)
        h.clock.advance(seconds=59)
        again = get(h, f"/board/{made}.json").json()
        assert again["at"] == first["at"] == NOW.isoformat() and again["budgets"] == first["budgets"]
        h.clock.advance(seconds=1)
        later = get(h, f"/board/{made}.json").json()
        assert later["at"] == (NOW + timedelta(seconds=60)).isoformat()
        assert [b["project"] for b in later["budgets"]] == ["llm", "search"]


def test_names_that_look_like_markup_or_formulas_show_as_text() -> None:
    """The bot refuses such names where people type them and discovery files a cloud's hostile tag under the
    instance's id, so the page's renderer is checked on its own: whatever an item, owner or project is named
    shows as that text, and the page holds no script."""
    from bot.board.figures import Board
    from bot.board.page import render
    from bot.text import Lang

    hostile, formula = '<script>alert("board")</script>', '=HYPERLINK("http://evil.example")'
    made = Board("T1", "C1", Lang.EN, SHANGHAI, NOW)
    row = {"item": hostile, "channel": "C1", "owner": "U1", "activity": "idle", "since": NOW.isoformat()}
    made.idle = [row | {"billed_since": 10.0, "per_day": 240.0, "currency": "CNY", "gpu": "A100-80GB", "cards": 1}]
    rank = {"cost": {"CNY": 10.0}, "idle_gpu_hours": 1.0, "idle_cost": {"CNY": 10.0}, "busy_share": 0.0}
    period = {"period": {"from": "2026-11-28", "to": "2026-12-04"}, "totals": {}, "unpriced": [formula],
              "by_owner": [rank | {"owner": "U1"}], "by_project": [rank | {"project": formula}]}  # fmt: skip
    made.week = made.month = period
    made.names = {"U1": hostile}
    page = render(made, NOW + timedelta(hours=24))
    assert "<script" not in page
    assert page.count("&lt;script&gt;alert(&#34;board&#34;)&lt;/script&gt;") == 4  # the item, the owner thrice
    assert "=HYPERLINK(&#34;http://evil.example&#34;)" in page


def test_figures_nobody_opened_for_ten_minutes_are_not_held() -> None:
    from bot.board.page import Kept

    kept, made = Kept(), []

    def compute(at: datetime) -> object:
        board = type("B", (), {"now": at})()
        made.append(board)
        return board

    kept.get("T1", "C1", NOW, lambda: compute(NOW))
    kept.get("T1", "C2", NOW, lambda: compute(NOW))
    later = NOW + timedelta(minutes=10)
    kept.get("T1", "C2", later, lambda: compute(later))  # C1 unopened for ten minutes: dropped
    assert set(kept._boards) == {("T1", "C2")} and len(made) == 3
