"""`gpu-advise track`, `list`, `release`, `delete-storage`, run as a user would, against a real SQLite state file."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.support.cli import run_cli
from tests.support.fake_slack import fake_slack

TEAM = ("--team", "T1")
A100 = ("--gpu", "A100-80GB", "--price", "400/day", "--channel", "C1", "--owner", "U1")


def _state(tmp: Path) -> dict[str, str]:
    return {"GPU_ADVISOR_STATE_DB": str(tmp / "state.db")}


def test_track_prints_the_token_once_and_stores_only_its_hash(tmp_path: Path) -> None:
    env = _state(tmp_path)
    done = run_cli("track", "instance", "train-1", *A100, "--project", "llm", "--json", *TEAM, env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["name"] == "train-1" and len(out["token"]) >= 40
    raw = (tmp_path / "state.db").read_bytes()
    assert out["token"].encode() not in raw  # only the hash is kept
    listed = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)
    [inst] = listed["instances"]
    assert (inst["gpu"], inst["price"], inst["unit"], inst["currency"], inst["project"]) == (
        "A100-80GB",
        400.0,
        "day",
        "CNY",
        "llm",
    )
    assert "token" not in json.dumps(listed)


def test_the_workspace_comes_from_auth_test_when_no_team_is_given(tmp_path: Path) -> None:
    with fake_slack() as fake:
        env = _state(tmp_path) | {"SLACK_BOT_TOKEN": "xoxb-test-token", "SLACK_API_URL": fake.api_url}
        assert run_cli("track", "instance", "nb", *A100, env=env, tmp=tmp_path).returncode == 0
        assert fake.of("auth.test")
    # auth.test answers team T1: the same list is seen with --team T1, and not from another workspace
    assert [
        i["name"]
        for i in json.loads(run_cli("list", "--json", *TEAM, env=_state(tmp_path), tmp=tmp_path).stdout)["instances"]
    ] == ["nb"]
    other = json.loads(run_cli("list", "--json", "--team", "T2", env=_state(tmp_path), tmp=tmp_path).stdout)
    assert other == {"instances": [], "storage": []}


def test_without_a_team_or_a_token_the_command_says_how_to_name_one(tmp_path: Path) -> None:
    done = run_cli("track", "instance", "nb", *A100, env=_state(tmp_path), tmp=tmp_path)
    assert done.returncode == 2 and "--team" in done.stderr


def test_bad_input_names_the_flag_and_the_accepted_form_and_writes_nothing(tmp_path: Path) -> None:
    env = _state(tmp_path)
    cases = [
        (("--gpu", "A100-80GB", "--price", "cheap"), "--price"),
        (("--gpu", "Z9000", "--price", "400/day"), "--gpu"),
        (
            ("--gpu", "A100-80GB", "--price", "400/day", "--started", "yesterday"),
            "--started: 'yesterday' is not a time",
        ),
        (("--gpu", "A100-80GB", "--price", "400/day", "--currency", "EUR"), "CNY or USD"),
        (("--gpu", "A100-80GB", "--price", "400/day", "--share", "7/5"), "--share"),
        (("--gpu", "A100*8", "--price", "80/h", "--cards", "4"), "A100*8 says 8 cards and cards=4"),
    ]
    for flags, said in cases:
        done = run_cli(
            "track", "instance", "x1", *flags, "--channel", "C1", "--owner", "U1", *TEAM, env=env, tmp=tmp_path
        )
        assert done.returncode == 2, (flags, done.stdout)
        assert said in done.stderr, (flags, done.stderr)
    bad_name = run_cli("track", "instance", "-rm", *A100, *TEAM, env=env, tmp=tmp_path)
    assert bad_name.returncode != 0
    spaced = run_cli("track", "instance", "my box", *A100, *TEAM, env=env, tmp=tmp_path)
    assert spaced.returncode == 2 and "1 to 64 letters" in spaced.stderr
    assert json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"] == []


def test_a_machine_as_platforms_list_it_is_its_cards(tmp_path: Path) -> None:
    """`--gpu 'A100*8'` was an unknown GPU; it is eight A100 cards (a typed price the machine's, as always)."""
    env = _state(tmp_path)
    for name, flags in (("m1", ("--gpu", "A100*8")), ("m2", ("--gpu", "8xA100", "--cards", "8卡"))):
        done = run_cli("track", "instance", name, *flags, "--price", "80/h", "--channel", "C1", "--owner", "U1",
                       *TEAM, env=env, tmp=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
    listed = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    assert [(i["name"], i["gpu"], i["cards"]) for i in listed] == [("m1", "A100-80GB", 8), ("m2", "A100-80GB", 8)]
    # "A100-80GB × 8 · ¥80/hour" read as a card's price: a person is told it is the machine's
    wide = {"TTY_COMPATIBLE": "1", "COLUMNS": "200"}
    shown = run_cli("list", *TEAM, env=env | wide | {"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path).stdout
    assert shown.count("¥80/hour for all 8 cards") == 2
    shown = run_cli("list", *TEAM, env=env | wide | {"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path).stdout
    assert shown.count("¥80/小时（8 卡合计）") == 2
    priced = run_cli("billing", "m1", "--price", "96/h", *TEAM, env=env | {"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert "¥96/hour for all 8 cards" in priced.stdout, priced.stderr


def test_errors_speak_chinese(tmp_path: Path) -> None:
    done = run_cli(
        "track",
        "instance",
        "x1",
        "--gpu",
        "A100-80GB",
        "--price",
        "便宜",
        "--channel",
        "C1",
        "--owner",
        "U1",
        "--lang",
        "zh",
        *TEAM,
        env=_state(tmp_path),
        tmp=tmp_path,
    )
    assert done.returncode == 2 and "--price" in done.stderr
    assert any("\u4e00" <= ch <= "\u9fff" for ch in done.stderr)


def test_a_name_is_unique_per_workspace(tmp_path: Path) -> None:
    env = _state(tmp_path)
    assert run_cli("track", "instance", "a", *A100, *TEAM, env=env, tmp=tmp_path).returncode == 0
    again = run_cli("track", "instance", "a", *A100, *TEAM, env=env, tmp=tmp_path)
    assert again.returncode == 2 and "already tracked" in again.stderr
    assert "`gpu-advise billing a --cards 4`" in again.stderr  # how a card or count tracked wrong is corrected
    assert run_cli("track", "instance", "a", *A100, "--team", "T2", env=env, tmp=tmp_path).returncode == 0


def test_a_card_or_count_tracked_wrong_is_corrected_with_billing(tmp_path: Path) -> None:
    """Tracked as one A100 when it is 4 H800s: `billing a --gpu H800 --cards 4` corrects it, its price (the whole
    machine's) as it was; a GPU or count not read is refused naming it, and nothing changes."""
    env = _state(tmp_path)
    assert run_cli("track", "instance", "a", *A100, *TEAM, env=env, tmp=tmp_path).returncode == 0
    done = run_cli("billing", "a", "--gpu", "H800", "--cards", "4", *TEAM, env=env, tmp=tmp_path)
    assert done.returncode == 0 and "a: H800-80GB × 4 from now on, at ¥400/day" in done.stdout, done.stdout
    for flag, value in (("--gpu", "X9"), ("--cards", "0")):
        refused = run_cli("billing", "a", flag, value, *TEAM, env=env, tmp=tmp_path)
        assert refused.returncode == 2 and value in refused.stderr, refused.stderr
    [item] = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    assert (item["gpu"], item["cards"], item["price"], item["unit"]) == ("H800-80GB", 4, 400.0, "day")


def test_release_lists_the_storage_left_behind_and_delete_storage_stops_it(tmp_path: Path) -> None:
    env = _state(tmp_path)
    run_cli("track", "instance", "train-1", *A100, *TEAM, env=env, tmp=tmp_path)
    orphan = run_cli(
        "track",
        "storage",
        "ckpt",
        "--size-gb",
        "340",
        "--price-gb-month",
        "0.35",
        "--channel",
        "C1",
        "--owner",
        "U1",
        "--instance",
        "nope",
        *TEAM,
        env=env,
        tmp=tmp_path,
    )
    assert orphan.returncode == 2 and "no instance named 'nope'" in orphan.stderr
    stored = run_cli(
        "track",
        "storage",
        "ckpt",
        "--size-gb",
        "340",
        "--price-gb-month",
        "0.35",
        "--channel",
        "C1",
        "--owner",
        "U1",
        "--instance",
        "train-1",
        *TEAM,
        env=env,
        tmp=tmp_path,
    )
    assert stored.returncode == 0, stored.stderr
    released = run_cli("release", "train-1", *TEAM, env=env, tmp=tmp_path, stdin="")
    assert released.returncode == 0
    assert "ckpt" in released.stderr and "gpu-advise delete-storage ckpt" in released.stderr
    twice = run_cli("release", "train-1", *TEAM, env=env, tmp=tmp_path)
    assert twice.returncode == 2 and "already released" in twice.stderr
    listed = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)
    assert listed["instances"][0]["released_at"] is not None
    assert listed["storage"][0]["deleted_at"] is None  # it stays tracked until deleted
    assert run_cli("delete-storage", "ckpt", *TEAM, env=env, tmp=tmp_path).returncode == 0
    with sqlite3.connect(tmp_path / "state.db") as db:
        assert db.execute("select deleted_at is not null from rental_storage").fetchone() == (1,)
    missing = run_cli("delete-storage", "ckpt2", *TEAM, env=env, tmp=tmp_path)
    assert missing.returncode == 2 and "no storage named 'ckpt2'" in missing.stderr


def test_without_price_the_price_cache_gives_one_and_says_where_from(tmp_path: Path) -> None:
    env = _state(tmp_path) | {"GPU_ADVISOR_AZURE_ENABLED": "false", "GPU_ADVISOR_ECB_ENABLED": "false"}
    done = run_cli(
        "track",
        "instance",
        "box",
        "--gpu",
        "A100-80GB",
        "--cards",
        "2",
        "--channel",
        "C1",
        "--owner",
        "U1",
        *TEAM,
        env=env,
        tmp=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "¥800/day for all 2 cards from the price cache (ratecard" in done.stderr  # the machine's, not a card's
    [inst] = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    assert (inst["price"], inst["unit"]) == (800.0, "day")
    none = run_cli(
        "track", "instance", "b2", "--gpu", "H800", "--channel", "C1", "--owner", "U1", *TEAM, env=env, tmp=tmp_path
    )
    assert none.returncode == 2 and "--price: no dedicated price of H800-80GB" in none.stderr


def test_list_shows_people_by_name_not_as_slack_mentions(tmp_path: Path) -> None:
    """Issue 19.9: `gpu-advise list` printed `<@U0456>` in the terminal."""
    env = _state(tmp_path)
    assert run_cli("track", "instance", "train-1", *A100, *TEAM, env=env, tmp=tmp_path).returncode == 0
    bare = run_cli("list", *TEAM, env=env, tmp=tmp_path).stdout  # no token: the bare id
    assert "\tU1\t" in bare and "<@" not in bare
    with fake_slack() as fake:
        fake.names["U1"] = "li.wei"
        named = run_cli(
            "list", *TEAM, env=env | {"SLACK_BOT_TOKEN": "xoxb-test-token", "SLACK_API_URL": fake.api_url}, tmp=tmp_path
        ).stdout
    assert "\tli.wei\t" in named and "<@" not in named


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--started", "9999-12-31T23:59:59-14:00"), "--started: the time 9999-12-31T23:59:59-14:00 is in the future"),
        (("--started", "0001-01-01T00:00:00+14:00"), "--started: '0001-01-01T00:00:00+14:00' is before 1970"),
        (("--price", "1e309/day"), "Could not read '1e309/day'"),
    ],
)
def test_impossible_figures_and_times_are_refused_and_nothing_is_stored(
    tmp_path: Path, flags: tuple[str, ...], said: str
) -> None:
    """Issues 20.3 and 20.14: 1e309 was stored as Infinity; a year-9999 start crashed."""
    base = ("--gpu", "A100-80GB", "--channel", "C1", "--owner", "U1", *TEAM)
    price = () if "--price" in flags else ("--price", "400/day")
    done = run_cli("track", "instance", "x", *base, *price, *flags, "--lang", "en", env=_state(tmp_path), tmp=tmp_path)
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr
    assert json.loads(run_cli("list", "--json", *TEAM, env=_state(tmp_path), tmp=tmp_path).stdout)["instances"] == []


def test_storage_of_infinite_size_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    """Issue 20.3: `track storage big --size-gb 1e309` was stored as Infinity and stopped every digest."""
    for flags in (("--size-gb", "1e309", "--price-gb-month", "0.3"), ("--size-gb", "10", "--price-gb-month", "1e309")):
        done = run_cli(
            "track",
            "storage",
            "big",
            *flags,
            "--channel",
            "C1",
            "--owner",
            "U1",
            *TEAM,
            "--lang",
            "en",
            env=_state(tmp_path),
            tmp=tmp_path,
        )
        assert done.returncode == 2 and "inf is not possible here: give a finite number" in done.stderr
    assert json.loads(run_cli("list", "--json", *TEAM, env=_state(tmp_path), tmp=tmp_path).stdout)["storage"] == []


def test_storage_flags_take_sizes_and_prices_as_chat_does(tmp_path: Path) -> None:
    """`--size-gb 2T` was "2T is not a number" where chat's size=2T is 2,048 GB; a price said aloud likewise."""
    env = _state(tmp_path) | {"GPU_ADVISOR_LANG": "en"}
    where = ("--channel", "C1", "--owner", "U1", *TEAM)
    done = run_cli("track", "storage", "ds", "--size-gb", "2T", "--price-gb-month", "三毛五一个G一个月", *where,
                   env=env, tmp=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    [kept] = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["storage"]
    assert (kept["size_gb"], kept["price_gb_month"]) == (2048, 0.35)
    for flag, value, said in (("--size-gb", "0", "must be above zero"), ("--price-gb-month", "350/月", "per GB")):
        flags = {"--size-gb": "10", "--price-gb-month": "0.3"} | {flag: value}
        refused = run_cli("track", "storage", "x", *(a for kv in flags.items() for a in kv), *where, env=env,
                          tmp=tmp_path)  # fmt: skip
        assert refused.returncode == 2 and refused.stderr.startswith(f"{flag}: ") and said in refused.stderr


def test_track_storage_reads_its_size_and_price_as_chat_does(tmp_path: Path) -> None:
    """`gpu-advise track storage 数据盘 1T 每月500元` was "missing --size-gb": the words now stand for the flags (a
    month without "a GB" said among them is the disk's, as chat reads it; the flag names its unit)."""
    env = _state(tmp_path) | {"GPU_ADVISOR_LANG": "en"}
    where = ("--channel", "C1", "--owner", "U1", *TEAM)
    done = run_cli("track", "storage", "disk", "1T", "每月500元", *where, env=env, tmp=tmp_path)
    assert done.returncode == 0 and "Tracking storage disk: ¥500 a month." in done.stdout, done.stderr
    assert (
        "¥150 a month" in run_cli("track", "storage", "d2", "500G", "0.3元/GB/月", *where, env=env, tmp=tmp_path).stdout
    )
    kept = {s["name"]: s for s in json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["storage"]}
    assert kept["disk"]["size_gb"] * kept["disk"]["price_gb_month"] == pytest.approx(500.0)
    asked = run_cli("track", "storage", "d3", "100G", "每月2元", *where, env=env, tmp=tmp_path)  # a GB's or the disk's
    assert asked.returncode == 2 and "a month of what?" in asked.stderr, asked.stderr
    twice = run_cli("track", "storage", "d4", "100G", "0.3", "--size-gb", "100", *where, env=env, tmp=tmp_path)
    assert twice.returncode == 2 and "--size-gb" in twice.stderr
    unread = run_cli("track", "storage", "d5", "100G", "lol", "0.3", *where, env=env, tmp=tmp_path)
    assert unread.returncode == 2 and "`lol` is not a size with its unit" in unread.stderr, unread.stderr
    missing = run_cli("track", "storage", "d6", "100G", *where, env=env, tmp=tmp_path)
    assert missing.returncode == 2 and "--price-gb-month" in missing.stderr
    after = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["storage"]
    assert {s["name"] for s in after} == {"disk", "d2"}  # nothing refused was kept


def test_storage_kept_from_before_is_entered_with_its_creation_date(tmp_path: Path) -> None:
    base = (
        "track",
        "storage",
        "old-ckpt",
        "--size-gb",
        "500",
        "--price-gb-month",
        "0.3",
        "--channel",
        "C1",
        "--owner",
        "U1",
        *TEAM,
        "--lang",
        "en",
    )
    env = _state(tmp_path) | {"GPU_ADVISOR_REMIND_TZ": "Asia/Shanghai"}
    done = run_cli(*base, "--created", "2026-10-01", env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Billed from 2026-10-01 00:00 Asia/Shanghai" in done.stderr
    [kept] = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["storage"]
    # a date alone is its midnight on the team's clock
    assert datetime.fromisoformat(kept["created_at"]) == datetime(2026, 10, 1, tzinfo=ZoneInfo("Asia/Shanghai"))
    bad = run_cli(*base[:2], "other", *base[3:], "--created", "last spring", env=_state(tmp_path), tmp=tmp_path)
    assert bad.returncode == 2 and "--created: 'last spring' is not a time" in bad.stderr


def test_started_reads_a_past_time_as_chat_and_at_do_on_the_teams_clock(tmp_path: Path) -> None:
    """`--started` took ISO 8601 only and read a time without a zone as UTC, eight hours off a Beijing team's clock,
    while `--at` and chat's `started=` read `yesterday 9:00` on the team's clock."""
    zone = ZoneInfo("America/New_York")
    env = _state(tmp_path) | {"GPU_ADVISOR_REMIND_TZ": "America/New_York", "GPU_ADVISOR_LANG": "en"}

    def started(name: str, said: str) -> tuple[datetime, str]:
        done = run_cli("track", "instance", name, *A100, "--started", said, *TEAM, env=env, tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        listed = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
        return datetime.fromisoformat(next(i for i in listed if i["name"] == name)["started_at"]), done.stderr

    def nine_yesterday(moment: datetime) -> datetime:
        return datetime.combine(moment.astimezone(zone).date() - timedelta(days=1), time(9), zone)

    before = datetime.now(UTC)
    at, said = started("a", "yesterday 9:00")
    assert at in (nine_yesterday(before), nine_yesterday(datetime.now(UTC)))  # either side of New York's midnight
    assert "Billed from" in said and "9:00" in said
    at, _ = started("b", "2026-11-30T01:00")  # no zone: the team's clock, not UTC
    assert at == datetime(2026, 11, 30, 1, tzinfo=zone)
    at, _ = started("c", "2026-11-30T01:00:00Z")  # a zone given is kept: scripts' times read as before
    assert at == datetime(2026, 11, 30, 1, tzinfo=UTC)
    at, _ = started("d", "90m ago")
    assert timedelta(minutes=89) < before - at < timedelta(minutes=92)
    future = run_cli("track", "instance", "e", *A100, "--started", "2999-01-01 9:00", *TEAM, env=env, tmp=tmp_path)
    assert future.returncode == 2 and "--started: the time 2999-01-01 09:00 America/New_York is in the future" in (
        future.stderr
    )
    zh = run_cli(
        "track", "instance", "f", *A100, "--started", "明天", *TEAM, env=env | {"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path
    )
    assert zh.returncode == 2 and "--started: “明天”不是时间：请用 23:30" in zh.stderr
    names = [i["name"] for i in json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]]
    assert names == ["a", "b", "c", "d"]


def test_billing_price_sets_a_price_by_hand_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    """Issue 52: `billing NAME --price 1.88/h` sets a price; a stop mode with neither a basis nor a price says what to
    give (`billing NAME` alone says how it bills: tests/metering/test_terminal.py)."""
    env = _state(tmp_path)
    assert run_cli("track", "instance", "box", *A100, *TEAM, env=env, tmp=tmp_path).returncode == 0
    done = run_cli("billing", "box", "--price", "1.88/h", *TEAM, "--lang", "en", env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "box: ¥1.88/hour from now on, set by hand" in done.stdout
    listed = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)
    assert [(i["name"], i["price"]) for i in listed["instances"]] == [("box", 1.88)]
    bad = run_cli("billing", "box", "--price", "cheap", *TEAM, "--lang", "en", env=env, tmp=tmp_path)
    assert bad.returncode == 2 and "cheap" in bad.stderr
    needs = run_cli("billing", "box", "--stop-billing", "keeps", *TEAM, "--lang", "en", env=env, tmp=tmp_path)
    assert needs.returncode == 2 and "or its price (--price 1.88/h)" in needs.stderr


TERMINAL = {"TTY_COMPATIBLE": "1", "COLUMNS": "80", "GPU_ADVISOR_LANG": "en"}  # rich's own switch: a terminal


def plain(text: str) -> str:
    """What the terminal shows: its styles' escape codes left out."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_list_in_a_terminal_names_its_columns_and_keeps_every_word_whole(tmp_path: Path) -> None:
    """In a terminal `list` printed ten unnamed tab-separated columns; now a table whose header names them, fitted
    to the terminal (80 columns) without cutting or splitting a word. Through a pipe it stays a row a line."""
    env = _state(tmp_path) | TERMINAL
    for name, owner in (("train-a100-1", "U1"), ("infer-2", "U2")):
        done = run_cli("track", "instance", name, *A100[:-1], owner, "--project", "llm", *TEAM, env=env, tmp=tmp_path)
        assert done.returncode == 0, done.stderr
    storage = ("--size-gb", "500", "--price-gb-month", "0.1", "--channel", "C1", "--owner", "U1")
    on_box = ("--instance", "infer-2")  # the box it is on, said after its size (a pipe's cells stay as they were)
    assert run_cli("track", "storage", "ckpt", *storage, *on_box, *TEAM, env=env, tmp=tmp_path).returncode == 0
    shown = run_cli("list", *TEAM, env=env, tmp=tmp_path)
    assert shown.returncode == 0, shown.stderr
    out = plain(shown.stdout)
    assert max(len(line) for line in out.splitlines()) <= 80 and "…" not in out and "\t" not in out
    words = out.split()
    assert {"name", "GPU", "owner", "billing", "storage", "size"} <= set(words)
    assert {"train-a100-1", "infer-2", "A100-80GB", "¥400/day", "running", "ckpt", "kept"} <= set(words), words
    assert "500 GB on" in out and words.count("infer-2") == 2, out  # its own row, and the disk's (wrapped at 80)
    zh = plain(run_cli("list", *TEAM, "--lang", "zh", env=env, tmp=tmp_path).stdout)
    assert max(len(line) for line in zh.splitlines()) <= 80 and {"train-a100-1", "A100-80GB"} <= set(zh.split())
    # its words in the reader's language, its price as the chats' `list` says it (was "hourly", "on", "CNY/day")
    assert {"¥400/天", "按天", "开机"} <= set(zh.split()) and "day" not in zh, zh
    piped = run_cli("list", *TEAM, env=_state(tmp_path) | {"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path).stdout
    assert [line.split("\t")[0] for line in piped.splitlines()] == ["infer-2", "train-a100-1", "ckpt"]
    assert piped.splitlines()[-1].split("\t")[1] == "500 GB"


def test_list_of_nothing_says_how_to_track(tmp_path: Path) -> None:
    """An empty `list` printed nothing at all."""
    for env in (_state(tmp_path), _state(tmp_path) | TERMINAL):
        shown = run_cli("list", "--team", "T9", "--lang", "en", env=env, tmp=tmp_path)
        assert shown.returncode == 0 and "Nothing of T9 is tracked yet" in shown.stdout
        assert "gpu-advise track instance" in shown.stdout and "gpu-advise discover" in shown.stdout


@pytest.mark.parametrize(
    ("team", "form"),
    [("dingtalk:corp1", "DingTalk: give cid…, dm-<userId>"), ("wecom:bot1", "WeCom: give <chatid>, <userid>")],
)
def test_a_bad_channel_of_a_dingtalk_or_wecom_team_says_that_chats_form(tmp_path: Path, team: str, form: str) -> None:
    """They were told to give a Slack channel id (C… or G…)."""
    done = run_cli("track", "instance", "x", *A100[:4], "--channel", "bad chan", "--owner", "U1", "--team", team,
                   "--lang", "en", env=_state(tmp_path), tmp=tmp_path)  # fmt: skip
    assert done.returncode == 2 and f"is not a chat of {form}" in done.stderr
    assert "Slack" not in done.stderr


def test_list_dearest_puts_the_most_spent_this_month_first(tmp_path: Path) -> None:
    """`gpu-advise list --dearest`, as chat's `list dearest` (哪台机器最贵): the tracked order otherwise."""
    env = _state(tmp_path)
    for name, price in (("a", "1/h"), ("b", "100/h"), ("c", "5/h")):
        made = ("--gpu", "A100-80GB", "--price", price, "--channel", "C1", "--owner", "U1", "--started", "2020-01-01")
        assert run_cli("track", "instance", name, *made, *TEAM, env=env, tmp=tmp_path).returncode == 0
    plain = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    assert [i["name"] for i in plain] == ["a", "b", "c"]
    dear = json.loads(run_cli("list", "--json", "--dearest", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    spent = [i["spent_this_month"] for i in dear]
    assert spent == sorted(spent, reverse=True) and {i["name"] for i in dear} == {"a", "b", "c"}
    # hourly items: their order by price, except in a month's first seconds, when some have spent nothing yet (the
    # terminal's clock is the machine's: ties keep the tracked order there, which the line above still checks)
    assert [i["name"] for i in dear] == ["b", "c", "a"] or len(set(spent)) < len(spent)


def test_list_dearest_sets_dollars_and_yuan_on_one_scale(tmp_path: Path) -> None:
    """$3 an hour (about ¥21.6 at the price cache's rate) was listed below ¥10: the bare numbers were compared."""
    env = _state(tmp_path)
    for name, price in (("yuan", "10/h"), ("dollars", "$3/h")):
        made = ("--gpu", "A100-80GB", "--price", price, "--channel", "C1", "--owner", "U1", "--started", "2020-01-01")
        assert run_cli("track", "instance", name, *made, *TEAM, env=env, tmp=tmp_path).returncode == 0
    dear = json.loads(run_cli("list", "--json", "--dearest", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    # a month's first minutes: cents, which rounding may order either way (the machine's clock: the order is checked
    # from the first yuan on)
    early = max(i["spent_this_month"] for i in dear) < 1
    assert [(i["name"], i["currency"]) for i in dear] == [("dollars", "USD"), ("yuan", "CNY")] or early


def test_a_box_released_is_tracked_again_under_its_name_and_both_are_listed(tmp_path: Path) -> None:
    """`track instance train-1` after `release train-1` was refused as already tracked, as if the box rented again
    had to take another name; and the list's rows read each instance's bill by its name, so two rows of one name
    would have shown one bill twice."""
    env, started = _state(tmp_path), (datetime.now(UTC) - timedelta(days=2)).isoformat()
    first = run_cli("track", "instance", "train-1", *A100, "--started", started, *TEAM, env=env, tmp=tmp_path)
    assert first.returncode == 0, first.stderr
    assert run_cli("release", "train-1", *TEAM, env=env, tmp=tmp_path).returncode == 0
    again = run_cli("track", "instance", "train-1", "--gpu", "H100", "--price", "20/h", "--channel", "C1",
                    "--owner", "U1", *TEAM, env=env, tmp=tmp_path)  # fmt: skip
    assert again.returncode == 0, again.stderr
    listed = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    assert [(i["name"], i["gpu"], i["released_at"] is None) for i in listed] == [
        ("train-1", "A100-80GB", False),
        ("train-1", "H100-80GB", True),
    ]
    assert listed[0]["spent_this_month"] > 0 and listed[1]["spent_this_month"] == 0
    rows = [line.split("\t") for line in run_cli("list", *TEAM, env=env, tmp=tmp_path).stdout.splitlines()]
    assert [r[:2] + r[4:5] for r in rows] == [
        ["train-1", "A100-80GB × 1", "released"],
        ["train-1", "H100-80GB × 1", "running"],
    ], rows
    assert [r[7] for r in rows] == ["off", "on"], rows  # each row its own bill: both read the newer one's before
    assert rows[0][-1] == f"¥{listed[0]['spent_this_month']:,.0f}" and rows[1][-1] != rows[0][-1], rows
    twice = run_cli("track", "instance", "train-1", *A100, *TEAM, env=env, tmp=tmp_path)
    assert twice.returncode == 2 and "already tracked" in twice.stderr  # the running one's name: refused as before


def test_rename_from_the_terminal(tmp_path: Path) -> None:
    """`gpu-advise rename OLD NEW`: a box discovered under its cloud id called what the team calls it; refused, exit
    2 and nothing changed, for no such item, a name in use or no name."""
    env = _state(tmp_path)
    assert run_cli("track", "instance", "i-0abc", *A100, *TEAM, env=env, tmp=tmp_path).returncode == 0
    assert run_cli("track", "instance", "box2", *A100, *TEAM, env=env, tmp=tmp_path).returncode == 0
    done = run_cli("rename", "i-0abc", "trainer", *TEAM, env=env, tmp=tmp_path)
    assert done.returncode == 0 and "i-0abc is trainer now" in done.stdout, done.stderr
    for old, new, said in (("nothing", "x", "no instance or kept storage named 'nothing'"),
                           ("trainer", "box2", "'box2' is already the name of an instance or storage"),
                           ("trainer", "a b", "'a b' is not a usable name")):  # fmt: skip
        refused = run_cli("rename", old, new, *TEAM, env=env, tmp=tmp_path)
        assert refused.returncode == 2 and said in refused.stderr, (old, new, refused.stderr)
    listed = json.loads(run_cli("list", "--json", *TEAM, env=env, tmp=tmp_path).stdout)["instances"]
    assert sorted(i["name"] for i in listed) == ["box2", "trainer"]
