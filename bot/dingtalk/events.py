"""What each DingTalk frame does: a robot message (topic /v1.0/im/bot/messages/get: a direct chat, or a group
message that @mentions the robot) is a command, or the answer to the profile that person has open in that
conversation (DingTalk robots have no threads); a card press (topic /v1.0/card/instances/callback) is a button of
the core's table (bot/app/buttons.py). The text of a command is what follows /gpu-advise in Slack.

`on_message` and `on_press` run after the frame was kept in the inbox; `input_key` (its key) makes a redo after a
crash finish what was started instead of doing it twice."""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, replace
from typing import Any
from zoneinfo import ZoneInfo

from bot.app import digest_card, table
from bot.app.buttons import Done, Press, Refusal, handler_for
from bot.app.invocation import CommandError, Form, Invocation
from bot.app.thread import ThreadMessage, on_thread_message
from bot.chat.message import Message, plain
from bot.chat.port import Actor, Place
from bot.deps import Deps
from bot.dingtalk import DIRECT, PREFIX
from bot.dingtalk.cards import pressed
from bot.dingtalk.chat import DingTalkChat, card_id
from bot.dingtalk.teller import DingTalkTeller
from bot.dingtalk.words import help_text, line
from bot.state import Conversation
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from bot.text import Lang
from bot.text.spans import PLAIN, render

MESSAGE_TOPIC = "/v1.0/im/bot/messages/get"
CARD_TOPIC = "/v1.0/card/instances/callback"
COMMAND = "/gpu-advise"
GROUP = "2"  # conversationType: "1" a person's chat with the robot, "2" a group


def team_of(corp: str) -> str:
    return PREFIX + corp


def command_text(data: dict[str, Any]) -> str:
    """The typed text, without a leading /gpu-advise (DingTalk leaves the robot's @mention out of the text)."""
    text = str((data.get("text") or {}).get("content") or "").strip()
    if text.lower().startswith(COMMAND):
        text = text[len(COMMAND) :]
    return text.strip()


def _lang_of(text: str, default: Lang) -> Lang:
    """The language the person wrote in: Chinese when the text has Chinese, English when it has Latin letters
    and no Chinese; else the default (DingTalk tells a robot no user's language)."""
    if any("\u4e00" <= ch <= "\u9fff" for ch in text):
        return Lang.ZH
    return Lang.EN if any("a" <= ch.lower() <= "z" for ch in text) else default


def invocation(
    deps: Deps, chat: DingTalkChat, team: str, channel: str, user: str, lang: Lang, request_key: str | None, admin: bool
) -> Invocation:
    """A sub-command typed in DingTalk: answered in the conversation it was typed in; what is for the person alone
    (a token) in their chat with the robot."""
    here = Place(chat.platform, team, channel)
    sends = itertools.count()

    def key() -> str | None:
        return card_id(request_key, next(sends)) if request_key else None

    def say(message: Message) -> object:
        return chat.post(here, lambda _: message, lang, key=key())

    def open_form(kind: Form, initial: dict[str, str]) -> None:
        say(plain(line("form", lang), lang))

    return Invocation(
        deps,
        team=team,
        channel=channel,
        user=user,
        lang=lang,
        answer=say,
        post=say,
        is_admin=lambda: admin,
        zone=lambda: None,
        chat=chat,
        announce=say,
        privately=lambda message: chat.direct(Actor(chat.platform, team, user), lambda _: message, lang, key=key()),
        teller=lambda: DingTalkTeller(chat, lang),
        open_form=open_form,
        help_text=lambda each: help_text(each, team, channel),
        channel_name=line("this_chat", lang),
        request_key=request_key,
        direct=channel.startswith(DIRECT),
    )


def on_message(deps: Deps, chat: DingTalkChat, data: dict[str, Any], input_key: str | None) -> None:
    user = str(data.get("senderStaffId") or "")
    corp = str(data.get("chatbotCorpId") or data.get("senderCorpId") or "")
    if not user or not corp:
        return  # a message from outside the organisation, or without a sender the robot can answer
    if data.get("senderNick"):
        chat.nicks[user] = str(data["senderNick"])
    team = team_of(corp)
    if data.get("isAdmin"):
        chat.admins.add((team, user))
    group = str(data.get("conversationType") or "") == GROUP
    channel = str(data.get("conversationId") or "") if group else DIRECT + user
    text = command_text(data)
    words = text.split()
    if words and words[0].lower() not in table.SUBCOMMANDS:  # words that are no command answer an open profile
        convo = deps.conversations.open_for(team, channel, user)
        if convo is not None and convo.thread_ts:
            teller = DingTalkTeller(chat, Lang(convo.lang))
            reply = ThreadMessage(team, channel, convo.thread_ts, user, text, None, input_key)
            if on_thread_message(deps, chat, teller, reply):
                return
    lang = _lang_of(text, deps.settings.files.lang)
    inv = invocation(deps, chat, team, channel, user, lang, input_key, (team, user) in chat.admins)
    try:
        table.run(inv, text)
    except CommandError as exc:
        inv.answer(plain(f"{exc}\n{line('see_help', lang)}", lang))


@dataclass
class Pressed:
    """What a press did, for its acknowledgement: why it was refused (to the presser alone), or the card now."""

    refusal: str | None = None
    card: dict[str, str] | None = None


def on_press(deps: Deps, chat: DingTalkChat, data: dict[str, Any], input_key: str | None) -> Pressed:
    user, corp, card = (str(data.get(k) or "") for k in ("userId", "corpId", "outTrackId"))
    content = data.get("content") or {}
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except ValueError:
            content = {}
    action, value = pressed(((content.get("cardPrivateData") or {}).get("params")) or {})
    handler = handler_for(action)
    if not user or not corp or handler is None:
        return Pressed()
    team = team_of(corp)
    group = str(data.get("spaceType") or "") == "IM_GROUP"
    channel = str(data.get("spaceId") or "") if group else DIRECT + user
    plan = Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, channel)
    lang = Lang(plan.lang) if plan.lang else deps.settings.files.lang
    done = Pressed()

    def refuse(refusal: Refusal) -> None:
        done.refusal = render(refusal.said(lang), replace(PLAIN, mention=lambda who: "@" + chat.name_of(who)))

    def show_done(_kind: str, _name: str, answered: Done) -> None:
        if card:
            zone = ZoneInfo(plan.zone)
            digest_card.show(deps, chat, Rentals(deps.store), team, channel, card, zone, lang, answered)
            done.card = chat.shown.pop(card, None)

    def open_form(kind: Form, initial: dict[str, str], convo: Conversation | None) -> None:
        where, said_in = (convo.channel, Lang(convo.lang)) if convo is not None else (channel, lang)
        answers = " ".join(f"{k}={v}" for k, v in initial.items() if v)
        text = line("form", said_in) + (f"\n`{answers}`" if answers else "")
        chat.post(Place(chat.platform, team, where), lambda each: plain(text, each), said_in)

    handler(
        Press(
            deps,
            chat,
            team=team,
            channel=channel,
            user=user,
            action=action,
            value=value,
            lang=lang,
            posted_in=lang,
            message_id=card or None,
            is_admin=lambda: (team, user) in chat.admins,
            is_member=lambda: True,  # a press comes from someone of the organisation it names
            open_form=open_form,
            refuse=refuse,
            show_done=show_done,
            request_key=input_key,
        )
    )
    return done
