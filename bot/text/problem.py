"""A problem said in one line, in either language.

A Problem is a str holding its English sentence, so logs, /healthz, stored details and every comparison keep
working as they did; `said(lang)` gives it in the reader's language (a Chinese team's digest thread, a terminal
set to zh). A cloud's own words inside it (an error message) stay as the cloud said them."""

from __future__ import annotations

from bot.text.catalogue import t
from bot.text.lang import Lang


class Problem(str):
    key: str
    params: dict[str, object]

    def __new__(cls, key: str, /, **params: object) -> Problem:
        made = super().__new__(cls, t(key, Lang.EN, **params))
        made.key, made.params = key, params
        return made

    def said(self, lang: Lang | str) -> str:
        return t(self.key, Lang(lang), **{name: said(value, lang) for name, value in self.params.items()})


def said(text: object, lang: Lang | str) -> object:
    """`text` in `lang` where it is a Problem; anything else as it is."""
    return text.said(lang) if isinstance(text, Problem) else text
