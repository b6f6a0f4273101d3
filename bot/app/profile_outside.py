"""A reply to a profile's question typed outside its thread. Feishu and Slack thread a profile under its first
message, and a person in a direct chat often types below the last message instead: `每天都跑` was "not understood"
while the question it answers waited in the thread. When nothing else reads a message and it answers the open
question of the profile its person has open in that chat (in its first clause, the rest answering later ones), or
questions it still asks further on (kept for them, bot/chat/conversation.py), it is taken as if typed in the thread,
where the profile goes on. Chats without threads (DingTalk, WeCom) give such a
message to the open profile before anything else (bot/app/threadless.py)."""

from __future__ import annotations

import contextlib

from bot.app.invocation import Invocation
from bot.app.thread import ThreadMessage, on_thread_message
from bot.chat import conversation
from bot.state import Conversation
from rules.answers import answer_in_context
from rules.clauses import answers_in, asks, clauses
from rules.errors import ParseError
from rules.questions import skips, steps


def took_outside(inv: Invocation, text: str) -> bool:
    """Whether `text` answered the profile `inv`'s person has open in its chat (and was taken there)."""
    convo = inv.deps.conversations.open_for(inv.team, inv.channel, inv.user)
    if convo is None or not convo.thread_ts or not _answers(convo, text):
        return False
    message = ThreadMessage(inv.team, inv.channel, convo.thread_ts, inv.user, text, None, inv.request_key)
    return on_thread_message(inv.deps, inv.chat, inv.teller(), message)


def _answers(convo: Conversation, text: str) -> bool:
    step = conversation.current(convo)
    if step is None:
        return False
    if not step.required and skips(text):
        return True
    first = clauses(text)[:1] or [text]  # `每天都跑，能中断`: the open question's answer first, the rest after it
    for said in dict.fromkeys((text, first[0])):
        with contextlib.suppress(ParseError):
            answer_in_context(step.ask.key, said, convo.values)
            return True
    if asks(text):  # `4090一天多少钱`: a question the table answers, not a later question's answer
        return False
    asked = {s.ask.key for s in steps(conversation.parsed(convo))} - set(convo.answers) - {step.ask.key}
    return bool(asked & set(answers_in(text, convo.values, skip=frozenset(convo.answers))))
