"""What a channel's digest says, as neutral lines and messages: each item's line and its buttons, the spend
line; digest_message() the whole digest for chats without a layout of their own (Slack keeps its template,
bot/slack/ui/digest.py, on the same lines). Times are shown in the channel's zone with its IANA name. Names, tags
and projects are data (a cloud tag, an enrolled box's name): escaped, so `<!channel>` in one never pings."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from bot.chat.ids import Action
from bot.chat.message import Button, Message, Section
from bot.text import Lang, t
from bot.text.budget import forecast_text, project_said
from bot.text.format import card_label, literal, mention, money, sentences, show
from bot.text.runway import runway_line
from rules.digest import Digest, FoundNews, InstanceNews, LifecycleNews, StorageNews
from rules.idle import Activity
from rules.sources import FOUND_SOURCES


def digest_header(count: int, lang: Lang) -> str:
    """The digest's title: how many items to look at, or all clear once every one is answered ("0 to look at"
    read as work left)."""
    return t("digest.header", lang, count=count) if count else t("digest.header_clear", lang)


def when(moment: datetime | None, zone: ZoneInfo) -> str:
    """A time as a channel reads it: in the channel's zone, naming the zone (11-30 22:17 Asia/Shanghai)."""
    return f"{moment.astimezone(zone):%m-%d %H:%M} {zone.key}" if moment else "?"


def _card(news: InstanceNews) -> str:
    """After an item's name: " · Ascend 910B2 64 GB ×8", or nothing when its card is not known."""
    label = card_label(news.gpu, news.cards)
    return f" · {label}" if label else ""


def instance_line(news: InstanceNews, lang: Lang, zone: ZoneInfo) -> str:
    if news.activity is Activity.STOPPED_BILLED:
        no_price = t("digest.price_unknown", lang)
        return t(
            "digest.stopped_billed",
            lang,
            name=literal(news.name),
            card=_card(news),
            owner=mention(news.owner) if news.owner else "?",
            rate=money(news.per_hour, news.currency) if news.priced else no_price,
            month=money(news.month, news.currency) if news.priced else no_price,
        )
    unknown = "digest.unknown_found" if news.source in FOUND_SOURCES else "digest.unknown"
    key = {Activity.IDLE: "digest.idle", Activity.MEMORY_HELD: "digest.memory_held"}.get(news.activity, unknown)
    no_price = t("digest.price_unknown", lang)
    line = t(
        key,
        lang,
        name=literal(news.name),
        card=_card(news),
        owner=mention(news.owner),
        since=when(news.since, zone),
        per_day=money(news.per_day, news.currency) if news.priced else no_price,
        burned=money(news.burned, news.currency) if news.priced else no_price,
    )
    if news.idle_rule is not None:  # the platform's own rule: it may stop before anyone is warned
        line += " " + idle_rule_said(news.idle_rule, lang)
    if news.stop_at is not None:
        line += " " + t("digest.stop_warning", lang, at=when(news.stop_at, zone))  # with its date: graces run to 7d
        if news.stop_keeps_billing:
            line += " " + t("digest.stop_keeps_billing", lang)
    elif news.stop_refused:
        line += " " + t("digest.stop_refused", lang)
    elif news.never_stopped:
        line += " " + t("digest.never_stopped", lang)
    return line


def lifecycle_line(news: LifecycleNews, lang: Lang, zone: ZoneInfo) -> str:
    """Powered off where the platform releases what stays off: since when, and around when it goes."""
    return t(
        f"digest.lifecycle_{news.provider}",
        lang,
        name=literal(news.name),
        owner=mention(news.owner) if news.owner else "?",
        since=when(news.off_since, zone),
        release=when(news.release_at, zone),
    )


def found_line(news: FoundNews, lang: Lang) -> str:
    """A found item nobody claimed: what it is, its cloud state, what it costs a day."""
    state = f"{news.state}, spot" if news.spot else (news.state or "?")
    cost = money(news.per_day, news.currency) if news.priced else t("digest.price_unknown", lang)
    line = t(
        f"digest.found_{'instance' if news.kind == 'i' else 'storage'}",
        lang,
        name=literal(news.name),
        what=literal(news.what),
        state=state,
        per_day=cost,
    )
    return sentences(lang, line, idle_rule_said(news.idle_rule, lang)) if news.idle_rule is not None else line


def idle_rule_said(minutes: int, lang: Lang) -> str:
    """The platform's own idle-shutdown rule beside an item: after how long it stops the item, or that it is off."""
    return t("digest.idle_rule", lang, minutes=minutes) if minutes > 0 else t("digest.idle_rule_off", lang)


def storage_line(news: StorageNews, lang: Lang) -> str:
    return t(
        f"digest.{news.reason}",
        lang,
        name=literal(news.name),
        owner=mention(news.owner),
        size=show(news.size_gb),
        per_month=money(news.per_month, news.currency),
        days=show(round(news.untouched_days)),
    )


def spend_line(digest: Digest, lang: Lang) -> str | None:
    lines = []
    for spend in digest.spend:
        project = project_said(spend.project, lang)
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


def runway_text(digest: Digest, lang: Lang, zone: ZoneInfo) -> str | None:
    """The prepaid balances of the channel's providers and how long each lasts."""
    if not digest.runways:
        return None
    lines = " · ".join(runway_line(r, lang, zone) for r in digest.runways)
    return sentences(lang, t("digest.runway_head", lang), lines)


INSTANCE_BUTTONS = (
    (Action.RELEASED, "digest.button.released", "primary"),
    (Action.STILL_NEEDED, "digest.button.still_needed", None),
    (Action.SNOOZE_WEEK, "digest.button.snooze_week", None),
    (Action.STOPPED, "digest.button.stopped", None),
)
STORAGE_BUTTONS = (
    (Action.STORAGE_DELETED, "digest.button.deleted", "primary"),
    (Action.STORAGE_KEEP, "digest.button.keep", None),
)
STOPPED_BUTTONS = (  # an instance stopped but still billed: started again, or released
    (Action.RELEASED, "digest.button.released", "primary"),
    (Action.STARTED, "digest.button.started", None),
)
OFF_BUTTONS = (  # an instance left off where the platform releases what stays off: done with it, on again, or known
    (Action.RELEASED, "digest.button.released", "primary"),
    (Action.STARTED, "digest.button.started", None),
    (Action.SNOOZE_WEEK, "digest.button.snooze_week", None),
)
FOUND_BUTTONS = ((Action.CLAIM, "digest.button.claim", "primary"), (Action.NOT_OURS, "digest.button.not_ours", None))
BUTTONS = {"i": INSTANCE_BUTTONS, "io": STOPPED_BUTTONS, "il": OFF_BUTTONS, "s": STORAGE_BUTTONS, "fi": FOUND_BUTTONS,
           "fs": FOUND_BUTTONS}  # fmt: skip


def buttons_of(news: InstanceNews) -> str:
    """Which answers an instance's line gets: "io" for one stopped but still billed, else "i"."""
    return "io" if news.activity is Activity.STOPPED_BILLED else "i"


def item_kind(buttons: str) -> str:
    """The item's kind as its buttons' values and block ids carry it ("io", "il" are instances: "i")."""
    return "i" if buttons in ("io", "il") else buttons


def item_buttons(kind: str, name: str, lang: Lang, ident: int = 0) -> tuple[Button, ...]:
    """An item's answers; each button's value is the item's kind, name and row id (`i:gpu-box-1#42`): a name is
    free again once its box is released, and a press on an old card must not act on the new box of that name."""
    value = f"{item_kind(kind)}:{name}" + (f"#{ident}" if ident else "")
    return tuple(Button(str(action), value, t(key, lang), style) for action, key, style in BUTTONS[kind])


def pressed_item(value: str) -> tuple[str, str, int | None]:
    """A digest button's kind, name and row id (None: a button from before buttons carried it); names never hold
    `:` or `#` (bot/state/rentals.py NAME)."""
    kind, _, rest = value.rpartition(":")
    name, _, ident = rest.partition("#")
    return kind, name, int(ident) if ident.isdigit() else None


def item_section(kind: str, name: str, text: str, lang: Lang, ident: int = 0) -> Section:
    return Section(text, buttons=item_buttons(kind, name, lang, ident), item=(item_kind(kind), name))


def digest_notes(digest: Digest, lang: Lang, zone: ZoneInfo) -> list[str]:
    """The lines under a digest's items, in every chat: the month's spend, the runways, what releases saved, and the
    link to the channel's board."""
    saved = ", ".join(money(a, c) for c, a in digest.saved.items())
    lines = (
        spend_line(digest, lang),
        runway_text(digest, lang, zone),
        t("digest.saved", lang, amounts=saved) if saved else None,
        t("board.link_line", lang, url=digest.board_url) if digest.board_url else None,
    )
    return [line for line in lines if line]


def digest_message(digest: Digest, lang: Lang, zone: ZoneInfo, done: str | None = None) -> Message:
    """The whole digest: a title with the count, each item (dearest first) with its answers, then what was found
    and nobody claimed, then the spend and how to act. `done`: the line of an answer just given, shown first."""
    worth = digest.worth.one  # dollars and yuan on the team's currency, for the order only
    items = [
        (worth(n.per_day, n.currency), buttons_of(n), n.name, instance_line(n, lang, zone), n.id)
        for n in digest.instances
    ]
    items += [(worth(s.per_month / 30, s.currency), "s", s.name, storage_line(s, lang), s.id) for s in digest.storage]
    items.sort(key=lambda item: -item[0])
    found = [(f.per_day, f"f{f.kind}", f.name, found_line(f, lang)) for f in digest.found]
    sections = [Section(done)] if done else []
    sections += [item_section(kind, name, text, lang, ident) for _, kind, name, text, ident in items]
    sections += [item_section("il", e.name, lifecycle_line(e, lang, zone), lang, e.id) for e in digest.lifecycle]
    if found:
        sections.append(Section(t("digest.found_title", lang)))
        sections += [item_section(kind, name, text, lang) for _, kind, name, text in found]
    notes = digest_notes(digest, lang, zone)
    count = len(items) + len(found) + len(digest.lifecycle)
    title = digest_header(count, lang)
    return Message(
        text=title, lang=lang, title=title, sections=tuple(sections), context=(*notes, t("digest.how_to_act", lang))
    )
