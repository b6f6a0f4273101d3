"""`actions` in chat: what was warned, stopped, called off or refused, as the terminal's `gpu-advise actions` has it.
Chat had no way to see a stop once its message scrolled away (nor the board)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.chat.test_both_platforms import driving


def test_actions_says_each_warning_and_what_became_of_it_newest_first(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        assert "还没有警告或停掉过任何实例" in chat.command("actions")
        for name in ("idle-a", "idle-b", "idle-c", "idle-d"):
            chat.command(f"track {name} gpu=A100 price=14/h")
        rentals, actions = Rentals(chat.deps.store), Actions(chat.deps.store)
        team = next(iter(rentals.teams()))
        now = chat.deps.now()
        made = {}
        for n, name in enumerate(("idle-a", "idle-b", "idle-c", "idle-d")):
            inst = rentals.instance(team, name)
            assert inst is not None
            warned = actions.warn(
                team, inst.id, inst.channel, now + timedelta(minutes=n), now + timedelta(hours=4), None
            )
            assert warned is not None
            made[name] = warned.id
        later = now + timedelta(hours=5)
        assert actions.move(made["idle-b"], "warned", "stopped", later)
        assert actions.move(made["idle-c"], "warned", "cancelled", later, detail="still_needed")
        assert actions.move(
            made["idle-d"], "warned", "failed", later, detail="QuotaExceeded", figures={"refused": True}
        )
        said = chat.command("停机记录")  # its Chinese name
        lines = [line for line in said.split("\\n") if "idle-" in line]
        assert len(lines) == 4, said
        assert "idle-a" in said and "已警告；若仍闲置，将于" in said
        assert (
            "已停机，不再计费" in said
            and "已取消：有人点了“还在用”" in said
            and "云平台拒绝停机：QuotaExceeded" in said
        )
        assert said.index("idle-d") < said.index("idle-a")  # newest first
        one = chat.command("停机记录 idle-c")  # one instance's: the whole team's were listed
        assert "idle-c 的停机警告、安排、执行与取消，最近 1 条" in one and "已取消" in one, one
        assert "idle-a" not in one and "idle-d" not in one
        chat.command("track idle-e gpu=A100 price=14/h")
        assert "还没有对 idle-e 发过警告或停过机" in chat.command("actions idle-e")
        unknown = chat.command("actions IDLE-B")
        assert "没有名为“IDLE-B”的实例" in unknown and "idle-b" in unknown, unknown  # did you mean
        assert "`actions 名称`" in chat.command("actions idle-a idle-b")
