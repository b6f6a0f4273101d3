"""Migration 0021: a Feishu chat's, person's and message's ids (35 characters) fit where Slack's did, on SQLite
and PostgreSQL; a Slack row from before is read back unchanged, also after going down to 0020 and up again."""

from __future__ import annotations

from sqlalchemy import inspect

from bot.state import Conversations, Store
from bot.state.migrate import downgrade, upgrade

FEISHU_CHAT, FEISHU_USER, FEISHU_MESSAGE = ("oc_" + "a" * 32, "ou_" + "b" * 32, "om_" + "c" * 32)


def test_feishu_ids_are_kept_whole(db_target: str) -> None:
    conversations = Conversations(Store(db_target))
    made = conversations.create(team="feishu:2ed263bf32cf1651", channel=FEISHU_CHAT, user=FEISHU_USER, lang="zh")
    made.thread_ts, made.question_ts = FEISHU_MESSAGE, FEISHU_MESSAGE
    conversations.save(made)
    found = conversations.by_thread("feishu:2ed263bf32cf1651", FEISHU_CHAT, FEISHU_MESSAGE)
    assert found is not None and (found.channel, found.user, found.question_ts) == (
        FEISHU_CHAT,
        FEISHU_USER,
        FEISHU_MESSAGE,
    )


def test_down_to_0020_and_up_again_keeps_a_slack_row(db_target: str) -> None:
    store = Store(db_target)
    made = Conversations(store).create(team="T1", channel="C1", user="U1", lang="en")
    with store.engine.begin() as conn:
        downgrade(conn, "0020")
        assert _width(conn, "channel") == 32
        upgrade(conn)
        assert _width(conn, "channel") == 64
    found = Conversations(Store(db_target)).get(made.id)
    assert found is not None and (found.team, found.channel, found.user) == ("T1", "C1", "U1")


def _width(conn: object, column: str) -> int:
    found = {c["name"]: c["type"] for c in inspect(conn).get_columns("advisor_conversations")}
    return int(found[column].length)
