"""`/gpu-advise 10h mem=70/80 mp=no freq=daily resume=no ...`: every answer in the command text.

The answer keys come from the one table of fields (bot/fields/answers.py); errors carry a catalogue id
(`error.inline.<code>`) so they reach the user in their language.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Callable

from bot.fields.answers import BY_INLINE_KEY

KEYS: dict[str, str] = {name: field.key for name, field in BY_INLINE_KEY.items()}
QUOTE_KEYS = {
    "gpu": "gpu",
    "hours": "schedule",
    "schedule": "schedule",
    "share": "share",
    "cards": "cards",
    "region": "region",
    "currency": "currency",
    "卡型": "gpu",
    "计划": "schedule",
    "卡数": "cards",
    "storage": "storage_gb",
    "storage_price": "storage_price",
    "egress": "egress_gb",
    "egress_price": "egress_price",
    "存储": "storage_gb",
    "流量": "egress_gb",
    "provider": "provider",
    "供应商": "provider",
    "compare": "compare",
    "比较": "compare",
    "gpu_hours": "gpu_hours",  # the terminal's --gpu-hours: a total instead of hours=HxD
    "gpu-hours": "gpu_hours",
    "卡时": "gpu_hours",
}
# compare= in a quote: yes for every provider's price, no (or left out) for the cheapest (chat's and the terminal's)
COMPARE_YES, COMPARE_NO = ("yes", "y", "true", "1", "是", "要"), ("no", "n", "false", "0", "否", "不")


class InlineError(ValueError):
    """The command text could not be split into answers: `code` and `params` say why (error.inline.<code>)."""

    def __init__(self, code: str, **params: str) -> None:
        super().__init__(f"{code}: {params}")
        self.code = code
        self.params = params


_APOSTROPHE = re.compile(r"(?<=[A-Za-z])'(?=[A-Za-z])")  # what's, I'd, who's: a letter on either side


def split(text: str) -> list[str]:
    """The words of a line, quotes grouping (`dur="about 10 hours"`). An apostrophe inside a word is a letter of
    it, not a quote: `what's idle` was refused as an unclosed quote, and `what's idle, it's late` read as one
    quoted span. Inside double quotes it is left as it is."""
    norm = unicodedata.normalize("NFKC", text).replace("“", '"').replace("”", '"')
    parts = re.split(r'("[^"]*")', norm)  # the double-quoted spans, kept apart
    kept = "".join(part if part.startswith('"') else _APOSTROPHE.sub("\\'", part) for part in parts)
    try:
        return shlex.split(kept)
    except ValueError:
        raise InlineError("unclosed_quote") from None


def parse_pairs(
    tokens: list[str],
    keys: dict[str, str],
    *,
    positional: str | None = None,
    fits: Callable[[str], bool] | None = None,
    words: bool = False,
) -> tuple[dict[str, str], dict[str, str]]:
    """`key=value` tokens (and one bare token for `positional`) into ({field: text}, {field: the key as
    typed}), so an error can name the key the user wrote. With `words` (values in words: `mem=7B LoRA`, `dur=about
    10 hours`, `gpu=A100 80G`, typed without quotes), a bare word after a pair is more of its value, unless it is the
    positional answer (`fits` says it reads as one) and that is not given yet."""
    out: dict[str, str] = {}
    typed: dict[str, str] = {}
    known = ", ".join(sorted(set(keys)))
    last: str | None = None
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep:
            if positional and positional not in out and (fits is None or last is None or fits(token)):
                out[positional], typed[positional] = token, token
                last = None  # a bare answer is one word: what follows it bare is not more of it
                continue
            if words and last is not None:
                out[last] += " " + token
                continue
            raise InlineError("not_a_pair", token=token, keys=known)
        field = keys.get(key.strip().lower())
        if field is None:
            raise InlineError("unknown_key", key=key, keys=known)
        if field in out:
            raise InlineError("twice", key=key)
        out[field], typed[field] = value.strip(), key.strip()
        last = field
    return out, typed


def is_duration(token: str) -> bool:
    """Whether a word is a run's length (`10h`, `两小时`): the first answer, which needs no key."""
    from rules.errors import ParseError
    from rules.parsing import parse_duration

    try:
        parse_duration(token)
    except ParseError:
        return False
    return True


def is_inline(tokens: list[str]) -> bool:
    """Answers given in one line (`10h mem=70/80 …`): a key=value, or a run's length first."""
    return bool(tokens) and ("=" in tokens[0] or is_duration(tokens[0]))


def answers_of(tokens: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Answers typed in one line, by field (the run's length first needs no key), and the key each was typed with;
    InlineError for what is no answer (an unknown key, one given twice)."""
    return parse_pairs(tokens, KEYS, positional="duration", fits=is_duration, words=True)
