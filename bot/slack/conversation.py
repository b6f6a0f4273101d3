"""The profiling conversation in Slack: the flow of bot/chat/conversation.py, with Slack's client as the chat.
The listeners call these with their WebClient; the answers' bookkeeping is the neutral module's."""

from __future__ import annotations

from typing import Any

from slack_sdk import WebClient

from bot.chat import conversation as flow
from bot.chat.conversation import SKIP_WORDS, current, parsed, prefill, recommend, record, set_answers
from bot.deps import Deps
from bot.slack.chat import SlackChat
from bot.state import Conversation
from bot.text import Lang

__all__ = ["SKIP_WORDS", "current", "parsed", "prefill", "recommend", "record", "set_answers"]


def start(deps: Deps, client: WebClient, *, team: str, channel: str, user: str, lang: Lang) -> Conversation:
    return flow.start(deps, SlackChat(client, deps), team=team, channel=channel, user=user, lang=lang)


def admit(deps: Deps, client: WebClient, convo: Conversation, channel: str, user: str) -> bool:
    return flow.admit(deps, SlackChat(client, deps), convo, channel, user)


def ask_next(deps: Deps, client: WebClient, convo: Conversation) -> None:
    flow.ask_next(deps, SlackChat(client, deps), convo)


def take_answer(
    deps: Deps,
    client: WebClient,
    convo: Conversation,
    key: str,
    text: str | None,
    user: str,
    input_key: str | None = None,
    value: Any = None,
) -> None:
    flow.take_answer(deps, SlackChat(client, deps), convo, key, text, user, input_key, value)


def typed_answer(
    deps: Deps, client: WebClient, convo: Conversation, text: str, user: str, input_key: str | None = None
) -> None:
    flow.typed_answer(deps, SlackChat(client, deps), convo, text, user, input_key)


def finish(deps: Deps, client: WebClient, convo: Conversation) -> None:
    flow.finish(deps, SlackChat(client, deps), convo)
