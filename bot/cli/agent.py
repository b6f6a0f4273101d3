"""`gpu-advise agent`: run on a rented GPU machine; posts its GPU samples to the bot's /api/heartbeat.

Exit 0: `--once` sent a batch the bot kept. 1: `--once` could not send (the samples stay buffered).
2: no GPU could be read. 3: the bot refused the token.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.common import LangOpt, fail, load_settings
from bot.text import t


def agent(
    url: Annotated[str, typer.Option("--url", help="The bot's base URL, e.g. https://gpu-advisor.example.com.")],
    token: Annotated[str, typer.Option("--token", envvar="GPU_ADVISOR_AGENT_TOKEN", show_envvar=True,
                                       help="The token `track instance` printed (better from the environment, "
                                            "so it stays out of ps).")],
    interval: Annotated[float, typer.Option("--interval", min=5, max=3600, help="Seconds between samples.")] = 60,
    watch_dir: Annotated[list[Path] | None, typer.Option("--watch-dir", help="A folder whose size and newest file "
                                                                           "time are reported (repeatable).")] = None,
    once: Annotated[bool, typer.Option("--once", help="Send one batch and exit.")] = False,
    buffer: Annotated[Path, typer.Option("--buffer", help="Where samples wait while the bot cannot be reached.")]
    = Path("gpu-advisor-agent.buffer.jsonl"),
    lang: LangOpt = None,
) -> None:
    """Sample this machine's GPUs and post them to the bot, for the daily reminders' idle judgement."""
    import httpx

    from bot.agent.run import Buffer, TokenRefused, run
    from bot.agent.sampler import NoGPU

    settings = load_settings(lang=lang)
    _log_posts()
    problem = url_problem(url)
    if problem is not None:
        raise fail(t("cli.agent_bad_url", settings.lang, url=url[:120], reason=problem))
    try:
        Buffer(buffer).check()
    except OSError as exc:
        raise fail(t("cli.agent_bad_buffer", settings.lang, path=str(buffer),
                     reason=exc.strerror or type(exc).__name__)) from None
    try:
        with httpx.Client(timeout=settings.http_timeout_s) as client:
            ok = run(url, token, interval=interval, watched=watch_dir or [], buffer=Buffer(buffer), once=once,
                     client=client)
    except NoGPU as exc:
        reason = t(f"gpu.{exc.code}", settings.lang, **exc.params)
        raise fail(t("cli.agent_no_gpu", settings.lang, reason=reason)) from None
    except TokenRefused:
        raise fail(t("cli.agent_token_refused", settings.lang), code=3) from None
    except KeyboardInterrupt:
        raise typer.Exit(0) from None
    if once:
        sys.stdout.write(t("cli.agent_once_sent" if ok else "cli.agent_once_buffered", settings.lang) + "\n")
    if not ok:
        raise typer.Exit(1)


def _log_posts() -> None:
    """One line a post on stderr at INFO (what was sent and kept, or why not): what `nohup ... >agent.log`
    keeps. The CLI's other commands log only errors."""
    import logging

    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("bot.agent")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False


def url_problem(url: str) -> str | None:
    """Why `url` cannot be the bot's base URL (http or https, a host that can be looked up), or None."""
    import httpx

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        return str(exc)
    if parsed.scheme not in ("http", "https") or not parsed.host:
        return "it needs http:// or https:// and a host"
    try:
        parsed.host.encode("idna")
    except UnicodeError:
        return "the host name is not one DNS can look up (too long, or a label over 63 characters)"
    return None
