"""What each Feishu callback does: a message to the bot (a direct message, or a group message that @mentions it)
is a command, or, in a profile's thread, an answer; a card button is an answer, Skip, Start over, … The text of a
command is what follows /gpu-advise in Slack, with or without a leading /gpu-advise.

`handle` runs after the callback was kept in the inbox and acknowledged; `input_key` (the inbox key) makes a
redo after a crash finish what was started instead of doing it twice, as in Slack."""

from __future__ import annotations

import itertools
import json
import logging
from typing import Any

from bot.app import rentals, table
from bot.app.bug_said import bug_said, taken_or_bug
from bot.app.capture import SentFile
from bot.app.invocation import Invocation
from bot.app.thread import ThreadMessage, on_thread_message
from bot.chat import conversation
from bot.chat.message import plain
from bot.chat.port import FEISHU_PREFIX, Actor, Place
from bot.chat.send_keys import send_key
from bot.deps import Deps
from bot.feishu import forms, press
from bot.feishu.chat import FeishuChat
from bot.feishu.files import fetch
from bot.feishu.teller import FeishuTeller
from bot.text import Lang, t
from bot.text.chinese_names import chinese_names
from bot.text.spans import mention as person_span

log = logging.getLogger(__name__)

MESSAGE, CARD_ACTION = "im.message.receive_v1", "card.action.trigger"
MENU, ADDED = "application.bot.menu_v6", "im.chat.member.bot.added_v1"
# the bot menu's items (their event keys, as set in the developer console: docs/feishu.md)
MENU_NEW_PROFILE, MENU_HELP, MENU_MY_RENTALS = "new_profile", "help", "my_rentals"
COMMAND = "/gpu-advise"


def team_of(payload: dict[str, Any]) -> str:
    """The tenant's id in the state tables: the tenant key behind the Feishu prefix."""
    return FEISHU_PREFIX + str((payload.get("header") or {}).get("tenant_key") or "")


def event_type(payload: dict[str, Any]) -> str:
    return str((payload.get("header") or {}).get("event_type") or "")


def command_text(message: dict[str, Any]) -> str:
    """The typed text, without a leading /gpu-advise: the @mentions before it (the bot's, in a group) dropped, any
    other @mention written as the neutral text writes a person (`track … owner=@someone`: bot/text/spans.py)."""
    try:
        text = str(json.loads(message.get("content") or "{}").get("text") or "")
    except (ValueError, AttributeError):
        return ""
    for mention in message.get("mentions") or []:
        key, person = str(mention.get("key", "")), str((mention.get("id") or {}).get("open_id") or "")
        if not key:
            continue
        leading = text.lstrip().startswith(key)
        text = text.replace(key, " " if leading or not person else person_span(person), 1)
    text = text.strip()
    if text.lower().startswith(COMMAND):
        text = text[len(COMMAND) :]
    return text.strip()


def sent_file(chat: FeishuChat, message: dict[str, Any]) -> SentFile | None:
    """A file message's file (its key and name), fetched from the message-resource API when it is read."""
    if message.get("message_type") != "file":
        return None
    try:
        content = json.loads(message.get("content") or "{}")
    except ValueError:
        return None
    key, message_id = str(content.get("file_key") or ""), str(message.get("message_id") or "")
    if not key or not message_id:
        return None
    name = str(content.get("file_name") or key)
    return SentFile(
        name, lambda max_bytes, deadline_s: fetch(chat.api, message_id, key, name, max_bytes, deadline_s), "feishu"
    )


def handle(deps: Deps, chat: FeishuChat, payload: dict[str, Any], input_key: str | None = None) -> None:
    kind = event_type(payload)
    if kind == MESSAGE:
        on_message(deps, chat, payload, input_key)
    elif kind == CARD_ACTION:
        on_card_action(deps, chat, payload, input_key)
    elif kind == MENU:
        on_menu(deps, chat, payload)
    elif kind == ADDED:
        chat_id = str((payload.get("event") or {}).get("chat_id") or "")
        if chat_id:  # added to a group: say what it does there
            place = Place(chat.platform, team_of(payload), chat_id)
            help_ = invocation(deps, chat, team_of(payload), chat_id, "", "", deps.settings.files.lang).help_text
            chat.post(place, lambda each: plain(help_(each), each), deps.settings.files.lang)


def on_menu(deps: Deps, chat: FeishuChat, payload: dict[str, Any]) -> None:
    """The bot menu: New profile (in the direct chat), Help, My rentals (what the tenant rents, listed)."""
    event = payload.get("event") or {}
    user = str(((event.get("operator") or {}).get("operator_id") or {}).get("open_id") or "")
    key, team, lang = str(event.get("event_key") or ""), team_of(payload), deps.settings.files.lang
    if not user:
        return
    mine = Place(chat.platform, team, user)  # the person's chat with the bot
    with bug_said(lambda said: chat.post(mine, lambda each: plain(said, each), lang), lang, "a menu entry"):
        _menu_entry(deps, chat, key, team, user, lang)


def _menu_entry(deps: Deps, chat: FeishuChat, key: str, team: str, user: str, lang: Lang) -> None:
    if key == MENU_NEW_PROFILE:
        conversation.start(deps, chat, team=team, channel=user, user=user, lang=lang)
    elif key == MENU_HELP:
        help_ = invocation(deps, chat, team, user, user, "", lang).help_text
        chat.post(Place(chat.platform, team, user), lambda each: plain(help_(each), each), lang)
    elif key == MENU_MY_RENTALS:
        rentals.list_items(invocation(deps, chat, team, user, user, "", lang))  # in the direct chat


def invocation(
    deps: Deps,
    chat: FeishuChat,
    team: str,
    chat_id: str,
    user: str,
    reply_to: str,
    lang: Lang,
    request_key: str | None = None,
    direct: bool = False,
) -> Invocation:
    """A sub-command typed in Feishu: answered in a thread under the person's message (for everyone in the chat);
    what is for the person alone (a token) in a direct message; posts go to the chat. `direct`: typed in the
    person's direct chat with the bot (chat_type p2p)."""
    place = Place(chat.platform, team, chat_id)
    here = place.in_thread(reply_to or None)
    sends = itertools.count()  # each send's place in this work: its uuid, so a redo of the work sends none twice

    def key() -> str | None:
        return send_key(request_key, next(sends)) if request_key else None

    def say(where: Place) -> Any:
        return lambda message: chat.post(where, lambda _: message, lang, key=key())

    return Invocation(
        deps,
        team=team,
        channel=chat_id,
        user=user,
        lang=lang,
        answer=say(here),
        post=say(here),  # under the person's message too (release's note and its storage questions)
        is_admin=lambda: chat.is_admin(user, chat_id),
        zone=lambda: chat.user_zone(user),
        chat=chat,
        announce=say(here),
        privately=lambda message: chat.direct(Actor(chat.platform, team, user), lambda _: message, lang, key=key()),
        teller=lambda: FeishuTeller(chat, lang),
        open_form=lambda kind, initial: forms.send(chat, here, kind, initial, lang),
        help_text=lambda each: t("feishu.help", each, tenant=team.removeprefix(FEISHU_PREFIX), chinese=chinese_names()),
        channel_name=t("feishu.this_chat", lang),
        request_key=request_key,
        reply_to=reply_to or None,
        direct=direct,
    )


def on_message(deps: Deps, chat: FeishuChat, payload: dict[str, Any], input_key: str | None) -> None:
    event = payload.get("event") or {}
    sender, message = event.get("sender") or {}, event.get("message") or {}
    if sender.get("sender_type") not in (None, "user"):
        return  # the bot's own messages, other apps
    user = str((sender.get("sender_id") or {}).get("open_id") or "")
    chat_id, team = str(message.get("chat_id") or ""), team_of(payload)
    if not user or not chat_id:
        return
    text = command_text(message)
    root = message.get("root_id")
    # a profile's cards carry both languages (each reader sees their own): the default leads; a command's answer
    # is said in one, the language it was typed in
    lang = table.typed_lang(text, deps.settings.files.lang)
    if root:  # a reply in a thread: an answer (or a capture) when the thread is a profile's
        reply = ThreadMessage(team, chat_id, str(root), user, text, sent_file(chat, message), input_key)
        thread = Place(chat.platform, team, chat_id, str(root))
        teller = FeishuTeller(chat, deps.settings.files.lang)

        def say(line: str) -> None:
            chat.post(thread, lambda each: plain(line, each), lang)

        if taken_or_bug(lambda: on_thread_message(deps, chat, teller, reply), say, lang, "a reply"):
            return
    here = str(message.get("message_id") or "")
    inv = invocation(deps, chat, team, chat_id, user, here, lang, input_key, message.get("chat_type") == "p2p")
    table.run_answered(inv, text, t("feishu.see_help", lang))


def on_card_action(deps: Deps, chat: FeishuChat, payload: dict[str, Any], input_key: str | None) -> None:
    """A form submitted, or a button of the core's table (bot/app/buttons.py), done after the press was answered."""
    event = payload.get("event") or {}
    operator = event.get("operator") or {}
    user = str(operator.get("open_id") or "")
    action_of = event.get("action") or {}
    pressed = action_of.get("value") or {}
    action, raw = str(pressed.get("action") or ""), str(pressed.get("value") or "")
    context = event.get("context") or {}
    chat_id, message_id = str(context.get("open_chat_id") or ""), str(context.get("open_message_id") or "")
    team = FEISHU_PREFIX + str(operator.get("tenant_key") or (payload.get("header") or {}).get("tenant_key") or "")
    form, lang = forms.submitted(action_of), deps.settings.files.lang
    if user and form is not None:
        with bug_said(lambda said: chat.tell(Place(chat.platform, team, chat_id), user, said, lang), lang, "a form"):
            forms.on_submit(deps, chat, form, team, chat_id, message_id, user, input_key)
    elif user and raw:
        part = pressed.get("part")  # the card's place among a message's cards (bot/feishu/cards.py)
        part = part if isinstance(part, int) and 0 <= part < 1000 else 0
        press.on_press(deps, chat, action, raw, (team, chat_id, message_id), user, input_key, part)
