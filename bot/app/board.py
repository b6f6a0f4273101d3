"""`board [all]`: a link to the board (bot/board/) of this channel, or with `all` of the whole team, answered to
the person who asked; it opens the board for GPU_ADVISOR_BOARD_LINK_HOURS."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.app.invocation import CommandError, Invocation
from bot.chat.message import plain
from bot.state.schedules import Schedules
from bot.text import t
from bot.text.spans import channel_ref
from bot.web.board_links import link_for

ALL_WORDS = ("all", "team", "全部")


def board(inv: Invocation, args: list[str]) -> None:
    deps, lang = inv.deps, inv.lang
    word = args[0].lower() if args else ""
    if word and word not in ALL_WORDS:
        raise CommandError(t("board.bad_scope", lang, word=args[0][:40]))
    whole = bool(word) or not inv.channel or inv.direct  # a direct chat with the bot has no channel board
    channel = None if whole else inv.channel
    now = deps.now()
    made = link_for(deps.store, deps.settings.serve.public_url, deps.settings.serve.board_link_hours, inv.team,
                    channel, now)  # fmt: skip
    if made is None:
        raise CommandError(t("board.needs_public_url", lang))
    url, expires = made
    zone = ZoneInfo(Schedules(deps.store, deps.settings.digest.default_schedule()).of(inv.team, inv.channel).zone)
    scope = t("board.scope_team", lang)
    if channel is not None:
        scope = t("board.scope_channel", lang, channel=channel_ref(channel))
    said = t("board.link_answer", lang, scope=scope, url=url, expires=f"{expires.astimezone(zone):%m-%d %H:%M}")
    inv.answer(plain(said, lang))
