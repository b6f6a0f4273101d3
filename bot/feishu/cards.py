"""Neutral messages as Feishu message cards (JSON 2.0): every text in zh_cn and en_us (`i18n_content`, with
`config.locales`), so each reader's Feishu shows their own language; buttons whose callback value carries the
core's action id and value; `update_multi`, so an updated card changes for everyone in the chat.

Text comes as the neutral text (the catalogue's *bold*, _italic_, `code` and the spans of bot/text/spans.py) and is
written as Feishu markdown by markup.py."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from bot.chat.message import Button, Message
from bot.chat.parting import parted
from bot.chat.port import Say
from bot.chat.profile_messages import Question
from bot.feishu.markup import markdown, plain
from bot.feishu.words import said_in_feishu
from bot.text import Lang, t
from rules.questions import steps

LOCALE = {Lang.ZH: "zh_cn", Lang.EN: "en_us"}
# Feishu takes a card of at most 30 KB ("卡片及富文本消息请求体最大不能超过30KB", im/v1/messages create; code 230025
# past it); a kilobyte is left for the rest of the request (receive_id, uuid, msg_type)
CARD_BYTES = 29 * 1024
MOST_PARTS = 99  # a part number as long as any a message's parts carry (measured with, not after: `_fits`)


def _texts(versions: dict[Lang, str], first: Lang, md: bool = True) -> dict[str, Any]:
    shown = {
        LOCALE[lang]: markdown(said_in_feishu(text), lang) if md else plain(said_in_feishu(text), lang)
        for lang, text in versions.items()
    }
    return {"content": shown[LOCALE[first]], "i18n_content": shown}


def _pick(messages: dict[Lang, Message], get: Any) -> list[dict[Lang, Any]]:
    """Element i of each language's message, where every language has one (else the first language's only)."""
    first = next(iter(messages.values()))
    out = []
    for i, item in enumerate(get(first)):
        out.append({lang: (get(m)[i] if i < len(get(m)) else item) for lang, m in messages.items()})
    return out


def _buttons(rows: dict[Lang, tuple[Button, ...]], lang: Lang) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i, button in enumerate(rows[lang]):
        labels = {k: (b[i].label if i < len(b) else button.label) for k, b in rows.items()}
        out.append(
            {
                "tag": "button",
                "text": {"tag": "plain_text"} | _texts(labels, lang, md=False),
                "type": {"primary": "primary", "danger": "danger"}.get(button.style or "", "default"),
                "behaviors": [{"type": "callback", "value": {"action": button.action, "value": button.value}}],
            }
        )
    return out


def one_language(text: str, lang: Lang) -> dict[str, Any]:
    """A card of one line in one language: what Feishu's ephemeral card takes (it refuses texts translated per
    element, the i18n_content card() gives each)."""
    element = {"tag": "markdown", "content": markdown(said_in_feishu(text), lang)}
    return {"schema": "2.0", "body": {"elements": [element]}}


def card(say: Say, lang: Lang) -> dict[str, Any]:
    """The card for `say`, in `lang` first and in every other language the catalogue has; a message said in one
    language only (a command's answer, in the language it was typed in) is shown in that one to every reader."""
    order = [lang, *(other for other in Lang if other is not lang)]
    messages = {each: say(each) for each in order}
    messages = {each: m for each, m in messages.items() if each is lang or m.lang is each}
    order = list(messages)
    first = messages[lang]
    elements: list[dict[str, Any]] = []
    for versions in _pick(messages, lambda m: m.sections):
        texts = {k: "\n".join([s.text, *s.fields]) for k, s in versions.items()}
        elements.append({"tag": "markdown", **_texts(texts, lang)})
        elements += _buttons({k: s.buttons for k, s in versions.items()}, lang)
    elements += _buttons({k: m.buttons for k, m in messages.items()}, lang)
    for versions in _pick(messages, lambda m: m.context):
        elements.append({"tag": "markdown", "text_size": "notation", **_texts(dict(versions), lang)})
    if isinstance(first.intent, Question) and first.intent.step.ask.key == steps({})[0].ask.key:  # how to answer
        notes = {each: t("feishu.reply_mention", each) for each in messages}
        elements.append({"tag": "markdown", "text_size": "notation", **_texts(notes, lang)})
    body: dict[str, Any] = {
        "schema": "2.0",
        "config": {"update_multi": True, "locales": [LOCALE[each] for each in order]},
        "body": {"elements": elements},
    }
    if first.title:
        titles = {k: m.title or first.title for k, m in messages.items()}
        body["header"] = {"title": {"tag": "plain_text", **_texts(titles, lang, md=False)}, "template": "blue"}
    return body


def size(content: dict[str, Any]) -> int:
    """A card's bytes in the request that sends it: its JSON as a string inside the body's JSON."""
    return len(json.dumps(json.dumps(content, ensure_ascii=False), ensure_ascii=False).encode())


def cards(say: Say, lang: Lang) -> list[dict[str, Any]]:
    """The card for `say`; where that is more than Feishu takes, the message in `lang` alone, in cards that each
    fit (bot/chat/parting.py), sent one after another."""
    whole = card(say, lang)
    if size(whole) <= CARD_BYTES:
        return [whole]

    def alone(message: Message) -> dict[str, Any]:
        return card(lambda _each: message, lang)

    parts = parted(say(lang), lambda message: _fits(alone(message)))
    return [_numbered(alone(part), number) for number, part in enumerate(parts)]


def _fits(content: dict[str, Any]) -> bool:
    """A part's card fits with the part number its buttons will carry (`_numbered`: about 14 bytes a button, over a
    kilobyte on a card of 17 items, which a card measured before it was numbered went over Feishu's limit by)."""
    return size(_numbered(content, MOST_PARTS)) <= CARD_BYTES


def updated(say: Say, lang: Lang, part: int) -> dict[str, Any]:
    """The card that part `part` of a message sent in cards becomes when the message is updated (a digest's item
    answered): the whole where it fits, else the first card for the first part (the title, the answer's line, the
    dearest items); for a later one what the message says before its items (the answer's line) and the items that
    part now holds, the last part where fewer are left. It was the first card's for every part: the pressed
    card's own items vanished, the dearest were shown twice."""
    if part == 0:
        return cards(say, lang)[0]
    whole = card(say, lang)
    if size(whole) <= CARD_BYTES:
        return whole
    message = say(lang)
    lead = next((n for n, s in enumerate(message.sections) if s.item is not None or s.buttons), 0)
    items = replace(message, title=None, sections=message.sections[lead:], intent=None)

    def alone(part_of: Message) -> dict[str, Any]:
        shown = replace(part_of, sections=(*message.sections[:lead], *part_of.sections))
        return card(lambda _each: shown, lang)

    parts = parted(items, lambda each: _fits(alone(each)))
    number = min(part, len(parts) - 1)
    return _numbered(alone(parts[number]), number)


def _numbered(content: dict[str, Any], part: int) -> dict[str, Any]:
    """A card of a message sent in parts: each button's callback value says which part it is on (from the second
    on), so that a press updates that part (`updated`)."""
    if part:
        for element in content["body"]["elements"]:
            for behavior in element.get("behaviors", ()):
                behavior["value"]["part"] = part
    return content
