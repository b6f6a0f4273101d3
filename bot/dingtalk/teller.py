"""The Teller port and the digest's outlet on DingTalk: lines and digests as cards in a group conversation (or a
person's chat with the robot). A digest's card id is made from the conversation and the day, so a sender that takes
over a claim left by a kill delivers the same card, not a second one. Files are not sent: DingTalk's media upload is
another API (oapi.dingtalk.com); a report is posted as its text, and the terminal's `report` gives its chart and CSV."""

from __future__ import annotations

from datetime import date
from functools import partial
from typing import cast
from zoneinfo import ZoneInfo

from bot.chat.digest_messages import digest_message
from bot.chat.message import plain
from bot.chat.port import ChatError
from bot.chat.port_teller import PortTeller
from bot.chat.send_keys import digest_send_key
from bot.digest.outlet import Undelivered
from bot.dingtalk.cards import card
from bot.dingtalk.chat import DingTalkChat
from bot.text import Lang, t
from rules.digest import Digest

# A robot's messages in one group: DingTalk takes 20 a minute ("每个机器人每分钟最多发送20条消息到群里"); a digest
# goes to each group once a day, so the pace between groups is DingTalk's app-wide 20 calls a second, kept under.
PACE_S = 1 / 16


DingTalkTeller = PortTeller  # lines through the port; files refused


class DingTalkOutlet:
    pace_s: float | None = PACE_S

    def __init__(self, chat: DingTalkChat) -> None:
        self.chat = chat

    def compose(self, digest: Digest | None, lang: Lang, zone: ZoneInfo) -> dict[str, str]:
        if digest is None:
            return card(lambda each: plain(t("digest.all_clear", each), each), lang, self.chat.name_of)
        return card(partial(digest_message, digest, zone=zone), lang, self.chat.name_of)

    def post(self, channel: str, composed: object, day: date) -> str:
        try:
            return self.chat.send(channel, cast(dict[str, str], composed), digest_send_key(channel, day))
        except ChatError as exc:
            raise Undelivered(exc.code, unknown=exc.code == "unreachable") from exc

    def posted_before(self, channel: str, day: date, zone: ZoneInfo) -> str | None:
        return None  # delivered again, the day's digest is the same card (digest_send_key)
