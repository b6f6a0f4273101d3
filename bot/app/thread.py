"""A message in a profile's thread, the same on every chat: the starter's reply answers the open question (a file
they send is a capture, read as one); anyone else's is left alone, and the starter is told once that someone else
replied (their answer is still theirs to give)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.app.capture import SentFile, on_upload
from bot.chat import conversation
from bot.chat.port import Chat, Place, Teller
from bot.deps import Deps
from bot.text import Lang, t
from bot.text.spans import mention


@dataclass(frozen=True)
class ThreadMessage:
    team: str
    channel: str
    thread: str  # the thread's root message
    user: str
    text: str
    file: SentFile | None = None
    request_key: str | None = None


def on_thread_message(deps: Deps, chat: Chat, teller: Teller, message: ThreadMessage) -> bool:
    """Take the message when its thread is a profile's; False when it is not one (the chat may read it as a
    command)."""
    found = deps.conversations.by_thread(message.team, message.channel, message.thread)
    if found is None:
        return False
    with deps.store.lock(found.id):
        convo = deps.conversations.get(found.id) or found
        if message.user != convo.user:
            if not convo.warned_others and convo.status == "active":
                place = Place(chat.platform, message.team, message.channel, message.thread)
                chat.tell(place, convo.user, t("slack.not_yours", Lang(convo.lang), other=mention(message.user)))
                convo.warned_others = True
                deps.conversations.save(convo)
            return True
        if not conversation.admit(deps, chat, convo, message.channel, message.user):
            return True  # said why once: an expired profile's notice is posted once per message
        if message.file is not None:
            on_upload(deps, chat, teller, convo, message.file, message.request_key)
        else:
            conversation.typed_answer(deps, chat, convo, message.text, message.user, message.request_key)
    return True
