"""The neutral text (bot/text/spans.py) as Feishu writes it: in a card's markdown, **bold**, *italic*, `code`,
<at id=…></at> for a person, [label](url) for a link, a channel as "this chat" (Feishu has no link to a chat; a line
names the chat it is posted in), data with
&, < and > escaped (so no <at> or <font> is written by a tag or a typed line); in plain text (a card's title, a
button, a toast), the same spans as words."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from functools import cache

from bot.text import Lang, t
from bot.text.spans import PLAIN, Renderer, render

_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")


def _escaped(text: str) -> str:
    return html.escape(text, quote=False)  # &, < and >


@cache
def _feishu(lang: Lang) -> Renderer:
    return Renderer(
        mention=lambda user: f"<at id={_escaped(user)}></at>",
        channel=lambda _chat: t("feishu.this_chat", lang),
        link=lambda url, label: f"[{label.replace(']', ')')}]({url.replace(')', '%29')})",
        literal=_escaped,
    )


def markdown(text: str, lang: Lang = Lang.EN) -> str:
    """A neutral text in a card's markdown: the emphasis first (its marks are not spaces, so *{name}* stays bold
    around a name), then each span."""
    text = _ITALIC.sub(lambda m: f"\x00{m.group(1)}\x00", text)  # italic first: its * must not look bold
    text = _BOLD.sub(lambda m: f"**{m.group(1)}**", text).replace("\x00", "*")
    return render(text, _feishu(lang))


@cache
def _plain(lang: Lang) -> Renderer:
    return replace(PLAIN, channel=lambda _chat: t("feishu.this_chat", lang))


def plain(text: str, lang: Lang = Lang.EN) -> str:
    return render(text, _plain(lang))
