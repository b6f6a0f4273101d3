"""The text catalogue: every sentence a user can see, in Chinese and English, keyed by id.

The catalogue is the YAML files beside this module (one per area: decision, questions, quote,
slack, cli, errors), merged into one table; a key may appear in one file only. `t(key, lang,
**params)` is the one formatter: numbers go through `show` (no trailing zeros, thousands
separators), and a string parameter that names a word of the catalogue (`word.<value>`) is
translated, so `{workload}` reads 全参微调 in Chinese.
"""

from __future__ import annotations

import string
from functools import cache
from pathlib import Path
from typing import Any

from bot.text.format import show
from bot.text.lang import Lang
from bot.text.spans import literal, literal_of
from rules.patterns import lazy

# The package's own folder, not importlib.resources: importing that (its readers, tempfile, random) was 4-5 ms of
# every start, and the package is always installed as files (a wheel or an editable install, never a zip)
HERE = Path(__file__).parent
FILES = ("decision", "questions", "quote", "slack", "cli", "errors", "digest", "feishu", "board")


class CatalogueError(RuntimeError):
    """A catalogue file is broken (a bug: the tests load every file)."""


@cache
def entries() -> dict[str, dict[Lang, str]]:
    """Every key of every catalogue file, with its text in each language (read once, then from the cache)."""
    from bot.cache import cached

    sources = [HERE / f"{name}.yaml" for name in FILES] + [HERE / "catalogue.py"]
    return cached("catalogue", sources, read_entries)


def read_entries() -> dict[str, dict[Lang, str]]:
    """Every key of every catalogue file, read from the YAML files."""
    import yaml  # only where the files are read: a start from the cache needs no YAML

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present
    table: dict[str, dict[Lang, str]] = {}
    for name in FILES:
        text = (HERE / f"{name}.yaml").read_text("utf-8")
        for key, texts in (yaml.load(text, Loader=loader) or {}).items():
            if key in table:
                raise CatalogueError(f"{name}.yaml: {key!r} is defined twice")
            if not isinstance(texts, dict) or set(texts) != {"en", "zh"}:
                raise CatalogueError(f"{name}.yaml: {key!r} needs exactly en and zh")
            table[key] = {Lang(lang): str(value) for lang, value in texts.items()}
    return table


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def has(key: str) -> bool:
    return key in entries()


def _param(value: object, lang: Lang, table: dict[str, dict[Lang, str]]) -> str:
    if isinstance(value, str):
        word = table.get(f"word.{value}")
        return word[lang] if word else value
    return show(value)  # type: ignore[arg-type]


class _Formatter(string.Formatter):
    """str.format, except that {x!r} of data (a literal span) quotes the data and keeps it a span."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        data = literal_of(value) if conversion == "r" and isinstance(value, str) else None
        return literal(repr(data)) if data is not None else super().convert_field(value, conversion)


_FORMATTER = _Formatter()
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"  # CJK punctuation, ideographs, full-width forms
_CJK_GAP = lazy(f"(?<=[{_CJK}])[ ]+(?=[{_CJK}])")


def tw(key: str, lang: Lang, where: str, /, **params: object) -> str:
    """t() of the sentence's variant for `where` ("chat": a chat's way, no terminal command), if it has one."""
    return t(f"{key}.{where}" if has(f"{key}.{where}") else key, lang, **params)


def t(key: str, lang: Lang, /, **params: object) -> str:
    """The text of `key` in `lang`, with `params` filled in. KeyError for an unknown key (a bug).

    In Chinese, a space left between two Chinese characters (a template's space beside a word put in,
    such as 全参微调) is dropped; spaces beside Latin letters and digits stay, and so does every space inside a
    `code span`: a command to type (`balance 平台 金额`) needs its spaces."""
    table = entries()
    template, values = table[key][lang], {name: _param(value, lang, table) for name, value in params.items()}
    text = _FORMATTER.format(template, **values) if "!r}" in template else template.format(**values)
    return _closed(text) if lang is Lang.ZH else text


def _closed(text: str) -> str:
    """`text` without the spaces between Chinese characters, outside its `code spans` (t() says why)."""
    if "`" not in text:
        return _CJK_GAP.sub("", text)
    parts = text.split("`")  # even: prose, odd: inside a code span
    return "`".join(_CJK_GAP.sub("", part) if i % 2 == 0 else part for i, part in enumerate(parts))
