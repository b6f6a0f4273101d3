"""How a budget's forecast reads, in the digest and in a budget alert."""

from __future__ import annotations

from bot.text.catalogue import t
from bot.text.format import money, show
from bot.text.lang import Lang
from rules.budget import Standing


def forecast_text(standing: Standing, lang: Lang) -> str:
    """ "At this rate ¥23,400 by 12-31, 17% over" (or under)."""
    key = "budget.forecast_over" if standing.forecast > standing.budget else "budget.forecast_under"
    return t(
        key,
        lang,
        amount=money(standing.forecast, standing.currency),
        day=f"{standing.month_end:%m-%d}",
        pct=show(round(abs(standing.over_pct))),
    )
