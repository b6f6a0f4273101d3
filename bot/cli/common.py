"""What every CLI command shares: option types, settings and policy loading, clean failure."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bot.text import Lang, t
from rules.errors import PolicyError

if TYPE_CHECKING:
    from rich.console import Console

    from bot.settings import Settings
    from rules.policy import Policy

PolicyOpt = Annotated[Path | None, typer.Option("--policy", help="Policy YAML file (default: bundled).")]
LangOpt = Annotated[
    Lang | None,
    typer.Option("--lang", help="Language of every message: zh or en (default: GPU_ADVISOR_LANG, else the locale)."),
]
DbOpt = Annotated[Path | None, typer.Option("--db", help="SQLite database file (GPU_ADVISOR_DB).")]


def text_console(*, stderr: bool = False, soft_wrap: bool = False, width: int | None = None) -> Console:
    """A rich Console that prints every string as it is: no markup, no emoji codes; styles are given as styles
    (`style=`, Text). What the terminal prints holds words people typed and data from rate cards, feeds and
    clouds: read as rich's markup, a typed "[/x]" crashed `advise`, a rate card's "[/x]" crashed `prices list`, and
    a region "[cn-north]" vanished from a quote."""
    from rich.console import Console  # rich loads when there is something to print: not on the --json path

    return Console(stderr=stderr, soft_wrap=soft_wrap, width=width, markup=False, emoji=False)


def say(message: str) -> None:
    """Print `message` on stderr, as it is (no markup; a neutral text's spans as their words)."""
    from bot.text.spans import plain_text

    text_console(stderr=True, soft_wrap=True).print(plain_text(message), highlight=False)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print `message` on stderr and return the Exit to raise."""
    say(message)
    return typer.Exit(code)


def more_than_taken(words: list[str], lang: Lang, command: str) -> typer.Exit:
    """The Exit for words a command's own reading left over, said as click's "more than the command takes" is
    (bot/cli/main.py's usage_said)."""
    what = t("cli.usage.extra", lang, args=" ".join(words))
    return fail(t("cli.usage.error", lang, what=what, help=f"gpu-advise {command} --help"))


def locale_lang(environ: Mapping[str, str] | None = None) -> Lang:
    """The terminal's language from its locale (LC_ALL, then LC_MESSAGES, then LANG): zh_* is Chinese,
    anything else English."""
    env = os.environ if environ is None else environ
    locale = next((env[name] for name in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(name)), "")
    return Lang.ZH if locale.lower().startswith("zh") else Lang.EN


def terminal_lang(settings: Settings) -> Lang:
    """GPU_ADVISOR_LANG when set, else the terminal's locale (Slack's default stays zh: see Settings)."""
    return settings.files.lang if "lang" in settings.files.model_fields_set else locale_lang()


def load_settings(*, terminal: bool = True, **overrides: object) -> Settings:
    """Settings from the environment and .env, with the command's flags on top; exit 2 on a bad setting.

    For the terminal (`terminal`), the language is --lang, else GPU_ADVISOR_LANG, else the locale, so
    every message of one run is in one language.

    It also quiets the libraries' logs (warnings and below): a command prints what a person needs to know, and
    the logs are for `serve`, which sets its own. Every command that loads libraries that log comes here;
    advise's light start (terminal_settings) loads none and does not pay for `logging`."""
    import logging

    from pydantic import ValidationError

    from bot.settings import Settings, variable_of

    logging.basicConfig(level=logging.ERROR, format="%(message)s")

    lang = overrides.get("lang")
    try:
        settings = Settings()
    except ValidationError as exc:
        problems = "; ".join(f"{variable_of(e['loc'])}: {e['msg']}" for e in exc.errors())
        raise fail(t("cli.bad_config", lang if isinstance(lang, Lang) else locale_lang(), problems=problems)) from None
    given = {k: v for k, v in overrides.items() if v is not None}
    if terminal and lang is None:
        given["lang"] = terminal_lang(settings)
    return settings.with_flat(**given) if given else settings


@dataclass(frozen=True)
class TerminalFiles:
    lang: Lang
    policy: Path | None


@dataclass(frozen=True)
class TerminalSettings:
    """What `advise` needs of the settings when it prices nothing: the language and the policy file (read as
    Settings.files holds them)."""

    files: TerminalFiles


def terminal_settings(*, lang: Lang | None, policy: Path | None) -> TerminalSettings:
    """The language (--lang, else GPU_ADVISOR_LANG, else the locale) and the policy (--policy, else
    GPU_ADVISOR_POLICY), read from the environment over `.env` by the reader Settings uses
    (bot/settings/environment.py), without building Settings: the light start of a command that needs no more. Exit 2 on
    a bad language, as load_settings does."""
    from bot.settings.environment import environment

    values = environment()
    given = values.get("gpu_advisor_lang")
    if given is not None and given not in {str(code) for code in Lang}:
        problems = f"lang: Input should be {' or '.join(repr(str(code)) for code in Lang)}"
        raise fail(t("cli.bad_config", lang or locale_lang(), problems=problems))
    chosen = lang or (Lang(given) if given is not None else locale_lang())
    path = policy or (Path(values["gpu_advisor_policy"]) if values.get("gpu_advisor_policy") else None)
    return TerminalSettings(TerminalFiles(chosen, path))


def bundled_policy() -> Policy:
    """The bundled policy, validated once and then read from the cache (bot/cache.py)."""
    from bot.cache import cached
    from rules import policy

    sources = [policy.bundled_file(), Path(policy.__file__)]
    return cached("policy", sources, policy.load_policy)


def load_effective_policy(settings: Settings | TerminalSettings) -> Policy:
    try:
        from rules.policy import load_policy  # imported where a policy is read: not by the agent on a GPU box

        return load_policy(settings.files.policy) if settings.files.policy is not None else bundled_policy()
    except PolicyError as exc:
        raise fail(t("cli.policy_error", settings.files.lang, error=str(exc))) from None


def cards_flag(text: str, lang: Lang) -> int:
    """--cards as chat's cards= takes it (8, 8卡, 八张, 两台8卡); exit 2 naming the flag, its range or that a slice is
    --share."""
    from bot.fields.rentals import FieldError, cards_typed

    try:
        return cards_typed(text, lang)
    except FieldError as exc:
        if exc.message.startswith("`cards`: "):  # none, or more than any machine: that range
            raise fail("--cards: " + exc.message.removeprefix("`cards`: ")) from None
        raise fail(t("cli.whole_cards", lang, cards=text)) from None
