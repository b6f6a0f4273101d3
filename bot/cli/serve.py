"""`gpu-advise serve`: its flags. What serve is (start-up, the HTTP front door, the jobs) is bot/server/.

Slack and the scheduler are imported when serve runs, not when the CLI loads.
"""

from __future__ import annotations

from typing import Annotated

import typer

from bot.cli.common import DbOpt, fail, load_settings, terminal_lang


def serve(
    port: Annotated[
        int,
        typer.Option(
            help="HTTP port: each chat's callbacks in HTTP mode, the board, the agents' heartbeats, /healthz and"
            " /metrics."
        ),
    ] = 3000,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "0.0.0.0",
    no_scheduler: Annotated[
        bool,
        typer.Option(
            "--no-scheduler",
            help="Run no scheduled jobs here (digests, reports, budgets, idle stops, price refreshes, retention,"
            " redos): another replica runs them.",
        ),
    ] = False,
    db: DbOpt = None,
) -> None:
    """Run the bot in every chat configured (Slack, Feishu/Lark, DingTalk, WeCom), the board and the scheduled jobs."""
    from bot.server.run import StartFailed, run

    settings = load_settings(db=db, terminal=False)  # Slack's default language is GPU_ADVISOR_LANG, else zh
    try:
        run(settings, host=host, port=port, jobs=not no_scheduler, lang=terminal_lang(settings))
    except StartFailed as exc:
        raise fail(str(exc)) from None
