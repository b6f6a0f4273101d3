"""The chat port on DingTalk: every message is a card (cards.py) created and delivered with the OpenAPI
(openapi.py) into a group conversation (its conversationId, cid…) or a person's chat with the robot (dm-<userId>).
DingTalk robots have no threads: a message "in a thread" goes into the conversation, and a profile is found by its
conversation and its person (events.py). A card's id (its outTrackId) is made from the work it belongs to and its
place in it, so a redo of the work delivers the same card, not a second one."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from bot.chat.message import plain
from bot.chat.pacer import Pacer
from bot.chat.port import Actor, ChatError, Place, Posted, Say
from bot.chat.send_keys import send_key
from bot.dingtalk import DINGTALK, DIRECT
from bot.dingtalk.cards import TEMPLATE, card
from bot.dingtalk.openapi import DingTalkError, OpenApi
from bot.text import Lang

log = logging.getLogger(__name__)
PER_MINUTE = 20  # DingTalk's limit for a robot's messages to one group a minute ("每分钟最多发送20条")
GROUP_OWNER_KEPT_S = 600.0  # a group's owner, as DingTalk said it, is asked again after this long


def space_of(channel: str) -> str:
    """Where a card is delivered: a group conversation, or a person's chat with the robot."""
    if channel.startswith(DIRECT):
        return f"dtv1.card//IM_ROBOT.{channel.removeprefix(DIRECT)}"
    return f"dtv1.card//IM_GROUP.{channel}"


class DingTalkChat:
    platform = DINGTALK
    settles_in: timedelta | None = None  # a card posted again with the same outTrackId is the same card

    def __init__(self, api: OpenApi, default_lang: Lang, pacer: Pacer | None = None) -> None:
        self.api, self.default_lang = api, default_lang
        self.pacer = pacer or Pacer(PER_MINUTE, None, "DingTalk")
        self.nicks: dict[str, str] = {}  # userId -> the name DingTalk showed with their last message
        # (organisation, userId) DingTalk said is an admin of the organisation (a message's isAdmin)
        self.admins: set[tuple[str, str]] = set()
        self.owners: dict[str, tuple[str, float]] = {}  # a group -> its owner's userId, and when DingTalk said so
        self._answering = threading.local()  # the press this thread answers: its card, and what it now shows

    def name_of(self, user: str) -> str:
        return self.nicks.get(user, user)

    def send(self, channel: str, params: dict[str, str], key: str | None = None) -> str:
        out_track = key or send_key()
        self.pacer.take(channel)
        try:
            self.api.deliver_card(out_track, space_of(channel), params, TEMPLATE)
        except DingTalkError as exc:
            raise ChatError(exc.code, cannot_post=exc.code == "not_delivered") from exc
        return out_track

    def post(
        self, place: Place, say: Say, lang: Lang, *, fallback_user: str | None = None, key: str | None = None
    ) -> Posted:
        params = card(say, lang, self.name_of)
        try:
            sent = self.send(place.channel, params, key)
        except ChatError as exc:
            if fallback_user is None or not exc.cannot_post:
                raise
            log.info("cannot post in %s (%s); continuing in a direct message", place.channel, exc.code)
            sent = self.send(DIRECT + fallback_user, params)
            return Posted(Place(self.platform, place.team, DIRECT + fallback_user, sent), sent, exc.code)
        return Posted(Place(self.platform, place.team, place.channel, place.thread or sent), sent)

    @contextmanager
    def answering(self, card: str) -> Iterator[dict[str, str]]:
        """While a press on `card` is answered on this thread: what the card is updated to show, for the press's
        acknowledgement (empty when it did not change)."""
        shown: dict[str, str] = {}
        self._answering.press = (card, shown)
        try:
            yield shown
        finally:
            self._answering.press = None

    def find(self, place: Place, key: str) -> Posted | None:
        return None  # a card delivered again with the same outTrackId is the same card

    def update(self, posted: Posted, say: Say, lang: Lang) -> None:
        params = card(say, lang, self.name_of)
        try:
            self.api.update_card(posted.id, params)
            answering = getattr(self._answering, "press", None)
            if answering is not None and answering[0] == posted.id:
                answering[1].update(params)  # the press's acknowledgement carries the card as it now is
        except DingTalkError as exc:
            raise ChatError(exc.code) from exc

    def tell(self, place: Place, user: str, text: str) -> None:
        self.direct(Actor(self.platform, place.team, user), lambda each: plain(text, each), self.default_lang)

    def direct(self, actor: Actor, say: Say, lang: Lang, *, key: str | None = None) -> Posted:
        sent = self.send(DIRECT + actor.user, card(say, lang, self.name_of), key)
        return Posted(Place(self.platform, actor.team, DIRECT + actor.user, sent), sent)

    def user_lang(self, actor: Actor) -> Lang:
        """DingTalk tells a robot no user's language: the default (a typed command's is read from its words)."""
        return self.default_lang

    def direct_chat(self, actor: Actor) -> str:
        return DIRECT + actor.user

    def is_admin(self, team: str, user: str, channel: str) -> bool:
        """An admin of the organisation (DingTalk said so with a message of theirs), or the owner of the group the
        press or command came from (asked of DingTalk once, then kept for GROUP_OWNER_KEPT_S)."""
        if (team, user) in self.admins:
            return True
        if channel.startswith(DIRECT):
            return False
        owner, asked = self.owners.get(channel, ("", -GROUP_OWNER_KEPT_S))
        if time.monotonic() - asked >= GROUP_OWNER_KEPT_S:
            owner = self.api.group_owner(channel) or ""
            self.owners[channel] = (owner, time.monotonic())
        return bool(owner) and owner == user

    def find_user(self, word: str) -> str | None:
        """The userId of the one person the contacts find for an address or a mobile number; None when none or
        several are found, or the app may not search (Contact.User.Read)."""
        try:
            found = self.api.search_users(word)
        except DingTalkError as exc:
            log.info("no DingTalk user found for an owner tag (%s)", exc.code)
            return None
        return found[0] if len(found) == 1 else None
