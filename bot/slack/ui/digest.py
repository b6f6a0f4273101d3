"""A channel's digest as Slack blocks (templates/digest.json.j2): the most expensive items first, at most 50
blocks."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.slack.ids import Action
from bot.slack.ui import templating
from bot.text import Lang, t
from bot.text.budget import forecast_text
from bot.text.format import money, show
from rules.digest import Digest, FoundNews, InstanceNews, StorageNews
from rules.idle import Activity

MAX_BLOCKS = 50  # Slack's limit for a message


def when(moment: datetime | None, zone: ZoneInfo) -> str:
    """A time as a channel reads it: in the channel's zone, naming the zone (11-30 22:17 Asia/Shanghai)."""
    return f"{moment.astimezone(zone):%m-%d %H:%M} {zone.key}" if moment else "?"


def message_lang(message: dict[str, Any]) -> Lang | None:
    """The language a digest message was posted in (its header's block id), if it says."""
    header: dict[str, Any] = next((b for b in message.get("blocks") or [] if b.get("type") == "header"), {})
    code = str(header.get("block_id", "")).removeprefix("digest:")
    return Lang(code) if code in {str(c) for c in Lang} else None


def header_block(count: int, lang: Lang) -> dict[str, Any]:
    """The digest's header for `count` items still listed."""
    blocks: list[dict[str, Any]] = templating.message(
        "digest.json.j2",
        header=t("digest.header", lang, count=count),
        lang=lang.value,
        items=[],
        notes=[],
        found=[],
        found_title="",
    )
    return blocks[0]


def instance_line(news: InstanceNews, lang: Lang, zone: ZoneInfo) -> str:
    unknown = "digest.unknown_found" if news.source in ("aws", "k8s") else "digest.unknown"
    key = {Activity.IDLE: "digest.idle", Activity.MEMORY_HELD: "digest.memory_held"}.get(news.activity, unknown)
    no_price = t("digest.price_unknown", lang)
    line = t(
        key,
        lang,
        name=news.name,
        owner=f"<@{news.owner}>",
        since=when(news.since, zone),
        per_day=money(news.per_day, news.currency) if news.priced else no_price,
        burned=money(news.burned, news.currency) if news.priced else no_price,
    )
    if news.stop_at is not None:
        line += " " + t("digest.stop_warning", lang, at=when(news.stop_at, zone))  # with its date: graces run to 7d
    elif news.never_stopped:
        line += " " + t("digest.never_stopped", lang)
    return line


def found_line(news: FoundNews, lang: Lang) -> str:
    """A found item nobody claimed: what it is, its cloud state, what it costs a day."""
    state = f"{news.state}, spot" if news.spot else (news.state or "?")
    cost = money(news.per_day, news.currency) if news.priced else t("digest.price_unknown", lang)
    return t(
        f"digest.found_{'instance' if news.kind == 'i' else 'storage'}",
        lang,
        name=news.name,
        what=news.what,
        state=state,
        per_day=cost,
    )


def storage_line(news: StorageNews, lang: Lang) -> str:
    return t(
        f"digest.{news.reason}",
        lang,
        name=news.name,
        owner=f"<@{news.owner}>",
        size=show(news.size_gb),
        per_month=money(news.per_month, news.currency),
        days=show(round(news.untouched_days)),
    )


def _spend(digest: Digest, lang: Lang) -> str | None:
    lines = []
    for spend in digest.spend:
        project = spend.project or t("digest.no_project", lang)
        amount = money(spend.amount, spend.currency)
        if spend.budget is None:
            lines.append(t("digest.spend_line", lang, project=project, amount=amount))
        else:
            key = "digest.spend_over" if spend.amount > spend.budget else "digest.spend_budget"
            line = t(key, lang, project=project, amount=amount, budget=money(spend.budget, spend.currency))
            if spend.forecast is not None and spend.forecast.forecast > spend.forecast.budget:
                line += " " + forecast_text(spend.forecast, lang)  # said before the threshold is crossed
            lines.append(line)
    return t("digest.spend", lang, lines=" · ".join(lines)) if lines else None


INSTANCE_BUTTONS = (
    (Action.RELEASED, "digest.button.released", "primary"),
    (Action.STILL_NEEDED, "digest.button.still_needed", None),
    (Action.SNOOZE_WEEK, "digest.button.snooze_week", None),
)
STORAGE_BUTTONS = (
    (Action.STORAGE_DELETED, "digest.button.deleted", "primary"),
    (Action.STORAGE_KEEP, "digest.button.keep", None),
)
FOUND_BUTTONS = ((Action.CLAIM, "digest.button.claim", "primary"), (Action.NOT_OURS, "digest.button.not_ours", None))
BUTTONS = {"i": INSTANCE_BUTTONS, "s": STORAGE_BUTTONS, "fi": FOUND_BUTTONS, "fs": FOUND_BUTTONS}


def _item(kind: str, name: str, text: str, lang: Lang) -> dict[str, Any]:
    """One item's context for digest_item.json.j2: its line and its answers (`i` instance, `s` storage; `fi`,
    `fs` the same found in the cloud and nobody's yet)."""
    return {
        "kind": kind,
        "name": name,
        "text": text,
        "buttons": [
            {"action": str(action), "label": t(key, lang), "style": style} for action, key, style in BUTTONS[kind]
        ],
    }


def item_blocks(kind: str, name: str, text: str, lang: Lang) -> list[dict[str, Any]]:
    """One item's two blocks (its line and its buttons), as a digest shows them."""
    return templating.message("digest_items.json.j2", items=[_item(kind, name, text, lang)])


def render(digest: Digest, lang: Lang, zone: ZoneInfo) -> tuple[str, list[dict[str, Any]]]:
    """The fallback text and the blocks. Items beyond what fits are counted in a last "+N more" line."""
    items = [(n.per_day, "i", n.name, instance_line(n, lang, zone)) for n in digest.instances]
    items += [(s.per_month / 30, "s", s.name, storage_line(s, lang)) for s in digest.storage]
    items.sort(key=lambda item: -item[0])
    count = len(items)
    footer = [
        text
        for text in (
            _spend(digest, lang),
            t("digest.saved", lang, amounts=", ".join(money(a, c) for c, a in digest.saved.items()))
            if digest.saved
            else None,
            t("digest.how_to_act", lang),
        )
        if text
    ]
    found = [(f.per_day, f"f{f.kind}", f.name, found_line(f, lang)) for f in digest.found]
    count += len(found)
    # the header, the footer, the found title; each item takes two blocks: its line and buttons
    room = MAX_BLOCKS - 1 - len(footer) - (1 if found else 0)
    shown = (items + found) if 2 * (len(items) + len(found)) <= room else (items + found)[: (room - 1) // 2]
    more = [t("digest.more", lang, count=count - len(shown))] if len(shown) < count else []
    blocks = templating.message(
        "digest.json.j2",
        header=t("digest.header", lang, count=count),
        lang=lang.value,
        items=[_item(kind, name, text, lang) for _, kind, name, text in shown if not kind.startswith("f")],
        found=[_item(kind, name, text, lang) for _, kind, name, text in shown if kind.startswith("f")],
        found_title=t("digest.found_title", lang),
        notes=more + footer,
    )
    per: dict[str, float] = {}
    for news in digest.instances:
        per[news.currency] = per.get(news.currency, 0.0) + news.per_day
    for news_found in digest.found:
        per[news_found.currency] = per.get(news_found.currency, 0.0) + news_found.per_day
    if not digest.instances and not digest.found:  # only storage: what it costs, not "¥0 a day on instances"
        for kept in digest.storage:
            per[kept.currency] = per.get(kept.currency, 0.0) + kept.per_month
        cost = ", ".join(money(a, c) for c, a in per.items())
        return t("digest.fallback_storage", lang, count=count, cost=cost), blocks
    cost = ", ".join(money(a, c) for c, a in per.items())
    return t("digest.fallback", lang, count=count, cost=cost), blocks
