"""Amounts in several currencies set on one scale, only to order them: which box, owner or project costs most, which
idle item comes first in a digest, which currency a chart draws. A team renting on AWS in dollars and on Alibaba
Cloud in yuan had its dollars and its yuan compared as bare numbers: $300 of idle time ranked below ¥700, and
`list dearest` put every yuan box first.

What is shown stays in each amount's own currency (a bill is said in the currency it is billed in: budgets and
balances never convert); only the order is made on the team's currency. The conversion is the price cache's, the
rate a quote takes (bot/price_book.py: configured, fetched, or the bundled fallback), asked for only when an amount is
in another currency, so a team billed in one currency opens nothing. A currency with no rate is taken as its bare
number, as before."""

from __future__ import annotations

from collections.abc import Callable, Mapping

# an amount and its currency -> the amount in the team's currency, None where no rate converts it
Convert = Callable[[float, str], float | None]


class Worth:
    """Amounts on the scale of `home` (the team's currency): `one(amount, currency)`, `of({currency: amount})`.
    `converter` makes the conversion when first needed (it may read a file); without one every amount is its bare
    number (RAW: the order before there were rates). Two threads asking at once may each make the conversion: the
    same rate, read twice."""

    def __init__(self, home: str | None = None, converter: Callable[[], Convert] | None = None) -> None:
        self.home = home
        self._make = converter
        self._convert: Convert | None = None

    def one(self, amount: float, currency: str) -> float:
        if currency == self.home or self._make is None or not amount:
            return amount
        if self._convert is None:
            self._convert = self._make()
        value = self._convert(amount, currency)
        return amount if value is None else value

    def of(self, amounts: Mapping[str, float]) -> float:
        """The amounts of several currencies together (an owner's idle cost in dollars and yuan)."""
        return sum(self.one(amount, currency) for currency, amount in amounts.items())

    def most(self, amounts: Mapping[str, float], default: str) -> str:
        """The currency the most money is in (a chart is drawn in one); `default` without any."""
        return max(amounts, key=lambda c: self.one(amounts[c], c)) if amounts else default


RAW = Worth()
