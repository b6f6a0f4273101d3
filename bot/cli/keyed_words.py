"""Chat's `key=value` words in the terminal, as the flags they stand for: `gpu-advise quote gpu=H100 hours=4x14`,
`billing box provider=autodl`, `track box H100 60/h 项目=llm`, `act C1 stop grace=4h`. Each command's help, a chat's
help and the bot's own hints say them so, and the terminal refused them as words it did not read. One reader for
every command that takes them: a key its command does not know is refused listing the keys it does, and a key whose
flag was given too is refused as given twice (typer would keep the last silently)."""

from __future__ import annotations

from typing import Any

from bot.cli.common import fail
from bot.text import Lang, t


def keyed_words(
    words: list[str],
    lang: Lang,
    given: dict[str, Any],
    keys: dict[str, str],
    command: str,
    *,
    flags: dict[str, str] | None = None,
) -> list[str]:
    """`words` without their `key=value` pairs, each value set in `given` (in place) under the field its key names in
    `keys`; exit 2 for a key naming no field of `given`, and for a field given already (not None). `flags`: a field's
    flag where it is not --FIELD, as errors name it."""
    rest = []
    for word in words:
        key, sep, value = word.partition("=")
        if not sep:
            rest.append(word)
            continue
        field = keys.get(key.strip().lower())
        if field is None or field not in given:
            known = ", ".join(sorted(k for k, f in keys.items() if f in given))
            raise fail(f"{command}: " + t("error.inline.unknown_key", lang, key=key, keys=known))
        if given[field] is not None:
            flag = (flags or {}).get(field) or "--" + field.replace("_", "-")
            raise fail(t("cli.words_twice", lang, command=command, flag=flag))
        given[field] = value
    return rest
