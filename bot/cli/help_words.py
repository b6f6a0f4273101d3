"""The terminal's help in the user's language: `gpu-advise … --help` in Chinese where the terminal speaks it.

The English is the code's own (each command's docstring, each option's `help=`, the listing's summaries); the
Chinese is bot/cli/help_zh.yaml, keyed by that English as written: gettext's model (the English is the message id),
without gettext's compiled .mo files and their build step, for one language and some 130 lines that the catalogue's
own YAML and cache (bot/cache.py) already read fast. A changed English text has no Chinese until it is translated,
and tests/cli/test_help_in_chinese.py fails until then.

typer cut a run of text wider than its help column with "…" (rich wraps only between words, and a Chinese sentence
is one word to it): the Chinese help lost words in an 80-column terminal, and so did long paths and addresses in
English. rich's answer is overflow="fold", which typer's help texts do not set and offer no setting for: `folding()`
sets it on each text typer makes for help (its `_make_rich_text`, typer<0.29 as pyproject pins it;
tests/cli/test_help_in_chinese.py reads every command's help at 80 columns and fails on a word lost). Folding breaks
between any two cells, so every Chinese help text is also said with a space after each full-width comma, colon,
semicolon, question mark and enumeration mark, and before a full-width bracket: it wraps there first. The translations
keep their clauses short and set Latin words and numbers apart with spaces, as Chinese technical writing does."""

from __future__ import annotations

import inspect
import re
from functools import cache
from pathlib import Path
from typing import Any

from bot.text.lang import Lang

SOURCE = Path(__file__).with_name("help_zh.yaml")
_BREAK = re.compile(r"(?<=[，：；？、])(?=\S)|(?<=[\u3400-\u9fff])(?=（)")


@cache
def chinese() -> dict[str, str]:
    """English help text -> its Chinese (read once, then from the cache)."""
    from bot.cache import cached

    return cached("help_zh", [SOURCE, Path(__file__)], _read)


def _read() -> dict[str, str]:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {str(k): str(v) for k, v in (yaml.load(SOURCE.read_text("utf-8"), Loader=loader) or {}).items()}


def breakable(text: str) -> str:
    """Chinese text that wraps after its full-width punctuation (the module's docstring says why)."""
    return _BREAK.sub(" ", text)


def folding() -> None:
    """Help texts fold a run wider than their column onto the next line instead of cutting it (the docstring)."""
    import typer.rich_utils
    from rich.text import Text

    made = typer.rich_utils._make_rich_text
    if getattr(made, "folds", False):
        return

    def folded(**parts: Any) -> Any:
        text = made(**parts)
        if isinstance(text, Text):
            text.overflow = "fold"
        return text

    folded.folds = True  # type: ignore[attr-defined]
    typer.rich_utils._make_rich_text = folded


def said(text: str, lang: Lang) -> str:
    """A help text (a docstring or an option's help) in `lang`: the English as it is, else its translation."""
    if lang is Lang.EN:
        return text
    return breakable(chinese().get(inspect.cleandoc(text), text))


def translate(command: Any, lang: Lang, ctx: Any) -> None:
    """Put `command` (a click command or group, as typer builds it) and everything under it in `lang`: its help and
    every parameter's, its --help option's too (click makes that one from `ctx`'s settings, once a command).
    Chinese already there (advise's questions) is only made breakable."""
    if lang is Lang.EN or command is None:
        return
    if command.help:
        command.help = said(command.help, lang)
    if getattr(command, "short_help", None):
        command.short_help = said(command.short_help, lang)
    for param in [*command.params, command.get_help_option(ctx)]:
        if getattr(param, "help", None):
            param.help = said(param.help, lang)
    for sub in getattr(command, "commands", {}).values():
        translate(sub, lang, ctx)


def asks_help(args: list[str], groups: set[str]) -> bool:
    """Whether this command line prints help: `--help`, nothing at all, or a group named with no command after it
    (`gpu-advise track`). Only then is the help translated: a command that runs pays nothing for it."""
    words = [arg for arg in args if not arg.startswith("-")]
    return "--help" in args or not words or (words[0] in groups and len(words) == 1)
