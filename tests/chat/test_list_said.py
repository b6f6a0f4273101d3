"""Chat's `list` took no words and ignored any (`list mine`, `列表 llm` listed everything), `release` one name
only, and a name in other capitals was just "no instance"."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.state.discovered import Discovered
from bot.state.rentals import Rentals
from tests.chat.test_both_platforms import driving


def test_list_mine_a_project_or_all_and_release_several(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.command("track a1 gpu=A100 price=14/h project=llm")
        chat.command("track a2 gpu=4090 price=2/h project=cv")
        chat.command("track x9 gpu=4090 price=2/h")
        rentals = Rentals(chat.deps.store)
        team = rentals.teams()[0]
        Discovered(chat.deps.store).hide(team, "i", "x9", "UADMIN")
        llm = chat.command("list llm")
        assert "a1" in llm and "a2" not in llm and "x9" not in llm
        assert "项目 llm 在本组织登记的资源" in llm, llm  # whose they are: each said the whole team's title
        mine = chat.command("列表 我的")
        assert "a1" in mine and "x9" not in chat.command("list mine") and "你在本组织登记的资源" in mine, mine
        every = chat.command("list all")
        assert "x9" in every and "不是我们的" in every and "a2" in every and "全部资源" in every
        refused = chat.command("list nope")
        assert "“nope”不是这里的项目" in refused and "项目有：cv, llm" in refused
        said = chat.command("release A1")  # names tell capitals apart: the one meant is asked
        assert "没有名为“A1”的实例" in said and "是指 a1 吗？" in said
        assert "没有名为“zz”的实例" in chat.command("release a1 zz")  # one unknown: none released
        assert rentals.instance(team, "a1").released_at is None  # type: ignore[union-attr]
        chat.command("释放 a1 a2")
        assert all(rentals.instance(team, n).released_at is not None for n in ("a1", "a2"))  # type: ignore[union-attr]
    with driving("dingtalk", tmp_path / "none") as chat:
        chat.command("track b1 gpu=A100 price=14/h owner=someone02")
        assert "还没有你负责的资源" in chat.command("list mine")  # it said nothing is tracked here at all


def test_power_said_as_one_chinese_word(tmp_path: Path) -> None:
    """`关机 a1` and `开机 a1` were unknown sub-commands: a Chinese team says power as the one word."""
    from bot.state.power import PowerLog
    from rules.power import Power

    with driving("wecom", tmp_path) as chat:
        chat.command("登记 a1 A100 14/h")
        assert "自此刻关机" in chat.command("关机 a1")
        rentals = Rentals(chat.deps.store)
        inst = rentals.instance(rentals.teams()[0], "a1")
        assert inst is not None
        assert [r.state for r in PowerLog(chat.deps.store).reports([inst.id])[inst.id]][-1] == Power.OFF
        assert "自此刻开机" in chat.command("开机 a1")
        assert "`power 名称 on`" in chat.command("关机")  # no name: the usage
        assert "`开机 名称`、`关机 名称`" in chat.command("帮助")


def test_the_dearest_first_when_asked(tmp_path: Path) -> None:
    """`哪台机器最贵` was an unknown sub-command: the list, most spent this month first (`list dearest`, a project's
    too), says which."""
    with driving("wecom", tmp_path) as chat:
        chat.h.clock.now = datetime(2026, 12, 7, 2, tzinfo=UTC)  # type: ignore[attr-defined]  # the days said are past
        chat.command("登记 a1 A800 8卡 每小时60元 项目=llm started=12月3日9点")
        chat.command("登记 a2 4090 每小时2元 项目=cv started=12月1日9点")
        chat.command("登记 a3 H100 8卡 每小时200元 项目=cv started=12月6日9点")
        said = chat.command("哪台机器最贵")
        assert said.startswith("本企业登记的资源（本月花费最多的在前）："), said
        assert [line.split("**")[1] for line in said.splitlines()[1:]] == ["a1", "a3", "a2"], said
        plain = chat.command("list")
        assert [line.split("**")[1] for line in plain.splitlines()[1:]] == ["a1", "a2", "a3"]  # as tracked
        cv = chat.command("列表 cv 最贵")
        assert [line.split("**")[1] for line in cv.splitlines()[1:]] == ["a3", "a2"], cv


def test_the_dearest_first_in_dollars_and_yuan_alike(tmp_path: Path) -> None:
    """A team renting in dollars and yuan had them compared as bare numbers: ¥10 an hour listed above $3 (about ¥21.6
    at the rate a quote takes, the bundled fallback here). The amounts are still said in their own currencies."""
    with driving("wecom", tmp_path) as chat:
        chat.h.clock.now = datetime(2026, 12, 7, 2, tzinfo=UTC)  # type: ignore[attr-defined]
        chat.command("track c1 gpu=A100 price=10/h started=12月6日9点")
        chat.command("track u1 gpu=A100 price=$3/h started=12月6日9点")
        chat.command("track c2 gpu=4090 price=25/h started=12月6日9点")  # ¥25 an hour: above $3 still
        said = chat.command("list dearest")
        assert [line.split("**")[1] for line in said.splitlines()[1:]] == ["c2", "u1", "c1"], said
        assert "$3/小时" in said and "¥10/小时" in said
