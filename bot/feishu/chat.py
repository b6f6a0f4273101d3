"""The chat port on Feishu/Lark: cards (cards.py) sent with the SDK's IM service (sdk.py). A thread is a reply
with reply_in_thread under the conversation's root message; a line for one person is a direct message."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.chat.message import Message, plain
from bot.chat.port import Actor, ChatError, Place, Platform, Posted, Say
from bot.chat.send_keys import part_key, send_key
from bot.feishu.cards import cards, one_language, updated
from bot.feishu.sdk import FeishuError, OpenApi
from bot.text import Lang, t
from bot.text.spans import channel_ref, literal

log = logging.getLogger(__name__)

# The bot may not post in that chat (not a member, the chat dissolved, no permission): go to a direct message.
CANNOT_POST = {230002, 230006, 230013, 230017, 232009}
# a card only one member of a group sees ("发送仅特定人可见的消息卡片"; groups only, not topic groups or direct chats)
EPHEMERAL = "/open-apis/ephemeral/v1/send"


class FeishuChat:
    platform = Platform.FEISHU
    # posted again with the same key (its uuid), a message is the same message: a redo never waits
    settles_in: timedelta | None = None

    def __init__(self, api: OpenApi, default_lang: Lang) -> None:
        self.api, self.default_lang = api, default_lang

    def send(self, receive_type: str, receive_id: str, content: dict[str, object], uuid: str | None = None) -> str:
        """A card to a chat (`chat_id`), a user (`open_id`) or an address (`email`); its message id. `uuid`:
        Feishu sends one message for all sends with the same uuid within an hour (its idempotency key)."""
        return self.send_into(receive_type, receive_id, content, uuid)[0]

    def send_into(
        self, receive_type: str, receive_id: str, content: dict[str, object], uuid: str | None = None
    ) -> tuple[str, str]:
        """As send(): the message id and the chat it went into (a user's direct chat, for an open_id)."""
        im = self.api.sdk.im
        body = (
            im.CreateMessageRequestBody.builder()
            .receive_id(receive_id)
            .msg_type("interactive")
            .content(json.dumps(content, ensure_ascii=False))
        )
        if uuid:
            body = body.uuid(uuid)
        request = im.CreateMessageRequest.builder().receive_id_type(receive_type).request_body(body.build()).build()
        data = self.api.call("messages.create", lambda: self.api.im.message.create(request))
        return str(data.message_id), str(data.chat_id or receive_id)

    def reply(self, root: str, content: dict[str, object], uuid: str | None = None) -> str:
        im = self.api.sdk.im
        body = (
            im.ReplyMessageRequestBody.builder()
            .msg_type("interactive")
            .content(json.dumps(content, ensure_ascii=False))
            .reply_in_thread(True)
        )
        if uuid:
            body = body.uuid(uuid)
        request = im.ReplyMessageRequest.builder().message_id(root).request_body(body.build()).build()
        data = self.api.call("messages.reply", lambda: self.api.im.message.reply(request))
        return str(data.message_id)

    def post(
        self, place: Place, say: Say, lang: Lang, *, fallback_user: str | None = None, key: str | None = None
    ) -> Posted:
        contents = cards(say, lang)  # one, or a long message's parts in turn
        key = key or send_key()  # a send retried after an answer lost (a 502) is one message, not two
        try:
            if place.thread:
                sent = [self.reply(place.thread, content, part_key(key, n)) for n, content in enumerate(contents)]
                return Posted(place, sent[0])
            # a chat (oc_…), or a person (ou_…): then their direct chat with the bot, which the answer names
            kind = "open_id" if place.channel.startswith("ou_") else "chat_id"
            made = [
                self.send_into(kind, place.channel, content, part_key(key, n)) for n, content in enumerate(contents)
            ]
            return Posted(Place(place.platform, place.team, made[0][1], made[0][0]), made[0][0])
        except FeishuError as exc:
            if fallback_user is None or exc.code not in CANNOT_POST:
                raise ChatError(str(exc.code), cannot_post=exc.code in CANNOT_POST) from exc
            log.info("cannot post in %s (code %s); continuing in a direct message", place.channel, exc.code)
            note = t("slack.dm_fallback", lang, channel=channel_ref(place.channel), error=literal(exc.msg or exc.code))

            def moved(each: Lang) -> Message:
                message = say(each)
                return replace(message, context=(*message.context, note))

            moved_key = send_key()
            sent = [
                self.send("open_id", fallback_user, content, part_key(moved_key, n))
                for n, content in enumerate(cards(moved, lang))
            ]
            return Posted(Place(self.platform, place.team, fallback_user, sent[0]), sent[0], str(exc.code))

    def find(self, place: Place, key: str) -> Posted | None:
        """None: Feishu is not asked; a post with the same key is its uuid, and Feishu sends one message for the
        sends of one uuid within an hour, answering each with that message."""
        return None

    def update(self, posted: Posted, say: Say, lang: Lang) -> None:
        """The card replaced with what `say` says now; where that is more than one card takes (a long digest
        answered), the part this card is: the first's title, answer's line and dearest items, or the answer's line
        and the items of a later part (cards.updated)."""
        self.update_card(posted, updated(say, lang, posted.part))

    def update_card(self, posted: Posted, content: dict[str, object]) -> None:
        """Replace a card the bot sent with `content`."""
        im = self.api.sdk.im
        body = im.PatchMessageRequestBody.builder().content(json.dumps(content, ensure_ascii=False)).build()
        request = im.PatchMessageRequest.builder().message_id(posted.id).request_body(body).build()
        try:
            self.api.call("messages.patch", lambda: self.api.im.message.patch(request))
        except FeishuError as exc:
            raise ChatError(str(exc.code)) from exc

    def tell(self, place: Place, user: str, text: str, lang: Lang | None = None) -> None:
        """A line only `user` sees: in a group, a card only they see there (Feishu's ephemeral card, as Slack's
        ephemeral message); where Feishu will not send one (a direct chat, a topic group, the bot not in the
        group), a direct message."""
        lang = lang or self.default_lang
        if place.channel.startswith("oc_"):
            content = one_language(text, lang)
            body = {"chat_id": place.channel, "open_id": user, "msg_type": "interactive", "card": content}
            try:
                self.api.post("ephemeral.send", EPHEMERAL, body)
                return
            except FeishuError as exc:
                log.info("no card only %s sees in %s (code %s): a direct message", user, place.channel, exc.code)
        self.direct(Actor(self.platform, place.team, user), lambda each: plain(text, each), lang)

    def direct(self, actor: Actor, say: Say, lang: Lang, *, key: str | None = None) -> Posted:
        key = key or send_key()
        try:
            sent = [
                self.send("open_id", actor.user, content, part_key(key, n))
                for n, content in enumerate(cards(say, lang))
            ]
        except FeishuError as exc:
            raise ChatError(str(exc.code)) from exc
        return Posted(Place(self.platform, actor.team, actor.user, sent[0]), sent[0])

    def user(self, open_id: str) -> Any:
        """A user as the contact API has them (email, time_zone, is_tenant_manager); None when it will not say
        (the app lacks the contact scope, or the user left): then nobody is taken for an admin."""
        contact = self.api.sdk.contact
        request = contact.GetUserRequest.builder().user_id(open_id).user_id_type("open_id").build()
        try:
            return self.api.call("contact.users.get", lambda: self.api.contact.user.get(request)).user
        except FeishuError as exc:
            log.warning("contact user of %s not read (code %s): treated as no admin, no zone", open_id, exc.code)
            return None

    def is_admin(self, open_id: str, chat_id: str | None) -> bool:
        """A tenant administrator, or the owner or a manager of the chat the command or button came from."""
        found = self.user(open_id)
        if found is not None and found.is_tenant_manager:
            return True
        if not chat_id:
            return False
        request = self.api.sdk.im.GetChatRequest.builder().chat_id(chat_id).user_id_type("open_id").build()
        try:
            chat = self.api.call("chats.get", lambda: self.api.im.chat.get(request))
        except FeishuError as exc:
            log.warning("chat %s not read (code %s): its owner and managers unknown", chat_id, exc.code)
            return False
        return open_id == chat.owner_id or open_id in (chat.user_manager_id_list or [])

    def find_by_email(self, email: str) -> str | None:
        """The open_id of the tenant's user with this address (contact batch_get_id), None when there is none or
        the app may not look (contact:user.id:readonly)."""
        contact = self.api.sdk.contact
        body = contact.BatchGetIdUserRequestBody.builder().emails([email]).build()
        request = contact.BatchGetIdUserRequest.builder().user_id_type("open_id").request_body(body).build()
        try:
            found = self.api.call("contact.users.batch_get_id", lambda: self.api.contact.user.batch_get_id(request))
        except FeishuError as exc:
            log.info("no Feishu user found for an owner tag's address (code %s)", exc.code)
            return None
        return next((str(u.user_id) for u in (found.user_list or []) if u.user_id and u.email == email), None)

    def user_zone(self, open_id: str) -> str | None:
        found = self.user(open_id)
        return str(found.time_zone) if found is not None and found.time_zone else None

    def direct_chat(self, actor: Actor) -> str:
        """The person's open_id: a message to it goes into their direct chat with the bot (which the answer names)."""
        return actor.user

    def user_lang(self, actor: Actor) -> Lang:
        """Feishu does not tell a bot a user's language: the default (cards show each reader's own anyway)."""
        return self.default_lang
