"""`act`'s grace said without its key (`act 提醒 宽限4小时`, `act notify 2h`) was refused asking for key=value."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.state.actions import Actions
from tests.chat.test_both_platforms import driving


def test_a_grace_said_without_its_key_is_kept(tmp_path: Path) -> None:
    with driving("slack", tmp_path) as chat:
        actions = Actions(chat.deps.store)
        for typed, hours in [("act notify 2h", 2), ("act 提醒 宽限4小时", 4), ("act notify grace 3h", 3),
                             ("act 提醒 两小时", 2)]:  # fmt: skip
            chat.command(typed)
            assert actions.policy("T1", "C1").grace == timedelta(hours=hours), typed
        chat.command("act notify 宽限 半小时 项目=llm")
        assert actions.policy("T1", "C1", "llm").grace == timedelta(minutes=30)
        assert "'soon'" in chat.command("act notify soon")
        assert actions.policy("T1", "C1").grace == timedelta(hours=2)
