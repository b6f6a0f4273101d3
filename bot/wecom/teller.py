"""The Teller port and the digest's outlet on WeCom: lines and digests sent unasked to a group chat (or a person).
A digest's task_id is made from the chat and the day. Files are not sent (the robot's long connection takes no
uploads): a report is posted as its text, and the terminal's `report` gives its chart and CSV."""

from __future__ import annotations

from datetime import date
from typing import cast
from zoneinfo import ZoneInfo

from bot.chat.digest_messages import digest_message
from bot.chat.message import Message, plain
from bot.chat.port import ChatError
from bot.chat.port_teller import PortTeller
from bot.chat.send_keys import digest_send_key
from bot.digest.outlet import Undelivered
from bot.text import Lang, t
from bot.wecom.chat import WeComChat
from rules.digest import Digest

PACE_S = 1 / 16  # between chats; within one chat the sender's own pacer keeps WeCom's 30 a minute


WeComTeller = PortTeller  # lines through the port; files refused


class WeComOutlet:
    pace_s: float | None = PACE_S

    def __init__(self, chat: WeComChat) -> None:
        self.chat = chat

    def compose(self, digest: Digest | None, lang: Lang, zone: ZoneInfo) -> Message:
        if digest is None:
            return plain(t("digest.all_clear", lang), lang)
        return digest_message(digest, lang, zone)

    def post(self, channel: str, composed: object, day: date) -> str:
        try:
            return self.chat.send(channel, cast(Message, composed), digest_send_key(channel, day))
        except ChatError as exc:
            raise Undelivered(exc.code, unknown=exc.code == "timeout") from exc

    def posted_before(self, channel: str, day: date, zone: ZoneInfo) -> str | None:
        return None
