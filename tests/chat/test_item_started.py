"""When a tracked box began, corrected (bot/app/item_started.py): a box tracked after it was rented billed only from
when it was tracked, and a power report before then was refused telling people to track it again with `started=`,
which its name refused. `billing NAME started=…` moves its start, and every figure follows it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.state.rentals import Rentals
from bot.state.store import Store
from tests.chat.test_both_platforms import driving
from tests.chat.test_item_words import TEAM
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.cli import run_cli
from tests.support.state_template import migrated_state_db


def test_a_start_moved_earlier_bills_from_then(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        refused = chat.command("训练机 2小时前开机了")  # before it was tracked: where it is said how to move it
        assert "早于它的开始时间" in refused and "`billing 名称 started=…`" in refused, refused
        said = chat.command("billing 训练机 started=3小时前")
        assert "训练机 从 2026-11-30 06:10 Asia/Shanghai 开始计费" in said, said
        found = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert found is not None and found.started_at == MONDAY_0910_SHANGHAI - timedelta(hours=3)
        assert "本月 ¥180" in chat.command("list")  # 3 h at ¥60 an hour: the list, as the report and budgets
        assert "起关机" in chat.command("训练机 2小时前关机了")  # within its bill now
        assert "本月 ¥60" in chat.command("list")  # on from 06:10 until 07:10
        refused = chat.command("billing 训练机 started=明天")  # no past time: said what is taken, nothing moved
        assert "started: “明天”不是时间" in refused and "2小时前" in refused, refused
        refused = chat.command("billing 训练机 started=现在")  # after a word of its power: it was there by then
        assert "不可能在" in refused and "已有它的开关机记录" in refused, refused
        found = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert found is not None and found.started_at == MONDAY_0910_SHANGHAI - timedelta(hours=3)


def test_the_terminal_moves_a_start_with_started(tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_STATE_DB": str(tmp_path / "state.db"), "GPU_ADVISOR_LANG": "en"}
    made = ("--gpu", "A100-80GB", "--price", "10/h", "--channel", "C1", "--owner", "U1", "--team", "T1")
    assert run_cli("track", "instance", "box", *made, env=env, tmp=tmp_path).returncode == 0
    moved = run_cli("billing", "box", "--started", "2h ago", "--team", "T1", env=env, tmp=tmp_path)
    assert moved.returncode == 0 and "box is billed from" in moved.stdout, moved.stderr
    found = Rentals(Store(migrated_state_db(tmp_path / "state.db"))).instance("T1", "box")
    ago = datetime.now(UTC) - found.started_at if found is not None else None  # whatever the hour the test runs
    assert ago is not None and timedelta(hours=2) <= ago < timedelta(hours=2, minutes=2), ago
    bad = run_cli("billing", "box", "--started", "tomorrow", "--team", "T1", env=env, tmp=tmp_path)
    assert bad.returncode == 2 and "--started" in bad.stderr, bad.stderr


def test_when_it_began_said_after_its_name(tmp_path: Path) -> None:
    """`训练机 昨天9点开始跑的` before it was tracked was refused as a power report before its start: its start moves
    there; said as a correction (`训练机 其实是从昨晚8点开始的`) it moves either way; after its start, it was on
    from then."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        rentals = Rentals(chat.deps.store)
        assert "开始计费" in chat.command("训练机 昨天9点开始跑的")
        found = rentals.instance(TEAM, "训练机")
        assert found is not None and found.started_at == MONDAY_0910_SHANGHAI - timedelta(days=1, minutes=10)
        assert "开始计费" in chat.command("训练机 其实是从昨晚8点开始的")  # later: a correction says so
        found = rentals.instance(TEAM, "训练机")
        assert found is not None and found.started_at == MONDAY_0910_SHANGHAI - timedelta(hours=13, minutes=10)
        said = chat.command("训练机 从1小时前开始跑")  # after its start: on from then
        assert "起开机" in said and "开始计费" not in said, said
