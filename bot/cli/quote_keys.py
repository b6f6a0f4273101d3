"""`gpu-advise quote gpu=A100 hours=4x14 cards=8`: the keys chat's quote takes (QUOTE_KEYS in bot/chat/inline.py,
`hours=`, `卡型=`, `compare=yes`, `storage=500`, …) as the flags they stand for. A chat's `help` shows the keys, and
a line copied from it into the terminal was refused ("`gpu=H100 hours=4x14 cards=8` is not read"). A key given as a
flag too is refused naming the flag, as a word given twice is."""

from __future__ import annotations

from typing import Any

from bot.cli.common import fail
from bot.text import Lang, t

# the fields the flags `quote` reads its GPU, schedule, slice and currency from (the words' own fields)
_GIVEN = ("gpu", "schedule", "share", "cards", "currency", "gpu_hours")
_NUMBERS = frozenset(("storage_gb", "storage_price", "egress_gb", "egress_price", "gpu_hours"))
_UNSET: dict[str, Any] = {"cards": "1", "storage_gb": 0, "egress_gb": 0}  # the flags' defaults: not given


def keyed(
    words: list[str], lang: Lang, given: dict[str, Any], extras: dict[str, Any], compare: bool
) -> tuple[list[str], bool]:
    """The words without their key=value pairs, each pair set in `given` or `extras` (in place) as its flag would
    be, and whether a comparison is asked (`compare=yes`); exit 2 naming a key not known, a value not read, or a
    key given as its flag too."""
    from bot.chat import inline

    try:
        fields, typed = inline.parse_pairs([w for w in words if "=" in w], inline.QUOTE_KEYS)
    except inline.InlineError as exc:
        raise fail("quote: " + t(f"error.inline.{exc.code}", lang, **exc.params)) from None
    for field, value in fields.items():
        if field == "compare":
            if value.strip().lower() not in inline.COMPARE_YES + inline.COMPARE_NO:
                raise fail("quote: " + t("error.bad_compare", lang, value=value[:20]))
            compare = compare or value.strip().lower() in inline.COMPARE_YES
            continue
        into = given if field in _GIVEN else extras
        if into.get(field) not in (None, _UNSET.get(field)):
            raise fail(t("cli.words_twice", lang, command="quote", flag="--" + field.replace("_", "-")))
        into[field] = _number(typed[field], value, lang) if field in _NUMBERS else value
    return [w for w in words if "=" not in w], compare


def _number(key: str, value: str, lang: Lang) -> float:
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if number < 0 or number != number:  # not a number, negative, or NaN
        raise fail("quote: " + t("cli.key_not_number", lang, key=key, value=value[:20]))
    return number
