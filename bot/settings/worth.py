"""The team's amounts of several currencies on its own (GPU_ADVISOR_CURRENCY), at the rate a quote takes (the team's
USD/CNY rate, else the price cache's), to order them only (rules/worth.py): what `serve` (bot/price_book.py) and the
terminal's commands order with. Imports neither the price book nor the cache: the cache is read when an amount in
another currency first asks (pricing/worth.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings.model import Settings
    from rules.worth import Worth


def team_worth(settings: Settings) -> Worth:
    from pricing.worth import cache_worth

    prices = settings.prices
    return cache_worth(settings.files.db, settings.files.currency, prices.usd_cny, prices.usd_cny_date)
