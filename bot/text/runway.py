"""The bill in words, in either language: a prepaid balance's runway (digest, alerts, terminal), how an instance
bills, a time in its zone."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.format import money, show
from bot.text.quote import age_text
from rules.runway import Runway


def runway_line(runway: Runway, lang: Lang, zone: ZoneInfo, where: str = "chat") -> str:
    """A provider's balance and how long it lasts; `where`: "terminal" for the terminal's commands in what it
    suggests (a chat's otherwise)."""
    left = money(max(runway.left, 0.0), runway.currency)
    if runway.left < 0 or (runway.left == 0 and runway.hours is not None):  # owed, or used up: never "¥0 left"
        return t("runway.spent", lang, provider=runway.provider, over=money(-runway.left, runway.currency))
    if runway.hours is None and not runway.named:  # `balance autodl 5000` with no item on autodl: how to name one
        return tw("runway.unnamed", lang, where, provider=runway.provider, left=left)
    if runway.hours is None:
        return t("runway.idle", lang, provider=runway.provider, left=left)
    until = runway.until.astimezone(zone) if runway.until else None
    measured = runway.measured_hours
    over = "" if measured is None or measured >= 7 * 24 - 1 else "_now" if measured < 1 else "_since"
    return t(
        f"runway.line{over}",  # the last 7 days; since its items started (younger); the rate now (just started)
        lang,
        span=age_text((runway.measured_hours or 0) / 24, lang),
        provider=runway.provider,
        left=left,
        lasts=lasts_said(runway.hours, lang),
        until=f"{until:%m-%d %H:%M}" if until else "-",
        zone=zone.key,
        rate=money(runway.burn_per_hour, runway.currency),
    ) + burning_said(runway, lang)


DAYS_FROM = 48  # hours from which a balance's runway is said in days too: `autodl 还能用几天` got "133 小时"


def lasts_said(hours: float, lang: Lang) -> str:
    """How long a balance lasts: its hours (a tenth under one), and from two days on its days with them."""
    said = show(round(hours)) if hours >= 1 else show(round(hours, 1))
    if hours < DAYS_FROM:
        return t("runway.lasts_hours", lang, hours=said)
    return t("runway.lasts_days", lang, days=show(round(hours / 24, 1)), hours=said)


def balance_kept(provider: str, amount: float, currency: str, at: datetime, zone: ZoneInfo, lang: Lang) -> str:
    """A balance kept as read earlier (`at=`, `--at`): what it was then; the runway line after it says what is left
    now, the hours billed to it since taken off."""
    return t("runway.kept", lang, provider=provider, amount=money(amount, currency), at=when_said(at, zone))


def burning_said(runway: Runway, lang: Lang, most: int = 5) -> str:
    """The items that burn the balance, most first (" — a10-box, nb-1 and 2 more")."""
    if not runway.burning:
        return ""
    names = ", ".join(runway.burning[:most])
    more = len(runway.burning) - most
    return t("runway.burning", lang, names=names + (t("runway.more", lang, n=more) if more > 0 else ""))


def billing_said(billing: str, stop_billing: str | None, lang: Lang) -> dict[str, str]:
    """How an instance bills, as `cli.billing_set` says it. A day or month item is billed each period started, on or
    off: whether stopping it stops a meter is said only of an hourly one (its stop mode is kept for if it becomes
    hourly again)."""
    stops = "period" if billing in ("day", "month") else stop_billing or "stops"
    return {"billing": t(f"word.billing.{billing}", lang), "stop_billing": t(f"word.stop_billing.{stops}", lang)}


def period_from_rate(instance: Any, lang: Lang, name: str | None = None) -> str | None:
    """Where a day or month item's price is of another unit (`训练机 包月了` at ¥60 an hour), what one period is billed
    at (¥43,200 a month: the rate times the period's hours) and how to give its own period price; None where its
    price is that period's. A box said monthly at an hourly price was billed a month's hours at it, unsaid."""
    from rules import metering

    chosen = metering.basis(instance)
    if chosen is metering.Basis.HOURLY or instance.price is None or instance.unit == chosen.value:
        return None
    from bot.text.quote import instance_rate

    billed, rate = money(metering.period_price(instance), instance.currency), instance_rate(instance, lang)
    return t(f"meter.period_from_rate.{chosen.value}", lang, name=name or instance.name, rate=rate, billed=billed)


def billing_shown(instance: Any, lang: Lang, change: str, name: str | None = None) -> str:
    """How an instance bills now and its price (`billing NAME` alone, in chat and the terminal), then `change` (how
    to change it, in that surface's words); `name` as the surface writes it (chat: a literal, never markup)."""
    from bot.text.quote import instance_rate
    from rules import metering

    price = instance_rate(instance, lang)
    how = billing_said(metering.basis(instance).value, instance.stop_billing, lang)
    shown = t("meter.billing_shown", lang, name=name or instance.name, rate=price, **how)
    return shown + ("" if lang is Lang.ZH else " ") + change


def when_said(moment: datetime, zone: ZoneInfo) -> str:
    """A time in a named zone: 12-05 14:00 Asia/Shanghai."""
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M} {zone.key}"


def whose_said(name: str, whose: dict[str, str], project: str | None, owner: str | None, lang: Lang) -> list[str]:
    """What a change of whose money an item is says (`billing NAME project=… owner=…`, `训练机 项目改成 cv`, the
    terminal's --project, --owner): a line for its project (or none) where one was given, one for its owner (as
    the front end shows a person) where one was given."""
    lines = []
    if "project" in whose:
        said = t("meter.project_set", lang, name=name, project=project) if project else None
        lines.append(said or t("meter.project_cleared", lang, name=name))
    if owner is not None:
        lines.append(t("meter.owner_set", lang, name=name, owner=owner))
    return lines
