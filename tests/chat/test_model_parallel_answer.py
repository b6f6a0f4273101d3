"""Issue 33.1.1 in a conversation: "需要，8卡" typed in the thread is kept with its count, across a reload from
the state database, and a new answer to the same question replaces the count it named."""

from __future__ import annotations

from pathlib import Path

from bot.chat.conversation import current, parsed, record
from bot.state import Conversations, Store
from tests.support.state_template import migrated_state_db


def test_the_count_a_yes_names_is_kept_and_replaced(tmp_path: Path) -> None:
    store = Store(migrated_state_db(tmp_path / "state.db"))
    conversations = Conversations(store)
    convo = conversations.create(team="T1", channel="C1", user="U1", lang="zh")
    answers = {"workload": "lora", "duration": "10h", "memory": "70/80"}
    while (step := current(convo)) is not None and step.ask.key != "model_parallel":
        record(convo, step, answers.get(step.ask.key))
    assert step is not None and step.ask.key == "model_parallel"
    record(convo, step, "需要，8卡")
    conversations.save(convo)
    again = conversations.get(convo.id)
    assert again is not None
    values = parsed(again)
    assert (values["model_parallel"], values["model_parallel_cards"]) == (True, 8)
    record(again, step, "不需要")
    assert "model_parallel_cards" not in parsed(again) and parsed(again)["model_parallel"] is False
