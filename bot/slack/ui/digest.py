"""A channel's digest as Slack blocks (its header: templates/digest.json.j2; each item: digest_item.json.j2): the
most expensive items first, at most 50 blocks. The lines and the buttons are the core's
(bot/chat/digest_messages.py), the same on every chat."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from bot.chat.digest_messages import digest_header, digest_message
from bot.chat.message import Message, Section
from bot.slack.ui import templating
from bot.text import Lang, t
from bot.text.format import money
from rules.digest import Digest
from rules.idle import Activity

MAX_BLOCKS = 50  # Slack's limit for a message


def message_lang(message: dict[str, Any]) -> Lang | None:
    """The language a digest message was posted in (its header's block id), if it says."""
    header: dict[str, Any] = next((b for b in message.get("blocks") or [] if b.get("type") == "header"), {})
    code = str(header.get("block_id", "")).removeprefix("digest:")
    return Lang(code) if code in {str(c) for c in Lang} else None


def header_block(count: int, lang: Lang, title: str | None = None) -> dict[str, Any]:
    """The digest's header for `count` items still listed (or the `title` a message has already)."""
    blocks: list[dict[str, Any]] = templating.message(
        "digest.json.j2",
        header=title if title is not None else digest_header(count, lang),
        lang=lang.value,
    )
    return blocks[0]


def render(digest: Digest, lang: Lang, zone: ZoneInfo) -> tuple[str, list[dict[str, Any]]]:
    """The fallback text and the blocks: the digest's message (bot/chat/digest_messages.py) as every digest message
    is laid out in Slack, composed again after a press or not (message_blocks): items beyond what fits are counted
    in a last "+N more" line."""
    blocks = message_blocks(digest_message(digest, lang, zone))
    count = len(digest.instances) + len(digest.storage) + len(digest.lifecycle) + len(digest.found)
    # the money line counts what its words say: instances idle or holding memory without work ("may not be
    # working"), not those without data, not found items nobody has claimed, not storage (its own line)
    per: dict[str, float] = {}
    for news in digest.instances:
        if news.activity in (Activity.IDLE, Activity.MEMORY_HELD):
            per[news.currency] = per.get(news.currency, 0.0) + news.per_day
    if per:
        return t("digest.fallback", lang, count=count, cost=", ".join(money(a, c) for c, a in per.items())), blocks
    kept_per: dict[str, float] = {}
    for kept in digest.storage:
        kept_per[kept.currency] = kept_per.get(kept.currency, 0.0) + kept.per_month
    if kept_per and not digest.instances and not digest.found:  # only storage: what it costs a month
        cost = ", ".join(money(a, c) for c, a in kept_per.items())
        return t("digest.fallback_storage", lang, count=count, cost=cost), blocks
    return digest_header(count, lang), blocks


def message_blocks(message: Message) -> list[dict[str, Any]]:
    """A neutral message carrying digest items (the digest composed again after a press, `idle`'s answer) as the
    digest's blocks: its header with its language (a press reads the message's language there), each item's line
    and buttons, the other sections as text, its notes; within Slack's 50 blocks, the items left off counted.
    Through the generic layout a digest composed again lost its header and every item's buttons."""
    lang = message.lang
    head = [header_block(0, lang, message.title)] if message.title else []
    room = MAX_BLOCKS - len(head) - len(message.context) - 1  # and a "+N more" line, should it be needed
    body: list[dict[str, Any]] = []
    items = sum(1 for s in message.sections if s.item is not None)
    shown = 0
    for section in message.sections:
        made = section_blocks(section)
        if len(body) + len(made) > room:
            break
        body += made
        shown += section.item is not None
    more = [t("digest.more", lang, count=items - shown)] if shown < items else []
    notes = [*more, *message.context]
    return head + body + (templating.message("context.json.j2", lines=notes) if notes else [])


def section_blocks(section: Section) -> list[dict[str, Any]]:
    """A section as Slack blocks: text, or a digest item's line and its buttons; a button's value is the item's name
    and row id (`gpu-box-1#42`), its block id the kind and name (`act:i:gpu-box-1`: the press reads the two as one)."""
    if section.item is None:
        return templating.message("text.json.j2", parts=templating.pieces(section.text))
    kind, name = section.item
    buttons = [
        {"action": b.action, "label": b.label, "style": b.style, "value": b.value.partition(":")[2] or name}
        for b in section.buttons
    ]
    return templating.message(
        "digest_items.json.j2", items=[{"kind": kind, "name": name, "text": section.text, "buttons": buttons}]
    )
