"""What each DingTalk frame does: a robot message (topic /v1.0/im/bot/messages/get: a direct chat, or a group
message that @mentions the robot) is a command or an answer to the person's open profile, a card press (topic
/v1.0/card/instances/callback) a button of the core's table: both as every threadless chat does them
(bot/app/threadless.py). The text of a command is what follows /gpu-advise in Slack.

`on_message` and `on_press` run after the frame was kept in the inbox; `input_key` (its key) makes a redo after a
crash finish what was started instead of doing it twice."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from bot.app import threadless
from bot.app.capture import SentFile
from bot.deps import Deps
from bot.dingtalk import DIRECT, PREFIX, files
from bot.dingtalk.cards import pressed
from bot.dingtalk.chat import DingTalkChat
from bot.dingtalk.teller import DingTalkTeller
from bot.dingtalk.words import capture_fetch, help_text, line
from bot.text.spans import PLAIN, mention, render

MESSAGE_TOPIC = "/v1.0/im/bot/messages/get"
CARD_TOPIC = "/v1.0/card/instances/callback"
COMMAND = "/gpu-advise"
GROUP = "2"  # conversationType: "1" a person's chat with the robot, "2" a group
CARD_AGAIN_KIND = "dingtalk_card_again"  # a pressed digest card's update, kept to be made again (bot/app/card_again.py)


def team_of(corp: str) -> str:
    return PREFIX + corp


def command_text(data: dict[str, Any]) -> str:
    """The typed text, without a leading /gpu-advise (DingTalk leaves the robot's @mention out of the text), a
    person @mentioned in it written as the neutral text writes one (`登记 … 负责人=@张三`: bot/text/spans.py)."""
    text = _with_mention(str((data.get("text") or {}).get("content") or "").strip(), data)
    if text.lower().startswith(COMMAND):
        text = text[len(COMMAND) :]
    return text.strip()


# "@张三" as the text shows a mention (after a space or a key's =): the person's name, not their userId
_AT = re.compile(r"(?<![^\s=])@\S+")


def _with_mention(text: str, data: dict[str, Any]) -> str:
    """DingTalk says who was @mentioned (atUsers: each one's staffId, the userId) but not where in the text, which
    shows their name: with one person and one @name, that name is that person; with more, the text stays as it is
    (a name is then refused saying the userId form, bot/app/track.py)."""
    robot = data.get("chatbotUserId")
    people = [
        str(u["staffId"])
        for u in data.get("atUsers") or []
        if isinstance(u, dict) and u.get("staffId") and u.get("dingtalkId") != robot
    ]
    named = _AT.findall(text)
    if len(people) != 1 or len(named) != 1:
        return text
    return _AT.sub(lambda _: mention(people[0]), text)


def wing_of(chat: DingTalkChat) -> threadless.Wing:
    return threadless.Wing(
        chat,
        lambda lang: DingTalkTeller(chat, lang),
        help_text,
        line,
        direct_prefix=DIRECT,
        card_again=CARD_AGAIN_KIND,
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
    is_admin = partial(chat.is_admin, team, user, channel)
    sent = sent_file(chat, data)
    if data.get("msgtype") not in (None, "text") and sent is None:  # a picture, voice, a rich text
        threadless.unread(wing_of(chat), deps, team, channel)
        return
    threadless.typed(wing_of(chat), deps, team, channel, user, command_text(data), input_key, is_admin, sent)


def sent_file(chat: DingTalkChat, data: dict[str, Any]) -> SentFile | None:
    """A file message's file (its downloadCode and name), fetched when it is read."""
    content = data.get("content") or {}
    code = str(content.get("downloadCode") or "") if isinstance(content, dict) else ""
    if data.get("msgtype") != "file" or not code:
        return None
    name = str(content.get("fileName") or "capture")
    return SentFile(name, partial(files.fetch, chat.api, code, name), "dingtalk", capture_fetch)


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
    done = Pressed()
    if not user or not corp:
        return done
    team = team_of(corp)
    group = str(data.get("spaceType") or "") == "IM_GROUP"
    channel = str(data.get("spaceId") or "") if group else DIRECT + user

    def refuse(text: str) -> None:
        done.refusal = render(text, replace(PLAIN, mention=lambda who: "@" + chat.name_of(who)))

    is_admin = partial(chat.is_admin, team, user, channel)
    with chat.answering(card) as shown:
        where = (team, channel, card)
        threadless.pressed(wing_of(chat), deps, where, user, action, value, input_key, is_admin, refuse)
    done.card = shown or None
    return done
