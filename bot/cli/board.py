"""`gpu-advise board [--team T] [--channel C] [--json]`: a link to the board (bot/board/), the team's or one
channel's, at GPU_ADVISOR_PUBLIC_URL; it opens the board for GPU_ADVISOR_BOARD_LINK_HOURS."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Annotated

import typer

from bot.cli.common import LangOpt, fail, load_settings
from bot.cli.rentals import JsonOpt, TeamOpt, checked_channel, chosen_team, open_rentals
from bot.text import t


def board(
    channel: Annotated[str | None, typer.Option("--channel", help="Only this channel's items.")] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print a link to the board: what is idle, who billed idle money, budgets, balances, in a browser."""
    from bot.web.board_links import link_for

    settings = load_settings(lang=lang)
    if not settings.serve.public_url:
        raise fail(t("board.needs_public_url", settings.files.lang))
    rentals = open_rentals(settings)
    team = chosen_team(settings, team, rentals)
    where = checked_channel(settings, team, channel) if channel else None
    made = link_for(
        rentals.store, settings.serve.public_url, settings.serve.board_link_hours, team, where, datetime.now(UTC)
    )
    assert made is not None  # a public address is set
    url, expires = made
    if as_json:
        sys.stdout.write(json.dumps({"url": url, "expires_at": expires.isoformat()}) + "\n")
    else:
        sys.stdout.write(url + "\n")
