"""The team's amounts of several currencies on one scale, at the price cache's rate, for ordering only
(rules/worth.py). Its own module, apart from the price book, so that a command ordering its rows (`report`, `list
--dearest`, `idle`) reads the cache only when an amount in another currency asks for a rate."""

from __future__ import annotations

import sqlite3
from datetime import date
from pathlib import Path

from rules.worth import Convert, Worth


def cache_worth(db: Path | str, home: str, usd_cny: float | None = None, usd_cny_date: date | None = None) -> Worth:
    """Amounts set on `home` (the team's currency) at the rate a quote takes (the team's USD/CNY rate, `usd_cny`,
    else the cache's fetched one, else the bundled fallback), only to order them. The cache at `db` is opened when
    an amount in another currency first asks; an unusable cache, or a currency with no rate, leaves the amounts as
    their bare numbers: an order is never worth a failed command."""

    def converter() -> Convert:
        from pricing import cache
        from pricing.book import pick_fx
        from pricing.errors import CacheUnavailable, QuoteError
        from pricing.fx import configured
        from pricing.options import Money

        try:
            opened = cache.open_db(db)
            try:
                fx = pick_fx(opened, configured(usd_cny, usd_cny_date))
            finally:
                opened.close()
        except (CacheUnavailable, sqlite3.Error):
            return lambda _amount, _currency: None
        money = Money(home, fx, fx.euro)

        def convert(amount: float, currency: str) -> float | None:
            try:
                return money(amount, currency)
            except QuoteError:
                return None

        return convert

    return Worth(home, converter)
