"""A message longer than a chat takes, parted into messages that each fit: between its lines, a line longer than a
whole message cut between its characters, nothing dropped. Each chat says what fits (its own rendering against its
own limit: Feishu's 30 KB card, WeCom's 4,096-byte markdown, Slack's 3,000-character section); a `list` of a
hundred machines was refused whole by Feishu and WeCom, and the person saw nothing.

A section with buttons (a digest's item and its answers) stays whole in one part; the title goes with the first
part, the message's own buttons and notes with the last."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from bot.chat.message import Message, Section
from bot.text.spans import CLOSE, OPEN

T = TypeVar("T")
_TOKEN = re.compile(f"{OPEN}[^{CLOSE}]*{CLOSE}|.", re.S)  # a span whole, or one character


def runs(units: Sequence[T], fits: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """`units` as consecutive runs [start, end), each the longest from where the last ended that `fits(start, end)`
    (found by halving: a few measures a part, not one a unit); a unit that does not fit alone is a run by itself."""
    found: list[tuple[int, int]] = []
    start = 0
    while start < len(units):
        low, high = start + 1, len(units)  # the end that fits is at least `low` (a unit alone goes anyway)
        while low < high:
            middle = (low + high + 1) // 2
            if fits(start, middle):
                low = middle
            else:
                high = middle - 1
        found.append((start, low))
        start = low
    return found


def cut_line(line: str, fits: Callable[[str], bool]) -> list[str]:
    """`line` as it is if it fits, else in pieces that each fit, cut between characters (never inside a span: a
    person, a link, data stay whole)."""
    if fits(line):
        return [line]
    tokens = _TOKEN.findall(line)
    pieces = runs(tokens, lambda start, end: fits("".join(tokens[start:end])))
    return ["".join(tokens[start:end]) for start, end in pieces]


def parted_text(text: str, fits: Callable[[str], bool]) -> list[str]:
    """`text` in parts that each fit, parted between its lines (a line too long alone cut between characters)."""
    if fits(text):
        return [text]
    lines = [piece for line in text.split("\n") for piece in cut_line(line, fits)]
    return [
        "\n".join(lines[start:end]) for start, end in runs(lines, lambda start, end: fits("\n".join(lines[start:end])))
    ]


def _units(message: Message, fits: Callable[[Message], bool]) -> list[Section]:
    """The message's sections, one line each where a section is only text (so that parts part between lines)."""
    sections = message.sections or (Section(message.text),)

    def alone(line: str) -> bool:
        return fits(replace(message, title=None, sections=(Section(line),), buttons=(), context=(), intent=None))

    units: list[Section] = []
    for section in sections:
        if section.buttons or section.item is not None:
            units.append(section)
            continue
        lines = "\n".join(text for text in (section.text, *section.fields) if text).split("\n")
        units += [Section(piece) for line in lines for piece in cut_line(line, alone)]
    return units


def _joined(units: Sequence[Section]) -> tuple[Section, ...]:
    """Consecutive lines of text as one section again (one block in the chat, as the message had it)."""
    out: list[Section] = []
    for unit in units:
        if out and not (unit.buttons or unit.item) and not (out[-1].buttons or out[-1].item):
            out[-1] = Section(f"{out[-1].text}\n{unit.text}")
        else:
            out.append(unit)
    return tuple(out)


def parted(message: Message, fits: Callable[[Message], bool]) -> list[Message]:
    """`message` as one or more messages that each fit (the first carries its title and its intent, the last its
    buttons and notes); a message with an image or a file goes whole."""
    if fits(message) or message.image is not None or message.file is not None:
        return [message]
    units = _units(message, fits)

    def part(start: int, end: int) -> Message:
        sections = _joined(units[start:end])
        last = end == len(units)
        return replace(
            message,
            text="\n".join(s.text for s in sections),
            title=message.title if start == 0 else None,
            sections=sections,
            buttons=message.buttons if last else (),
            context=message.context if last else (),
            intent=message.intent if start == 0 else None,
        )

    return [part(start, end) for start, end in runs(units, lambda start, end: fits(part(start, end)))]
