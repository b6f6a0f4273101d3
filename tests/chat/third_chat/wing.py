"""A minimal chat ("memo") over an in-memory fake: the port (bot/chat/port.py: Chat, Teller), the digest's Outlet,
a wing for the runtime (bot/server/chats.py), and how a typed message and a button press reach the core's two
tables (bot/app/table.py, bot/app/buttons.py). Its one registration line is `register_chat` below; nothing
outside this folder knows it."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import ClassVar
from zoneinfo import ZoneInfo

from bot.app import table
from bot.app.buttons import Done, Press, handler_for
from bot.app.invocation import Form, Invocation
from bot.chat.digest_messages import digest_message
from bot.chat.message import Message, plain
from bot.chat.port import Actor, Place, Posted, Say, register_chat
from bot.deps import Deps
from bot.state import Conversation
from bot.text import Lang, t
from rules.digest import Digest

MEMO = register_chat("memo", "memo:")  # the one registration line


@dataclass
class Sent:
    id: str
    chat: str
    thread: str | None
    message: Message


@dataclass
class MemoChat:
    """Every message kept in a list, by id; a thread is a message's id; a private line goes to a user's list."""

    platform = MEMO
    settles_in: timedelta | None = None  # a list: what is sent is there at once
    sent: list[Sent] = field(default_factory=list)
    private: dict[str, list[str]] = field(default_factory=dict)
    forms: list[tuple[Form, dict[str, str]]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def post(
        self, place: Place, say: Say, lang: Lang, *, fallback_user: str | None = None, key: str | None = None
    ) -> Posted:
        made = Sent(f"m{next(self._ids)}", place.channel, place.thread, say(lang))
        self.sent.append(made)
        return Posted(Place(MEMO, place.team, place.channel, place.thread), made.id)

    def find(self, place: Place, key: str) -> Posted | None:
        return None

    def update(self, posted: Posted, say: Say, lang: Lang) -> None:
        for made in self.sent:
            if made.id == posted.id:
                made.message = say(lang)

    def tell(self, place: Place, user: str, text: str) -> None:
        self.private.setdefault(user, []).append(text)

    def direct(self, actor: Actor, say: Say, lang: Lang, *, key: str | None = None) -> Posted:
        self.private.setdefault(actor.user, []).append(say(lang).text)
        return Posted(Place(MEMO, actor.team, actor.user), f"d{next(self._ids)}")

    def user_lang(self, actor: Actor) -> Lang:
        return Lang.EN

    def direct_chat(self, actor: Actor) -> str:
        return actor.user

    def in_thread(self, thread: str) -> list[Message]:
        return [made.message for made in self.sent if made.thread == thread]


@dataclass
class MemoOutlet:
    chat: MemoChat
    pace_s: float | None = None

    def compose(self, digest: Digest | None, lang: Lang, zone: ZoneInfo) -> object:
        return digest_message(digest, lang, zone) if digest is not None else plain(t("digest.all_clear", lang), lang)

    def post(self, channel: str, composed: object, day: date) -> str:
        assert isinstance(composed, Message)
        return self.chat.post(Place(MEMO, "", channel), lambda _: composed, composed.lang).id

    def posted_before(self, channel: str, day: date, zone: ZoneInfo) -> str | None:
        return None


@dataclass
class MemoTeller:
    chat: MemoChat
    takes_files: ClassVar[bool] = True  # taken, and kept nowhere

    def say(self, channel: str, text: str, *, thread: str | None = None, link_previews: bool = True) -> str:
        return self.chat.post(Place(MEMO, "", channel, thread), lambda each: plain(text, each), Lang.EN).id

    def direct(self, user: str, text: str) -> None:
        self.chat.private.setdefault(user, []).append(text)

    def upload(self, channel: str, thread: str, name: str, data: bytes, title: str) -> str | None:
        return None

    def note_item(self, channel: str, message_id: str, name: str, text: str, *, keep_item: bool) -> bool:
        return False

    def lang_of(self, user: str) -> Lang:
        return Lang.EN


@dataclass
class MemoWing:
    chat: MemoChat
    name: str = "memo"

    def owns(self, tenant: str) -> bool:
        return tenant.startswith("memo:")

    def outlet(self, tenant: str) -> MemoOutlet:
        return MemoOutlet(self.chat)

    def teller(self, tenant: str) -> MemoTeller:
        return MemoTeller(self.chat)

    def person(self, tenant: str, email: str) -> str | None:
        return None

    def display_name(self, tenant: str, user: str) -> str | None:
        return None


def typed(deps: Deps, chat: MemoChat, tenant: str, channel: str, user: str, text: str) -> None:
    """A message to the bot: the core's table runs it; its answers are said in the chat."""
    here = Place(MEMO, tenant, channel)
    inv = Invocation(
        deps,
        team=tenant,
        channel=channel,
        user=user,
        lang=Lang.EN,
        answer=lambda message: chat.post(here, lambda _: message, Lang.EN),
        post=lambda message: chat.post(here, lambda _: message, Lang.EN),
        is_admin=lambda: False,
        zone=lambda: None,
        chat=chat,
        announce=lambda message: chat.post(here, lambda _: message, Lang.EN),
        privately=lambda message: chat.direct(Actor(MEMO, tenant, user), lambda _: message, Lang.EN),
        teller=lambda: MemoTeller(chat),
        open_form=lambda kind, initial: chat.forms.append((kind, initial)),
        help_text=lambda lang: "memo help",
        channel_name="this memo",
    )
    table.run(inv, text)


def pressed(deps: Deps, chat: MemoChat, tenant: str, channel: str, user: str, action: str, value: str) -> list[str]:
    """A button press: the core's table answers it; the refusals said to the presser (none: it was done)."""
    refusals: list[str] = []

    def show_done(kind: str, name: str, done: Done) -> None:
        chat.post(Place(MEMO, tenant, channel), lambda each: plain(done.line(each), each), Lang.EN)

    def open_form(kind: Form, initial: dict[str, str], convo: Conversation | None) -> None:
        chat.forms.append((kind, initial))

    handler = handler_for(action)
    assert handler is not None, action
    handler(
        Press(
            deps,
            chat,
            team=tenant,
            channel=channel,
            user=user,
            action=action,
            value=value,
            lang=Lang.EN,
            posted_in=Lang.EN,
            message_id=None,
            is_admin=lambda: False,
            is_member=lambda: True,
            open_form=open_form,
            refuse=lambda refusal: refusals.append(refusal.said(Lang.EN)),
            show_done=show_done,
        )
    )
    return refusals
