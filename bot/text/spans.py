"""The spans of a neutral text that are not the catalogue's own words: a person, a channel, a link, and data (a name
from a cloud tag, a line of a file, what someone typed). Each is a mark between two private-use characters, which no
catalogue text, user or file can write (what data holds of them is dropped), so a chat's wing finds every span
exactly and renders it its own way: Slack as <@U…>, <#C…>, <url|label> with its &, <, > escaping; Feishu as
<at id=…></at>, [label](url); the terminal as plain words. The catalogue's emphasis and code (*bold*, _italic_,
`code`) are the authored markup around them, translated by each wing too.

No library does this: the marks are the neutral message's own small format, and one regular expression reads it."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

OPEN, CLOSE = "\ue000", "\ue001"
_MARK = re.compile(f"{OPEN}([@#>=])([^{OPEN}{CLOSE}]*){CLOSE}")


def _clean(text: object) -> str:
    return str(text).replace(OPEN, "").replace(CLOSE, "")


def mention(user: str) -> str:
    """A person (Slack U…, Feishu ou_…), as the chat shows one (a mention, an <at>, a name)."""
    return f"{OPEN}@{_clean(user)}{CLOSE}"


def channel_ref(channel: str) -> str:
    """A channel, as the chat links one (Slack's #channel; Feishu, which has no such link: its id)."""
    return f"{OPEN}#{_clean(channel)}{CLOSE}"


def link(url: str, label: str) -> str:
    """A link with its label (the url has no space: the first space ends it)."""
    return f"{OPEN}>{_clean(url).replace(' ', '%20')} {_clean(label)}{CLOSE}"


def literal(text: object) -> str:
    """Data shown as it is: never a mention, a link or markup in any chat (`<!channel>` in a tag never pings)."""
    return f"{OPEN}={_clean(text)}{CLOSE}"


def literal_of(text: str) -> str | None:
    """The data of a text that is one literal span and nothing else; None for any other text."""
    found = _MARK.fullmatch(text)
    return found.group(2) if found and found.group(1) == "=" else None


@dataclass(frozen=True)
class Renderer:
    """How one chat writes each span; `words` is what it does to the text around them (its escaping, its emphasis)."""

    mention: Callable[[str], str]
    channel: Callable[[str], str]
    link: Callable[[str, str], str]
    literal: Callable[[str], str]
    words: Callable[[str], str] = str


def render(text: str, how: Renderer) -> str:
    """`text` with every span written as `how` writes it, and the words between as `how.words` writes them."""
    out: list[str] = []
    at = 0
    for found in _MARK.finditer(text):
        out.append(how.words(text[at : found.start()]))
        kind, body = found.group(1), found.group(2)
        if kind == "@":
            out.append(how.mention(body))
        elif kind == "#":
            out.append(how.channel(body))
        elif kind == ">":
            url, _, label = body.partition(" ")
            out.append(how.link(url, label or url))
        else:
            out.append(how.literal(body))
        at = found.end()
    out.append(how.words(text[at:]))
    return "".join(out)


def mentioned(text: str) -> list[str]:
    """The people `text` mentions, in order."""
    return [found.group(2) for found in _MARK.finditer(text) if found.group(1) == "@"]


PLAIN = Renderer(
    mention=lambda user: f"@{user}", channel=lambda c: f"#{c}", link=lambda u, lb: f"{lb} ({u})", literal=str
)


def plain_text(text: str) -> str:
    """`text` for a place with no markup (a log line, the terminal): each span as its words."""
    return render(text, PLAIN)
