"""The chat port on WeCom: an answer to a message replies to it with its first message (aibot_respond_msg, the
SDK's reply), and every other message is sent unasked over the long connection (aibot_send_msg) to a group chat
(its chatid) or a person (their userid), a card when it has buttons. A card changes only in answer to a click on it
(WeCom's update_template_card takes the click's frame, within 5 s): `update` does so while that click is being
answered (a redo past the 5 s sends the new version anew); a card no click is on stays as it was. Robots have no
threads: a message "in a thread" goes into the conversation, and a profile is found by its conversation and its
person (events.py).

WeCom drops silently what passes its limits for one member (30 messages a minute, 1,000 an hour): the sender
paces itself under them, waiting within the minute and refusing past the hour, and says so in the log."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.chat.message import Message, plain
from bot.chat.pacer import Pacer
from bot.chat.parting import parted
from bot.chat.port import Actor, ChatError, Place, Posted, Say
from bot.chat.send_keys import part_key, send_key
from bot.text import Lang
from bot.wecom import WECOM
from bot.wecom.cards import body_of, fits, template_card
from bot.wecom.connection import WeComConnection, WeComRefused

log = logging.getLogger(__name__)
PER_MINUTE, PER_HOUR = 30, 1000  # WeCom's limits for a robot's messages to one member or chat
SHOWN_KEPT = 2000  # cards whose text a refusal can be shown on


class WeComChat:
    platform = WECOM
    settles_in: timedelta | None = None

    def __init__(self, connection: WeComConnection, default_lang: Lang, link: str, pacer: Pacer | None = None):
        self.connection, self.default_lang, self.link = connection, default_lang, link
        self.pacer = pacer or Pacer(PER_MINUTE, PER_HOUR, "WeCom")
        self._answering = threading.local()  # the clicks this thread answers: a card's task_id -> the click's frame
        self.shown: dict[str, Message] = {}  # a card's task_id -> what it shows (a refusal is shown on it)

    def send(self, chat: str, message: Message, key: str | None = None) -> str:
        """`message` into `chat` (a reply to the message this thread answers, if any); markdown longer than WeCom
        takes goes in parts (bot/chat/parting.py), each a message of its own. Its key: the first part's."""
        made = key or send_key()
        for number, part in enumerate(parted(message, fits)):
            self._send_one(chat, part, part_key(made, number))
        return made

    def _send_one(self, chat: str, message: Message, made: str) -> None:
        self.pacer.take(chat)
        body = body_of(message, made, self.link)
        asked = self._answering.__dict__.pop("message", None)  # the message this thread answers, if unanswered yet
        if asked is not None and asked[0] == chat:
            try:
                self.connection.reply(asked[1], body)  # the answer's first message replies to it (the SDK's reply)
                self.keep_shown(made, message)
                return
            except WeComRefused as exc:  # past the reply's window, or refused: sent unasked instead
                log.info("the reply to a message was refused (%s): sent unasked", exc.code)
        try:
            self.connection.send(chat, body)
        except WeComRefused as exc:
            raise ChatError(exc.code, cannot_post=exc.code in ("60011", "600040", "93006")) from exc
        self.keep_shown(made, message)

    @contextmanager
    def answering(self, card: str, frame: dict[str, Any]) -> Iterator[None]:
        """While a click on `card` is answered on this thread, an update of that card answers the click (two
        clicks on one card at once each answer their own)."""
        clicks: dict[str, dict[str, Any]] = self._answering.__dict__.setdefault("clicks", {})
        clicks[card] = frame
        try:
            yield
        finally:
            clicks.pop(card, None)

    @contextmanager
    def replying(self, chat: str, frame: dict[str, Any]) -> Iterator[None]:
        """While a message to the robot is answered on this thread, the answer's first message in that chat is a
        reply to it; the rest are sent unasked."""
        self._answering.message = (chat, frame)
        try:
            yield
        finally:
            self._answering.__dict__.pop("message", None)

    def click_on(self, card: str) -> dict[str, Any] | None:
        return getattr(self._answering, "clicks", {}).get(card)

    def keep_shown(self, card: str, message: Message) -> None:
        self.shown[card] = message
        while len(self.shown) > SHOWN_KEPT:  # the oldest cards' clicks are answered without their text
            del self.shown[next(iter(self.shown))]

    def post(
        self, place: Place, say: Say, lang: Lang, *, fallback_user: str | None = None, key: str | None = None
    ) -> Posted:
        message = say(lang)
        try:
            sent = self.send(place.channel, message, key)
        except ChatError as exc:
            if fallback_user is None or not exc.cannot_post:
                raise
            sent = self.send(fallback_user, message)
            return Posted(Place(self.platform, place.team, fallback_user, sent), sent, exc.code)
        return Posted(Place(self.platform, place.team, place.channel, place.thread or sent), sent)

    def find(self, place: Place, key: str) -> Posted | None:
        return None  # the work's key makes the same task_id; WeCom keeps no sent message to look up

    def update(self, posted: Posted, say: Say, lang: Lang) -> None:
        frame = self.click_on(posted.id)
        if frame is None:  # WeCom changes a card only in answer to a click on it: what follows says the rest
            log.debug("card %s not changed: no click on it is being answered", posted.id)
            return
        message = say(lang)
        try:
            self.connection.update_card(frame, template_card(message, posted.id, self.link))
            self.keep_shown(posted.id, message)
        except WeComRefused as exc:  # the click's 5 s passed (a redo after a stop): the new version, sent anew
            log.info("card %s not updated (%s): sent again", posted.id, exc.code)
            self.send(posted.place.channel, message)

    def refuse(self, card: str, user: str, text: str) -> None:
        """`text` to the presser alone: on the clicked card, shown to them only, while the click is answered; else
        in their chat with the robot."""
        frame, shown = self.click_on(card), self.shown.get(card)
        if frame is not None and shown is not None:
            noted = replace(shown, context=(text, *shown.context))
            try:
                self.connection.update_card(frame, template_card(noted, card, self.link), [user])
                return
            except WeComRefused as exc:
                log.info("refusal not shown on card %s (%s): sent to the presser", card, exc.code)
        self.send(user, plain(text, self.default_lang))

    def tell(self, place: Place, user: str, text: str) -> None:
        self.send(user, plain(text, self.default_lang))

    def direct(self, actor: Actor, say: Say, lang: Lang, *, key: str | None = None) -> Posted:
        sent = self.send(actor.user, say(lang), key)
        return Posted(Place(self.platform, actor.team, actor.user, sent), sent)

    def user_lang(self, actor: Actor) -> Lang:
        """WeCom tells a robot no user's language: the default (a typed command's is read from its words)."""
        return self.default_lang

    def direct_chat(self, actor: Actor) -> str:
        return actor.user
