"""The digest's outlet in Feishu: the digest as a card (both languages, the chat's own first), sent to the group
chat with an idempotency key naming the chat and the day: a sender that takes over a claim left by a kill (after
10 minutes) sends with the same key, and Feishu keeps one message for a key within an hour."""

from __future__ import annotations

from datetime import date
from functools import partial
from typing import Any, cast
from zoneinfo import ZoneInfo

from bot.chat.digest_messages import digest_message
from bot.chat.message import plain
from bot.chat.send_keys import digest_send_key, part_key
from bot.digest.outlet import Undelivered
from bot.feishu.cards import cards
from bot.feishu.chat import FeishuChat
from bot.feishu.sdk import FeishuError
from bot.text import Lang, t
from rules.digest import Digest

# Feishu's send-message API takes from one app 1,000 messages a minute and 50 a second ("1000 次/分钟、50 次/秒",
# its rate limit; either one reached answers 99991400): a digest every 1/16 s is 960 a minute at most, under both,
# so 500 groups' digests take about 31 s (at Slack's one a second, over 8 minutes)
PACE_S = 1 / 16


class FeishuOutlet:
    pace_s: float | None = PACE_S

    def __init__(self, chat: FeishuChat) -> None:
        self.chat = chat

    def compose(self, digest: Digest | None, lang: Lang, zone: ZoneInfo) -> list[dict[str, Any]]:
        """The digest's card; a digest longer than one card takes (about 17 items) in cards that each fit, every
        item whole with its answers (bot/chat/parting.py)."""
        if digest is None:
            return cards(lambda each: plain(t("digest.all_clear", each), each), lang)
        return cards(partial(digest_message, digest, zone=zone), lang)

    def post(self, channel: str, composed: object, day: date) -> str:
        """Each card in turn, each with its own key of the day: a sender taking over sends none of them twice."""
        key = digest_send_key(channel, day)
        try:
            sent = [
                self.chat.send("chat_id", channel, content, uuid=part_key(key, number))
                for number, content in enumerate(cast(list[dict[str, Any]], composed))
            ]
            return sent[0]
        except FeishuError as exc:
            unknown = exc.status is None or exc.status >= 500
            raise Undelivered(str(exc.code or exc.msg), unknown=unknown) from exc

    def posted_before(self, channel: str, day: date, zone: ZoneInfo) -> str | None:
        return None  # a second send of the day within the hour is the same message (digest_send_key)
