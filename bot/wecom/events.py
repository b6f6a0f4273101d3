"""What each WeCom frame does: a message to the robot (aibot_msg_callback: a person's chat with it, or a group
chat message that @mentions it) is a command or an answer to the person's open profile; a template card's click
(aibot_event_callback, event template_card_event) is a button of the core's table: both as every threadless chat
does them (bot/app/threadless.py). The organisation is the robot's (`wecom:<aibotid>`): frames carry no other."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from bot.app import threadless
from bot.app.capture import SentFile
from bot.deps import Deps
from bot.wecom import PREFIX, files
from bot.wecom.cards import pressed
from bot.wecom.chat import WeComChat
from bot.wecom.teller import WeComTeller
from bot.wecom.words import capture_fetch, help_text, line

COMMAND = "/gpu-advise"
CARD_EVENT = "template_card_event"
_MENTION = re.compile(r"^\s*@\S+\s*")  # the robot's @mention, in a group chat's text


def team_of(body: dict[str, Any]) -> str:
    return PREFIX + str(body.get("aibotid") or "")


def where(body: dict[str, Any]) -> tuple[str, str]:
    """The sender's userid and the conversation: a group chat's id, or the sender's (their chat with the robot)."""
    user = str((body.get("from") or {}).get("userid") or "")
    return user, str(body.get("chatid") or "") if body.get("chattype") == "group" else user


def command_text(body: dict[str, Any]) -> str:
    text = str((body.get("text") or {}).get("content") or "")
    if body.get("chattype") == "group":
        text = _MENTION.sub("", text, count=1)
    text = text.strip()
    if text.lower().startswith(COMMAND):
        text = text[len(COMMAND) :]
    return text.strip()


def _no_admin() -> bool:
    """WeCom's frames say nothing of a member's role: only an item's owner acts on it here."""
    return False


def wing_of(chat: WeComChat) -> threadless.Wing:
    return threadless.Wing(chat, lambda lang: WeComTeller(chat, lang), help_text, line)


def on_message(deps: Deps, chat: WeComChat, frame: dict[str, Any], input_key: str | None) -> None:
    body = frame.get("body") or {}
    user, channel = where(body)
    sent = sent_file(body)
    if not user or not channel:
        return
    with chat.replying(channel, frame):
        if body.get("msgtype") != "text" and sent is None:  # a picture, voice, mixed: said what it reads
            threadless.unread(wing_of(chat), deps, team_of(body), channel)
            return
        text = command_text(body)
        threadless.typed(wing_of(chat), deps, team_of(body), channel, user, text, input_key, _no_admin, sent)


def sent_file(body: dict[str, Any]) -> SentFile | None:
    """A file message's file (its address and AES key), fetched when it is read."""
    found = body.get("file") or {}
    url = str(found.get("url") or "") if isinstance(found, dict) else ""
    if body.get("msgtype") != "file" or not url:
        return None
    name = str(found.get("filename") or found.get("name") or "capture")
    return SentFile(name, partial(files.fetch, url, str(found.get("aeskey") or ""), name), "wecom", capture_fetch)


def on_click(deps: Deps, chat: WeComChat, frame: dict[str, Any], input_key: str | None) -> None:
    body = frame.get("body") or {}
    event = body.get("event") or {}
    click = event.get(CARD_EVENT) or {}
    user, channel = where(body)
    card = str(click.get("task_id") or "")
    action, value = pressed(str(click.get("event_key") or ""))
    if event.get("eventtype") != CARD_EVENT or not user or not channel:
        return
    with chat.answering(card, frame):  # the card is updated in answer to this click (within WeCom's 5 s)
        where_ = (team_of(body), channel, card)
        refuse = partial(chat.refuse, card, user)
        threadless.pressed(wing_of(chat), deps, where_, user, action, value, input_key, _no_admin, refuse)
