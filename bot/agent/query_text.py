"""The indented `Key : Value` layout of a card tool's full query in text (nvidia-smi -q and the tools modelled on
it, such as `mthreads-gmi -q`), read into the nested mapping its JSON form gives:

    Driver Version                    : 2.7.0
    Attached GPUs                     : 2
    GPU 00000000:2a:00.0
        Index                         : 0
        Product Name                  : MTT S4000
        FB Memory Usage
            Total                     : 49152MiB

becomes {"Driver Version": "2.7.0", "Attached GPUs": "2", "GPU": [{"Index": "0", "Product Name": "MTT S4000",
"FB Memory Usage": {"Total": "49152MiB"}}]}. A line with `:` followed by a space (or by nothing) is a key and its
value (the value may hold colons: a time, a bus id); a line without is the header of the lines indented under it.
A card starts at a header `GPU <bus id>`, `GPU <n>` or `GPU[<n>]` at the outermost indentation, and runs to the
next one whatever its own lines' indentation (some builds do not indent a card's lines). No library reads this
layout: it is each vendor's own printout, and the few lines here are what reading it takes."""

from __future__ import annotations

import re
from typing import Any

_PAIR = re.compile(r"^(?P<key>.+?)\s*:(?:\s+(?P<value>.*?))?\s*$")
_CARD = re.compile(r"^GPU(?:\s+[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]|\s+\d+|\s*\[\d+\])$")


def as_tree(text: str) -> dict[str, Any]:
    """The query's keys, sections and cards (under "GPU", a list, in the order printed)."""
    lines = [(len(line) - len(line.lstrip()), line.strip()) for line in text.expandtabs().splitlines()]
    lines = [(indent, said) for indent, said in lines if said and not set(said) <= set("=-")]
    outer = min((indent for indent, _ in lines), default=0)
    root: dict[str, Any] = {}
    block: list[tuple[int, str]] = []
    cards: list[dict[str, Any]] = []
    for indent, said in lines:
        if indent == outer and _CARD.match(said):
            _fill(cards[-1] if cards else root, block)
            cards.append({})
            block = []
        else:
            block.append((indent, said))
    _fill(cards[-1] if cards else root, block)
    if cards:
        root["GPU"] = cards
    return root


def _fill(into: dict[str, Any], lines: list[tuple[int, str]]) -> None:
    """Each key into the section it is indented under (a header's section holds the lines indented past it)."""
    open_sections: list[tuple[int, dict[str, Any]]] = [(-1, into)]
    for indent, said in lines:
        while len(open_sections) > 1 and indent <= open_sections[-1][0]:
            open_sections.pop()
        here = open_sections[-1][1]
        pair = _PAIR.match(said)
        if pair is not None and pair.group("value") is not None:
            here.setdefault(pair.group("key"), pair.group("value"))
            continue
        section: dict[str, Any] = {}
        here.setdefault((pair.group("key") if pair else said), section)
        open_sections.append((indent, section))
