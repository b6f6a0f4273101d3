"""`gpu-advise agent`: run on a rented GPU machine; posts its GPU samples to the bot's /api/heartbeat.

The heartbeat token is `--token`, else the one an earlier enrollment kept in `--state-file`, else the agent
enrolls with `--enroll TOKEN` (bot/agent/enroll.py) and keeps it there.

Exit 0: `--once` sent a batch the bot kept. 1: `--once` could not send (the samples stay buffered) or could
not reach the bot to enroll. 2: no GPU could be read, or a bad option. 3: the bot refused the token.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from bot.cli.common import LangOpt, fail
from bot.text import Lang, t

UrlOpt = Annotated[str, typer.Option("--url", help="The bot's base URL, e.g. https://gpu-advisor.example.com.")]
TokenOpt = Annotated[
    str | None,
    typer.Option(
        "--token",
        envvar="GPU_ADVISOR_AGENT_TOKEN",
        show_envvar=True,
        help="The token `track instance` printed (better from the environment, so it stays out of ps).",
    ),
]
EnrollOpt = Annotated[
    str | None,
    typer.Option(
        "--enroll",
        envvar="GPU_ADVISOR_ENROLL_TOKEN",
        show_envvar=True,
        help="An enrollment token (`gpu-advise enroll-token`, `/gpu-advise enroll`): the first run registers this box.",
    ),
]
NameOpt = Annotated[str | None, typer.Option("--name", help="The box's name when it enrolls (default: the host name).")]
PriceOpt = Annotated[
    str | None,
    typer.Option("--price", help="What the box costs when it enrolls: 14/h, 400/day (default: the price cache's)."),
]
ProviderIdOpt = Annotated[
    str | None,
    typer.Option(
        "--provider-id",
        help="The cloud's id of this box, e.g. aws:i-0abc... (default: from EC2's instance metadata).",
    ),
]
OnStopOpt = Annotated[
    str | None,
    typer.Option(
        "--on-stop",
        help="The command that stops this box when the bot "
        "asks (a channel with `act stop`), e.g. 'sudo shutdown -h now'; "
        "without it the agent says it cannot act.",
    ),
]
StateFileOpt = Annotated[
    Path | None,
    typer.Option(
        "--state-file",
        help="Where an enrollment keeps the heartbeat token (mode 0600; default: "
        "$XDG_STATE_HOME/gpu-advisor/agent.json, else ~/.local/state/gpu-advisor/agent.json).",
    ),
]
IntervalOpt = Annotated[
    float, typer.Option("--interval", min=5, max=3600, metavar="SECONDS", help="Seconds between samples.")
]
WatchDirOpt = Annotated[
    list[Path] | None,
    typer.Option("--watch-dir", help="A folder whose size and newest file time are reported (repeatable)."),
]
OnceOpt = Annotated[bool, typer.Option("--once", help="Send one batch and exit.")]
BufferOpt = Annotated[
    Path | None,
    typer.Option(
        "--buffer",
        help="Where samples wait while the bot cannot be reached (default: agent.buffer.jsonl in the state "
        "directory, beside the state file's default).",
    ),
]


def agent(
    url: UrlOpt,
    token: TokenOpt = None,
    enroll: EnrollOpt = None,
    name: NameOpt = None,
    price: PriceOpt = None,
    provider_id: ProviderIdOpt = None,
    on_stop: OnStopOpt = None,
    state_file: StateFileOpt = None,
    interval: IntervalOpt = 60,
    watch_dir: WatchDirOpt = None,
    once: OnceOpt = False,
    source: SourceOpt = None,
    buffer: BufferOpt = None,
    lang: LangOpt = None,
) -> None:
    """Sample this machine's GPUs and post them to the bot, for the daily reminders' idle judgement."""
    import httpx  # without its command-line client (bot/web/lean_imports.py, installed by `gpu-advise`)

    from bot.agent.files import BUFFER_FILE, STATE_FILE, default_path
    from bot.agent.run import Buffer, TokenRefused, run
    from bot.agent.sampler import NoGPU
    from bot.tls import shared_context

    settings = agent_settings(lang)
    _log_posts()
    buffer = buffer or default_path(BUFFER_FILE)
    problem = url_problem(url)
    if problem is not None:
        raise fail(t("cli.agent_bad_url", settings.files.lang, url=url[:120], reason=problem))
    try:
        Buffer(buffer).check()
    except OSError as exc:
        raise fail(
            t("cli.agent_bad_buffer", settings.files.lang, path=str(buffer), reason=exc.strerror or type(exc).__name__)
        ) from None
    try:
        with httpx.Client(timeout=settings.prices.http_timeout_s, verify=shared_context()) as client:
            heartbeat = token or _enrolled(
                settings.files.lang,
                client,
                url,
                enroll,
                state_file or default_path(STATE_FILE),
                once=once,
                interval=interval,
                box=(name, price, provider_id),
                source=source,
            )
            ok = run(
                url,
                heartbeat,
                interval=interval,
                watched=watch_dir or [],
                buffer=Buffer(buffer),
                once=once,
                client=client,
                on_stop=on_stop,
                source=source,
            )
    except NoGPU as exc:
        reason = t(f"gpu.{exc.code}", settings.files.lang, **exc.params)
        # the NVIDIA hint only where NVIDIA's driver or nvidia-smi was what failed; a domestic card's tool is named
        key = "cli.agent_no_gpu" if exc.code.startswith(("smi_", "no_driver", "no_card")) else "cli.no_card_read"
        raise fail(t(key, settings.files.lang, reason=reason)) from None
    except TokenRefused:
        raise fail(t("cli.agent_token_refused", settings.files.lang), code=3) from None
    except KeyboardInterrupt:
        raise typer.Exit(0) from None
    if once:
        sys.stdout.write(t("cli.agent_once_sent" if ok else "cli.agent_once_buffered", settings.files.lang) + "\n")
    if not ok:
        raise typer.Exit(1)


TIMEOUT = "http_timeout_s"  # Prices.http_timeout_s: its default and bounds, read off the model by a test


@dataclass(frozen=True)
class AgentSettings:
    """What the agent needs of the settings: the language and the timeout of each request (as Settings holds them)."""

    files: Any
    prices: Any


def agent_settings(lang: Lang | None) -> AgentSettings:
    """The language (--lang, else GPU_ADVISOR_LANG, else the locale) and GPU_ADVISOR_HTTP_TIMEOUT_S (default 20 s,
    above 0 and at most 300), read from the environment over `.env` by the reader Settings uses, without building
    Settings: pydantic-settings and every area's model were 18.8 MB of the agent's 46 (issue 50), on a box whose
    memory is the user's. Exit 2 on a bad value, as load_settings does."""
    from types import SimpleNamespace

    from bot.cli.common import terminal_settings
    from bot.settings.environment import environment

    light = terminal_settings(lang=lang, policy=None)
    given = environment().get(f"gpu_advisor_{TIMEOUT}")
    try:
        timeout = float(given) if given is not None else 20.0
    except ValueError:
        timeout = -1.0
    if not 0 < timeout <= 300:
        problems = f"{TIMEOUT}: Input should be a number greater than 0 and at most 300, not {given!r}"
        raise fail(t("cli.bad_config", light.files.lang, problems=problems))
    return AgentSettings(light.files, SimpleNamespace(http_timeout_s=timeout))


def _enrolled(
    lang: Lang,
    client: Any,
    url: str,
    enroll: str | None,
    state_file: Path,
    *,
    once: bool,
    interval: float,
    box: tuple[str | None, str | None, str | None],
    source: str | None = None,
) -> str:
    """The heartbeat token an earlier enrollment kept in `state_file`, else a new enrollment's (kept there).
    Until the bot can be reached, enrollment is tried again every `interval` (once with --once)."""
    import time

    import httpx

    from bot.agent.enroll import EnrollFailed, about_box, read_state, write_state
    from bot.agent.enroll import enroll as enroll_box
    from bot.agent.sampler import cards

    kept = read_state(state_file)
    if kept is not None:
        return kept.token
    if not enroll:
        raise fail(t("cli.agent_no_token", lang, path=str(state_file)))
    problem = _unwritable(state_file)
    if problem:
        raise fail(t("cli.agent_bad_state_file", lang, path=str(state_file), reason=problem))
    about = about_box(*box, cards(source))
    while True:
        try:
            enrolled = enroll_box(client, url, enroll, about)
            break
        except httpx.HTTPError as exc:
            logging.getLogger("bot.agent").warning("cannot reach %s to enroll: %s", url, type(exc).__name__)
            if once:
                raise fail(t("cli.agent_enroll_unreachable", lang, url=url), code=1) from None
            time.sleep(interval)
        except EnrollFailed as exc:  # the bot's reason in the terminal's language where it names one
            said = t(f"cli.enroll_why.{exc.reason}", lang, **exc.params) if exc.reason in ENROLL_REASONS else exc.said
            raise fail(
                t("cli.agent_enroll_refused", lang, status=exc.status, said=said), code=3 if exc.status == 401 else 2
            ) from None
    write_state(state_file, enrolled, url)
    logging.getLogger("bot.agent").info(
        "enrolled as %s; the heartbeat token is kept in %s", enrolled.instance, state_file
    )
    return enrolled.token


ENROLL_REASONS = ("no_token", "unknown_token", "expired_token", "used_up_token", "name_taken", "machine_taken")


def _unwritable(path: Path) -> str | None:
    """Why the state file could not be written (checked before enrolling spends a use of the token)."""
    import os

    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        return "it is a folder"
    if not folder.is_dir():
        return "its folder does not exist"
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "no permission to write it"
    return None


def _log_posts() -> None:
    """One line a post on stderr at INFO (what was sent and kept, or why not): what `nohup ... >agent.log`
    keeps. The CLI's other commands log only errors."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logger = logging.getLogger("bot.agent")
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False


def _source(value: str | None) -> str | None:
    from bot.agent.sampler import READERS

    if value is not None and value not in READERS:
        raise typer.BadParameter(f"{value!r}: one of {', '.join(READERS)}")
    return value


SourceOpt = Annotated[
    str | None,
    typer.Option(
        "--source",
        callback=_source,
        help=(
            "Read the cards with this tool only: nvml, nvidia-smi, npu-smi, hy-smi, cnmon, mthreads-gmi or xpu-smi "
            "(default: the first the box has)."
        ),
    ),
]


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
