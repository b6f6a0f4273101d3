"""What each Feishu callback does: a message to the bot (a direct message, or a group message that @mentions it)
is a command, or, in a profile's thread, an answer; a card button is an answer, Skip, Start over, … The text of a
command is what follows /gpu-advise in Slack, with or without a leading /gpu-advise.

`handle` runs after the callback was kept in the inbox and acknowledged; `input_key` (the inbox key) makes a
redo after a crash finish what was started instead of doing it twice, as in Slack."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.chat import answer_commands, conversation, inline, meter_commands, rental_commands
from bot.chat.commands import CommandError, Invocation
from bot.chat.digest_answers import ITEM_ACTIONS
from bot.chat.ids import Action, ButtonValue, SubCommand
from bot.chat.message import plain
from bot.chat.port import FEISHU_PREFIX, Place
from bot.deps import Deps
from bot.feishu import digest_buttons
from bot.feishu.chat import FeishuChat
from bot.text import Lang, t

log = logging.getLogger(__name__)

MESSAGE, CARD_ACTION = "im.message.receive_v1", "card.action.trigger"
MENU, ADDED = "application.bot.menu_v6", "im.chat.member.bot.added_v1"
# the bot menu's items (their event keys, as set in the developer console: docs/feishu.md)
MENU_NEW_PROFILE, MENU_HELP, MENU_MY_RENTALS = "new_profile", "help", "my_rentals"
COMMAND = "/gpu-advise"
START_WORDS = {"", "advise", "start", "开始", "建议"}


def team_of(payload: dict[str, Any]) -> str:
    """The tenant's id in the state tables: the tenant key behind the Feishu prefix."""
    return FEISHU_PREFIX + str((payload.get("header") or {}).get("tenant_key") or "")


def event_type(payload: dict[str, Any]) -> str:
    return str((payload.get("header") or {}).get("event_type") or "")


def command_text(message: dict[str, Any]) -> str:
    """The typed text, without the @mentions and a leading /gpu-advise."""
    try:
        text = str(json.loads(message.get("content") or "{}").get("text") or "")
    except (ValueError, AttributeError):
        return ""
    for mention in message.get("mentions") or []:
        text = text.replace(str(mention.get("key", "")), " ")
    text = text.strip()
    if text.lower().startswith(COMMAND):
        text = text[len(COMMAND) :]
    return text.strip()


def _lang_of(text: str, default: Lang) -> Lang:
    """Chinese when the person wrote Chinese; else the default (Feishu tells a bot no user's language)."""
    return Lang.ZH if any("\u4e00" <= ch <= "\u9fff" for ch in text) else default


@dataclass(frozen=True)
class Toast:
    """What a card press is answered with (Feishu shows it to the presser): a catalogue key and its kind."""

    key: str
    kind: str = "success"  # success, info, warning, error
    params: tuple[tuple[str, str], ...] = ()


def handle(deps: Deps, chat: FeishuChat, payload: dict[str, Any], input_key: str | None = None) -> Toast | None:
    kind = event_type(payload)
    if kind == MESSAGE:
        on_message(deps, chat, payload, input_key)
    elif kind == CARD_ACTION:
        return on_card_action(deps, chat, payload, input_key)
    elif kind == MENU:
        on_menu(deps, chat, payload)
    elif kind == ADDED:
        chat_id = str((payload.get("event") or {}).get("chat_id") or "")
        if chat_id:  # added to a group: say what it does there
            place = Place(chat.platform, team_of(payload), chat_id)
            chat.post(place, lambda each: plain(t("feishu.help", each), each), deps.settings.lang)
    return None


def on_menu(deps: Deps, chat: FeishuChat, payload: dict[str, Any]) -> None:
    """The bot menu: New profile (in the direct chat), Help, My rentals (what the tenant rents, listed)."""
    event = payload.get("event") or {}
    user = str(((event.get("operator") or {}).get("operator_id") or {}).get("open_id") or "")
    key, team, lang = str(event.get("event_key") or ""), team_of(payload), deps.settings.lang
    if not user:
        return
    if key == MENU_NEW_PROFILE:
        conversation.start(deps, chat, team=team, channel=user, user=user, lang=lang)
    elif key == MENU_HELP:
        chat.post(Place(chat.platform, team, user), lambda each: plain(t("feishu.help", each), each), lang)
    elif key == MENU_MY_RENTALS:
        rental_commands.list_items(invocation(deps, chat, team, user, user, "", lang))  # in the direct chat


def invocation(
    deps: Deps, chat: FeishuChat, team: str, chat_id: str, user: str, reply_to: str, lang: Lang
) -> Invocation:
    """A sub-command typed in Feishu: answered in a thread under the person's message; posts go to the chat."""
    place = Place(chat.platform, team, chat_id)
    return Invocation(
        deps,
        team=team,
        channel=chat_id,
        user=user,
        lang=lang,
        answer=lambda message: chat.post(place.in_thread(reply_to), lambda _: message, lang),
        post=lambda message: chat.post(place, lambda _: message, lang),
        is_admin=lambda: chat.is_admin(user, chat_id),
        zone=lambda: chat.user_zone(user),
    )


RENTAL_COMMANDS: dict[str, Callable[[Invocation, list[str]], None]] = {
    SubCommand.LIST: lambda inv, _args: rental_commands.list_items(inv),
    SubCommand.RELEASE: rental_commands.release,
    SubCommand.DELETE_STORAGE: rental_commands.delete_storage,
    SubCommand.BUDGET: rental_commands.budget,
    SubCommand.POWER: meter_commands.power,
    SubCommand.BILLING: meter_commands.billing,
    SubCommand.BALANCE: meter_commands.balance,
    SubCommand.REMIND: rental_commands.remind,
}


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
    if root:  # a reply in a thread: the open question of the profile there, if it is one
        found = deps.conversations.by_thread(team, chat_id, str(root))
        if found is not None:
            with deps.store.lock(found.id):
                convo = deps.conversations.get(found.id) or found
                if conversation.admit(deps, chat, convo, chat_id, user):
                    conversation.typed_answer(deps, chat, convo, text, user, input_key)
            return
    lang = _lang_of(text, deps.settings.lang)
    here = Place(chat.platform, team, chat_id, str(message.get("message_id") or "") or None)
    try:
        tokens = inline.split(text)
    except inline.InlineError as exc:
        error = t(f"error.inline.{exc.code}", lang, **exc.params)
        chat.post(here, lambda each: plain(error, each), lang)
        return
    head = tokens[0].lower() if tokens else ""
    if head in START_WORDS:
        conversation.start(deps, chat, team=team, channel=chat_id, user=user, lang=lang)
    elif head == SubCommand.HELP:
        chat.post(here, lambda each: plain(t("feishu.help", each), each), lang)
    elif head == SubCommand.PRICES or answer_commands.is_inline(tokens):
        _answers(deps, chat, here, user, tokens, lang)
    elif head in RENTAL_COMMANDS:
        inv = invocation(deps, chat, team, chat_id, user, here.thread or "", lang)
        try:
            RENTAL_COMMANDS[head](inv, tokens[1:])
        except CommandError as exc:
            said = f"{exc}\n{t('feishu.see_help', lang)}"
            chat.post(here, lambda each: plain(said, each), lang)
    else:
        chat.post(here, lambda each: plain(t("feishu.not_yet", each, name=head), each), lang)


def _answers(deps: Deps, chat: FeishuChat, here: Place, user: str, tokens: list[str], lang: Lang) -> None:
    """`prices [gpu]`, or every answer in the text (the recommendation at once), as in Slack."""
    try:
        if tokens[0].lower() == SubCommand.PRICES:
            said = "\n".join(answer_commands.price_lines(deps, tokens[1:], lang))
            chat.post(here, lambda each: plain(said, each), lang)
        else:
            answer_commands.inline_profile(
                deps, chat, team=here.tenant, channel=here.chat, user=user, tokens=tokens, lang=lang
            )
    except CommandError as exc:
        error = f"{exc}\n{t('feishu.see_help', lang)}"
        chat.post(here, lambda each: plain(error, each), lang)


def on_card_action(deps: Deps, chat: FeishuChat, payload: dict[str, Any], input_key: str | None) -> Toast | None:
    event = payload.get("event") or {}
    operator = event.get("operator") or {}
    user = str(operator.get("open_id") or "")
    pressed = (event.get("action") or {}).get("value") or {}
    action, raw = str(pressed.get("action") or ""), str(pressed.get("value") or "")
    context = event.get("context") or {}
    chat_id, message_id = str(context.get("open_chat_id") or ""), str(context.get("open_message_id") or "")
    team = FEISHU_PREFIX + str(operator.get("tenant_key") or (payload.get("header") or {}).get("tenant_key") or "")
    if not user or not raw:
        return None
    if action in ITEM_ACTIONS:
        return digest_buttons.on_press(deps, chat, Action(action), raw, team, chat_id, message_id, user)
    try:
        value = ButtonValue.model_validate_json(raw)
    except ValueError:
        log.info("a card action with a value this app did not make: ignored")
        return None
    if action.startswith(Action.ANSWER) or action == Action.SKIP:
        with deps.store.lock(value.c):
            convo = deps.conversations.get(value.c, team)  # another tenant's press finds nothing
            if convo is None:
                return Toast("feishu.toast_gone", "warning")
            if not conversation.admit(deps, chat, convo, chat_id or convo.channel, user):
                return Toast("feishu.toast_not_yours", "error")
            conversation.take_answer(deps, chat, convo, value.k, value.v, user, input_key)
    elif action == Action.RESTART:
        convo = deps.conversations.get(value.c, team)
        if convo is not None:
            conversation.start(
                deps, chat, team=team, channel=chat_id or convo.channel, user=user, lang=Lang(convo.lang)
            )
    return None
