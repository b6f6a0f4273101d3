"""Neutral messages as WeCom messages: one with buttons is a template card (`button_interaction`: a title, the
text, at most 6 buttons, WeCom's limit), each button's key carrying the core's action id and value; one without
is markdown. A card changed after a click that leaves it without buttons is a `text_notice` card, whose required
action opens GPU_ADVISOR_PUBLIC_URL where it is set (else WeCom's site). WeCom shows one language to every reader:
the message's. Card texts are plain (WeCom's cards show no markdown); a markdown message writes **bold**, `code`
and [label](url)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bot.chat.message import Button, Message
from bot.chat.profile_messages import Question
from bot.text.spans import PLAIN, Renderer, render
from bot.wecom.words import line, said_in_wecom
from rules.questions import steps

MAX_BUTTONS = 6  # WeCom's button_interaction card holds 1 to 6 buttons
# WeCom's markdown content: "最长不超过4096个字节，必须是utf8编码" (its robot message docs; errcode 40058 past it)
MARKDOWN_BYTES = 4096
STYLE = {"primary": 1, "danger": 3}  # WeCom's button styles: 1 blue, 2 grey (the rest), 3 red
_BOLD = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])")
_MARKS = re.compile(r"(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")


def plain(text: str, name_of: Callable[[str], str] = lambda user: user) -> str:
    text = _BOLD.sub(r"\1", _MARKS.sub(r"\1", said_in_wecom(text))).replace("`", "")
    return render(text, replace(PLAIN, mention=lambda user: "@" + name_of(user)))


def markdown(text: str) -> str:
    text = _BOLD.sub(r"**\1**", said_in_wecom(text))
    how = Renderer(
        mention=lambda user: f"<@{user}>",
        channel=lambda _c: "this group chat",
        link=lambda url, label: f"[{label.replace(']', ')')}]({url.replace(')', '%29')})",
        literal=lambda value: str(value).replace("<", "&lt;").replace(">", "&gt;"),
    )
    return render(text, how)


def key_of(action: str, value: str) -> str:
    return json.dumps({"a": action, "v": value}, ensure_ascii=False, separators=(",", ":"))


def pressed(key: str) -> tuple[str, str]:
    try:
        found = json.loads(key)
    except ValueError:
        return "", ""
    return (str(found.get("a") or ""), str(found.get("v") or "")) if isinstance(found, dict) else ("", "")


def _buttons(message: Message) -> list[tuple[Button, str | None]]:
    """The buttons a card shows: all, or past WeCom's six, on a card of several items (a digest) each item's first
    answers before any item's second, dearest first (three idle boxes: Released for each, then the first box's
    Still needed, ...), and on any other card the first five and the last (a question's Skip). A digest's card
    showed the first box's four answers, one of the second's and the last box's Stopped: the other boxes had no
    Released. Any item is still answered in words (`release NAME`), as the card's note says."""
    groups = [[(b, s.item[1] if s.item else None) for b in s.buttons] for s in message.sections if s.buttons]
    groups += [[(b, None) for b in message.buttons]] if message.buttons else []
    found = [pair for group in groups for pair in group]
    if len(found) <= MAX_BUTTONS:
        return found
    if sum(1 for s in message.sections if s.item and s.buttons) < 2:
        return [*found[: MAX_BUTTONS - 1], found[-1]]
    ranked = sorted(((depth, n) for n, group in enumerate(groups) for depth in range(len(group))))
    kept = set(ranked[:MAX_BUTTONS])
    return [pair for n, group in enumerate(groups) for depth, pair in enumerate(group) if (depth, n) in kept]


def _text(message: Message) -> str:
    lines = [text for s in message.sections for text in (s.text, *s.fields)] or [message.text]
    notes = list(message.context)
    if isinstance(message.intent, Question) and message.intent.step.ask.key == steps({})[0].ask.key:
        notes.append(line("reply_mention", message.lang))
    return "\n".join(plain(text) for text in (*lines, *notes) if text)


def has_buttons(message: Message) -> bool:
    return bool(_buttons(message))


def template_card(message: Message, task_id: str, link: str) -> dict[str, Any]:
    title = plain(message.title or "GPU Advisor")
    card: dict[str, Any] = {"main_title": {"title": title}, "sub_title_text": _text(message), "task_id": task_id}
    buttons = _buttons(message)
    if not buttons:
        return {"card_type": "text_notice", **card, "card_action": {"type": 1, "url": link}}
    button_list = [
        {
            "text": plain(f"{b.label} · {item}" if item else b.label),
            "style": STYLE.get(b.style or "", 2),
            "key": key_of(b.action, b.value),
        }
        for b, item in buttons
    ]
    return {"card_type": "button_interaction", **card, "button_list": button_list}


def body_of(message: Message, task_id: str, link: str) -> dict[str, Any]:
    """What is sent: a template card when the message has buttons, else markdown."""
    if has_buttons(message):
        return {"msgtype": "template_card", "template_card": template_card(message, task_id, link)}
    texts = [markdown(message.title)] if message.title else []
    texts += [markdown(t) for s in message.sections for t in (s.text, *s.fields)] or [markdown(message.text)]
    texts += [markdown(t) for t in message.context]
    return {"msgtype": "markdown", "markdown": {"content": "\n".join(texts)}}


def fits(message: Message) -> bool:
    """Whether WeCom takes `message` as one message: a card (WeCom wraps its text), or markdown within 4,096 bytes."""
    body = body_of(message, "", "")
    return body["msgtype"] != "markdown" or len(body["markdown"]["content"].encode()) <= MARKDOWN_BYTES
