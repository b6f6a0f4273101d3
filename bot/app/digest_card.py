"""A digest card answered on a chat whose press carries no card to edit (Feishu, DingTalk): the answer is the
core's (bot/app/buttons.py); the card is composed again from what is still listed, with the answer's line at the
top, and the chat replaces the pressed card with it."""

from __future__ import annotations

from dataclasses import replace
from zoneinfo import ZoneInfo

from bot.app.buttons import Done
from bot.chat.digest_messages import digest_message
from bot.chat.message import Message
from bot.chat.port import Chat, Place, Posted
from bot.deps import Deps
from bot.digest.now import digests_now
from bot.state.rentals import Rentals
from bot.text import Lang
from rules.digest import Digest


def digest_now(deps: Deps, rentals: Rentals, team: str, chat_id: str, zone: ZoneInfo) -> Digest:
    """The channel's digest as it stands now (bot/digest/now.py): a stop time only where a warning was given."""
    policy = deps.policy
    return digests_now(rentals, team, [chat_id], deps.now(), policy.idle, policy.metering, zone, deps.prices.worth())[
        chat_id
    ]


def show(
    deps: Deps,
    chat: Chat,
    rentals: Rentals,
    team: str,
    chat_id: str,
    message_id: str,
    zone: ZoneInfo,
    lang: Lang,
    done: Done,
    part: int = 0,
) -> None:
    """The digest card composed again from what is still listed, with the answer's line at the top; `part`: which
    of the digest's parts the card is, where the chat sent it in several."""
    digest = digest_now(deps, rentals, team, chat_id, zone)

    def say(each: Lang) -> Message:
        shown = digest_message(digest, each, zone, done=done.line(each))
        return replace(shown, sections=(shown.sections[0], *done.follow_ups(each), *shown.sections[1:]))

    chat.update(Posted(Place(chat.platform, team, chat_id), message_id, part=part), say, lang)
