"""Whose money an instance is could not change once it was tracked (or found in a cloud): a box tracked under the
wrong project counted there in every report and budget, and one handed to a colleague stayed its first owner's.
`billing NAME project=… owner=…`, said in words too (`训练机 项目改成 cv`), and the terminal's --project, --owner."""

from __future__ import annotations

import json
from pathlib import Path

from bot.state.rentals import Rentals
from tests.chat.test_both_platforms import driving
from tests.support.cli import run_cli


def _item(chat, name: str):  # type: ignore[no-untyped-def]
    rentals = Rentals(chat.deps.store)
    return rentals.instance(rentals.teams()[0], name)


def test_a_project_and_an_owner_said_in_words_change_and_the_new_owner_is_told(tmp_path: Path) -> None:
    with driving("wecom", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元 项目=llm")
        said = chat.command("训练机 项目改成 cv")
        assert "训练机 现在计入项目 cv" in said and "本月已花的" in said, said
        assert _item(chat, "训练机").project == "cv"
        assert "训练机" in chat.command("list cv") and "“llm”不是这里的项目" in chat.command("list llm")
        before = len(chat.h.fake.sent)
        said = chat.in_group("训练机 负责人改成 @stranger02")
        assert "训练机 的负责人现在是 <@stranger02>" in said, said
        told = [s for s in chat.h.fake.sent[before:] if s.chat == "stranger02"]
        assert told and "把 **训练机** 交给了你负责" in told[0].text, [s.chat for s in chat.h.fake.sent[before:]]
        assert _item(chat, "训练机").owner == "stranger02"
        refused = chat.command("billing 训练机 项目=llm")  # no longer the starter's, who is no admin
        assert "只有负责人 <@stranger02>" in refused and _item(chat, "训练机").project == "cv"


def test_no_project_twice_given_and_english_words(tmp_path: Path) -> None:
    with driving("slack", tmp_path) as chat:
        chat.command("track box1 gpu=A100 price=14/h project=llm")
        assert "'project' given twice" in chat.command("billing box1 project=a project=b")
        assert _item(chat, "box1").project == "llm"
        said = chat.command("billing box1 project=none hourly")
        assert "box1 is in no project now" in said and "hourly" in said.lower(), said
        assert _item(chat, "box1").project is None
        assert "box1 counts for project cv now" in chat.command("box1 project=cv")
        assert _item(chat, "box1").project == "cv"


def test_the_terminal_sets_whose_it_is_and_refuses_an_owner_it_cannot_reach(tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db")}
    team = ("--team", "T1", "--lang", "en")
    made = ("--gpu", "A100-80GB", "--price", "14/h", "--channel", "C1", "--owner", "U1", "--project", "llm")
    assert run_cli("track", "instance", "box", *made, *team, env=env, tmp=tmp_path).returncode == 0
    done = run_cli("billing", "box", "--project", "cv", "--owner", "U2ABCDEF", *team, env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "box counts for project cv now" in done.stdout and "box is U2ABCDEF's now" in done.stdout
    bad = run_cli("billing", "box", "--owner", "Li Lei", "--project", "x", *team, env=env, tmp=tmp_path)
    assert bad.returncode == 2 and "Li Lei" in bad.stderr
    listed = json.loads(run_cli("list", "--json", "--team", "T1", env=env, tmp=tmp_path).stdout)
    assert [(i["project"], i["owner"]) for i in listed["instances"]] == [("cv", "U2ABCDEF")]


def test_whose_a_kept_storage_item_is_said_in_words(tmp_path: Path) -> None:
    """`数据盘 项目改成 cv` was "not read": storage counts for a project and an owner as an instance does."""
    with driving("wecom", tmp_path) as chat:
        chat.command("登记存储 数据盘 1TB 每月500元 项目=llm")
        assert "数据盘 现在计入项目 cv" in chat.command("数据盘 项目改成 cv")
        assert "数据盘 的负责人现在是 <@stranger02>" in chat.command("数据盘 负责人改成 @stranger02")
        rentals = Rentals(chat.deps.store)
        kept = rentals.storage_named(rentals.teams()[0], "数据盘")
        assert kept is not None and (kept.project, kept.owner) == ("cv", "stranger02")
        assert "只有负责人 <@stranger02>" in chat.command("数据盘 项目改成 llm")  # the starter's no longer


def test_a_project_or_owner_given_empty_or_too_long_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    with driving("slack", tmp_path) as chat:
        chat.command("track box1 gpu=A100 price=14/h project=llm")
        for said in ("billing box1 project=", "billing box1 owner=", f"billing box1 project={'x' * 81}"):
            refused = chat.command(said)
            assert "billing NAME project=llm" in refused, (said, refused)  # the usage, naming the forms
        assert (_item(chat, "box1").project, _item(chat, "box1").owner) == ("llm", "U1")


def test_an_owner_said_as_belonging_or_with_is_is_set(tmp_path: Path) -> None:
    """`训练机 的负责人是 @李雷` and `训练机 是 @李雷 的` were "not read"; a name typed without @ is refused saying to
    mention the person."""
    with driving("wecom", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        assert "训练机 的负责人现在是 <@stranger02>" in chat.command("训练机 的负责人是 @stranger02")
        assert _item(chat, "训练机").owner == "stranger02"
    with driving("wecom", tmp_path / "of") as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        assert "训练机 的负责人现在是 <@stranger02>" in chat.command("训练机 是 @stranger02 的")
        refused = chat.command("登记 数据机 A800 8卡 每小时60元 负责人=张三")
        assert "请 @ 提及这个人" in refused, refused


def test_whose_it_is_set_with_ba_or_gui_and_asked_who_owns_it(tmp_path: Path) -> None:
    """`把训练机的负责人改成 @…`, `把训练机的项目改成 cv` and `训练机 归 cv 项目` were "not read" (`训练机的项目改成 cv`
    was); `训练机 现在是谁的` and `训练机 跑了几天了` too: its line of the list, and its power this month."""
    with driving("wecom", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元 项目=llm 起租=3天前")
        assert "训练机 现在计入项目 cv" in chat.command("把训练机的项目改成 cv")
        assert "训练机 现在计入项目 serve" in chat.command("训练机 归 serve 项目")
        assert _item(chat, "训练机").project == "serve"
        assert "· <@starter01> ·" in chat.command("训练机 现在是谁的")  # its line, its owner in it
        assert "72.0 小时" in chat.command("训练机 跑了几天了")
        assert "训练机 的负责人现在是 <@stranger02>" in chat.in_group("把训练机的负责人改成 @stranger02")
        assert _item(chat, "训练机").owner == "stranger02"


def test_the_terminals_track_takes_the_one_channel_and_owner_the_teams_items_have(tmp_path: Path) -> None:
    """`gpu-advise track NAME …` without --channel and --owner was click's "missing '--channel'": the one the team's
    items have is taken (said on stderr); none yet, or several, is refused naming what is needed or those there are."""
    env = {"GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db")}
    team = ("--team", "T1", "--lang", "en")
    first = run_cli("track", "box", "A100", "14/h", *team, env=env, tmp=tmp_path)
    assert first.returncode == 2 and "--channel is needed: this team has no item yet" in first.stderr, first.stderr
    made = ("--channel", "C1", "--owner", "U1ABC")
    assert run_cli("track", "box", "A100", "14/h", *made, *team, env=env, tmp=tmp_path).returncode == 0
    second = run_cli("track", "box2", "4090", "4/h", *team, env=env, tmp=tmp_path)
    assert second.returncode == 0 and "--channel C1: the one this team's items have" in second.stderr, second.stderr
    disk = run_cli("track", "storage", "ckpt", "--size-gb", "100", "--price-gb-month", "0.5", *team, env=env,
                   tmp=tmp_path)  # fmt: skip
    assert disk.returncode == 0, disk.stderr
    elsewhere = ("--channel", "C2", "--owner", "U2XYZ")
    assert run_cli("track", "box3", "4090", "4/h", *elsewhere, *team, env=env, tmp=tmp_path).returncode == 0
    several = run_cli("track", "box4", "4090", "4/h", "--owner", "U1ABC", *team, env=env, tmp=tmp_path)
    assert several.returncode == 2 and "C1 (3), C2 (1)" in several.stderr, several.stderr
    listed = json.loads(run_cli("list", "--json", "--team", "T1", env=env, tmp=tmp_path).stdout)
    assert {i["name"]: (i["channel"], i["owner"]) for i in listed["instances"]} == {
        "box": ("C1", "U1ABC"), "box2": ("C1", "U1ABC"), "box3": ("C2", "U2XYZ")}  # fmt: skip
