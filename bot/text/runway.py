"""A prepaid balance's runway as a sentence, in either language (digest, alerts, terminal)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from bot.text import Lang, t
from bot.text.format import money, show
from rules.runway import Runway


def runway_line(runway: Runway, lang: Lang, zone: ZoneInfo) -> str:
    left = money(max(runway.left, 0.0), runway.currency)
    if runway.hours is None:
        return t("runway.idle", lang, provider=runway.provider, left=left)
    if runway.left <= 0:
        return t("runway.spent", lang, provider=runway.provider, over=money(-runway.left, runway.currency))
    until = runway.until.astimezone(zone) if runway.until else None
    return t(
        "runway.line",
        lang,
        provider=runway.provider,
        left=left,
        hours=show(round(runway.hours)) if runway.hours >= 1 else show(round(runway.hours, 1)),
        until=f"{until:%m-%d %H:%M}" if until else "-",
        zone=zone.key,
        rate=money(runway.burn_per_hour, runway.currency),
    )
