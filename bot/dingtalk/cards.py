"""Neutral messages as DingTalk cards: DingTalk's public markdown-and-buttons card template (the one the official
Stream SDK's MarkdownButtonCardInstance sends), its parameters `title`, `markdown`, `tips` and the buttons in
`sys_full_json_obj.msgButtons`. A button is a callback button whose value carries the core's action id and value
(bot/app/buttons.py): a press comes back on the Stream connection's card topic with them in
`cardPrivateData.params`.

DingTalk shows a card in one language to every reader: the message's (a profile's, a channel's digest language, or
the language a command was typed in). Text is the neutral text (bot/text/spans.py) as DingTalk's markdown writes
it: **bold**, *italic*, `code`, [label](url), a person as @their name, data with markdown's marks escaped."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

from bot.chat.message import Button, Message
from bot.chat.port import Say
from bot.chat.profile_messages import Question
from bot.dingtalk.words import line, said_in_dingtalk
from bot.text import Lang
from bot.text.spans import PLAIN, Renderer, render
from rules.questions import steps

TEMPLATE = "1366a1eb-bc54-4859-ac88-517c56a9acb1.schema"  # DingTalk's markdown card with buttons
BUTTON_COLOR = {"primary": "blue", "danger": "red"}
MAX_BUTTONS = 24  # a digest's items each with their answers; more are answered by typing `list`

_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_ITALIC = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_MARKS = re.compile(r"([\\`*_\[\]<>#|])")


def _escaped(text: str) -> str:
    return _MARKS.sub(r"\\\1", text)


def markdown(text: str, name_of: Callable[[str], str]) -> str:
    """A neutral text in DingTalk's markdown; `name_of` names a person (their nick, else their userId)."""
    text = _ITALIC.sub(lambda m: f"\x00{m.group(1)}\x00", text)
    text = _BOLD.sub(lambda m: f"**{m.group(1)}**", text).replace("\x00", "*")
    how = Renderer(
        mention=lambda user: "@" + _escaped(name_of(user)),
        channel=lambda _c: "this group",
        link=lambda url, label: f"[{label.replace(']', ')')}]({url.replace(')', '%29')})",
        literal=_escaped,
    )
    return render(said_in_dingtalk(text), how).replace("\n", "  \n")  # a line break in DingTalk's markdown


def plain(text: str, name_of: Callable[[str], str]) -> str:
    from dataclasses import replace

    return render(said_in_dingtalk(text), replace(PLAIN, mention=lambda user: "@" + name_of(user)))


def button_value(action: str, value: str) -> str:
    return json.dumps({"action": action, "value": value}, ensure_ascii=False, separators=(",", ":"))


def pressed(params: dict[str, Any]) -> tuple[str, str]:
    """A press's action and value, from the callback's cardPrivateData.params (the button's value, read back)."""
    if "action" not in params and isinstance(params.get("value"), str):
        try:
            params = json.loads(params["value"])
        except ValueError:
            return "", ""
    return str(params.get("action") or ""), str(params.get("value") or "")


def _button(button: Button, name_of: Callable[[str], str], item: str | None = None) -> dict[str, str]:
    """A callback button; a digest item's is named after its item (one card holds every item's answers)."""
    return {
        "text": plain(f"{button.label} · {item}" if item else button.label, name_of),
        "color": BUTTON_COLOR.get(button.style or "", "gray"),
        "actionType": "callback",
        "value": button_value(button.action, button.value),
    }


def card_params(message: Message, name_of: Callable[[str], str]) -> dict[str, str]:
    """The template's parameters for `message`: its sections (and their fields) as markdown, its context as tips,
    every button (a section's named after its item)."""
    md = partial(markdown, name_of=name_of)
    blocks = ["  \n".join(md(line) for line in (section.text, *section.fields)) for section in message.sections]
    buttons: list[dict[str, str]] = []
    for section in message.sections:
        item = section.item[1] if section.item else None
        buttons += [_button(b, name_of, item) for b in section.buttons]
    buttons += [_button(b, name_of) for b in message.buttons]
    tips = [md(text) for text in message.context]
    if isinstance(message.intent, Question) and message.intent.step.ask.key == steps({})[0].ask.key:
        tips.append(line("reply_mention", message.lang))  # how to answer in words, said once: on the first
    # every key each time, none left out: a card is updated by key (updateCardDataByKey), so a key left out would
    # keep its old value, the buttons of items already answered among them
    return {
        "title": plain(message.title or "", name_of),
        "markdown": "\n\n".join(block for block in blocks if block) or md(message.text),
        "tips": "  \n".join(tips),
        "sys_full_json_obj": json.dumps({"msgButtons": buttons[:MAX_BUTTONS]}, ensure_ascii=False),
    }


def card(say: Say, lang: Lang, name_of: Callable[[str], str]) -> dict[str, str]:
    return card_params(say(lang), name_of)
