"""A bug met on a chat's other ways in than a typed sub-command (a button pressed, an answer to a profile's question):
Feishu, DingTalk and WeCom kept the work to be redone, failing again at each redo for an hour, and the person heard
nothing. Each is now said to them with an error id the log has, and the work is done (the harness waits for it: left
pending, it fails). Injected here into the Released button and the typed answer."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from bot.app import buttons
from bot.chat import conversation
from tests.chat.test_both_platforms import STARTER, Driver, driving, told

CHATS = pytest.mark.parametrize("platform", ["feishu", "dingtalk", "wecom"])


def _said_with_an_id(chat: Driver, before: str, caplog: pytest.LogCaptureFixture) -> None:
    now, error_id = told(chat), r"(?:错误编号|error id) `?([0-9a-f]{8})"  # a WeCom card shows no code spans
    assert len(re.findall(error_id, now)) > len(re.findall(error_id, before)), now
    ref = re.findall(error_id, now)[-1]
    assert any(ref in r.getMessage() and r.exc_info for r in caplog.records)
    assert not chat.deps.inbox.pending(timedelta(days=1))  # type: ignore[attr-defined]


def _bug(*_args: object, **_kwargs: object) -> None:
    raise ValueError("a bug")


@CHATS
def test_a_bug_behind_a_button_is_said_to_the_presser(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(buttons.BUTTONS, "rental_released", _bug)
    with driving(platform, tmp_path) as chat:
        chat.digest()
        before = told(chat)
        chat.press_released(STARTER)  # waits for the work to be done
        _said_with_an_id(chat, before, caplog)
        assert not chat.released()


@CHATS
def test_a_bug_taking_an_answer_is_said_where_it_was_typed(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with driving(platform, tmp_path) as chat:
        chat.start()
        monkeypatch.setattr(conversation, "typed_answer", _bug)
        before = told(chat)
        chat.reply("about 10 hours")
        _said_with_an_id(chat, before, caplog)
        assert "unknown sub-command" not in told(chat)  # nor read as one after the bug ('about')
