"""Exchange rates: USD <-> CNY configured or from the ECB daily reference rates (no authentication), and
every currency the ECB publishes, for quotes in any of them.

The ECB publishes euro rates: <Cube time="2026-11-27"><Cube currency="USD" rate="1.05"/>
<Cube currency="CNY" rate="7.61"/>...; USD->CNY is CNY per euro divided by USD per euro, and any A->B is
B per euro divided by A per euro.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime

from pydantic import BaseModel, ConfigDict, Field

from pricing.errors import SourceError

ECB_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

# Used only when no rate is configured and none has been fetched; quotes say so and show its date.
FALLBACK_USD_CNY = 7.2
FALLBACK_DATE = date(2024, 6, 28)


# The ECB's euro foreign exchange reference rates: the 30 currencies it publishes each working day, and the
# euro itself (ecb.europa.eu, "Euro foreign exchange reference rates", as of 2025).
ECB_CURRENCIES = (
    "EUR",
    "USD",
    "JPY",
    "BGN",
    "CZK",
    "DKK",
    "GBP",
    "HUF",
    "PLN",
    "RON",
    "SEK",
    "CHF",
    "ISK",
    "NOK",
    "TRY",
    "AUD",
    "BRL",
    "CAD",
    "CNY",
    "HKD",
    "IDR",
    "ILS",
    "INR",
    "KRW",
    "MXN",
    "MYR",
    "NZD",
    "PHP",
    "SGD",
    "THB",
    "ZAR",
)


def currency_code(text: str) -> str:
    """An ISO code the ECB publishes (any case), upper-cased; ValueError naming the accepted codes."""
    code = text.strip().upper()
    if code not in ECB_CURRENCIES:
        raise ValueError(
            f"{text.strip()[:12]!r} is not a currency the ECB publishes rates for; use one of "
            f"{', '.join(sorted(ECB_CURRENCIES))}"
        )
    return code


class EuroRates(BaseModel):
    """Units of each currency for one euro, of one day (the euro itself is 1)."""

    model_config = ConfigDict(frozen=True)

    per_eur: dict[str, float]
    rate_date: date
    source: str
    fetched_at: datetime | None = None

    def rate(self, from_currency: str, to_currency: str) -> float | None:
        """Units of `to_currency` for one `from_currency`, through the euro; None without both rates."""
        rates = self.per_eur | {"EUR": 1.0}
        if from_currency not in rates or to_currency not in rates:
            return None
        return rates[to_currency] / rates[from_currency]


class FxRate(BaseModel):
    model_config = ConfigDict(frozen=True)

    base: str = "USD"
    quote: str = "CNY"
    rate: float = Field(gt=0)  # units of `quote` for one `base`
    rate_date: date
    source: str
    fetched_at: datetime | None = None
    euro: EuroRates | None = Field(default=None, exclude=True)  # the day's rates of every currency (the ECB's)


# Units of a currency per euro any ECB reference rate lies in (the lowest today is GBP's ~0.85, the highest IDR's
# ~18,000): a rate outside, or inf or nan, is a broken feed, not a price
SANE_PER_EUR = (1e-3, 1e6)


def parse_ecb(xml_text: str, fetched_at: datetime, source: str = "ecb") -> FxRate:
    import xml.etree.ElementTree as ET  # only where the ECB's rates are read: not in a quote from the cache

    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise SourceError(f"ECB rates are not valid XML: {exc}") from None
    day = next((el for el in root.iter() if el.tag.endswith("Cube") and el.get("time")), None)
    if day is None:
        raise SourceError("ECB rates have no dated Cube element")
    rates = {el.get("currency"): el.get("rate") for el in day if el.get("currency")}
    try:
        usd, cny = float(rates["USD"] or ""), float(rates["CNY"] or "")
        when = date.fromisoformat(day.get("time", ""))
    except (KeyError, ValueError):
        raise SourceError("ECB rates lack a numeric USD or CNY rate, or a valid date") from None
    euro = {}
    for code, text in rates.items():
        try:
            value = float(text or "")
        except ValueError:
            continue
        if code in ECB_CURRENCIES or code in ("USD", "CNY"):
            if not (math.isfinite(value) and SANE_PER_EUR[0] <= value <= SANE_PER_EUR[1]):
                raise SourceError(
                    f"ECB rate for {code} is {text!r}: not a finite number of units per euro between "
                    f"{SANE_PER_EUR[0]:g} and {SANE_PER_EUR[1]:g}; the last good rates stay"
                )
            euro[code] = value
    return FxRate(
        rate=round(cny / usd, 6),
        rate_date=when,
        source=source,
        fetched_at=fetched_at,
        euro=EuroRates(per_eur=euro, rate_date=when, source=source, fetched_at=fetched_at),
    )


def configured(rate: float | None, when: date | None) -> FxRate | None:
    """The USD/CNY rate a team set (GPU_ADVISOR_USD_CNY, dated by GPU_ADVISOR_USD_CNY_DATE, else today and said
    undated); None when it set none."""
    if rate is None:
        return None
    return FxRate(
        rate=rate,
        rate_date=when or datetime.now(UTC).date(),
        source="configured (GPU_ADVISOR_USD_CNY)" + ("" if when else ", undated"),
    )


def convert(amount: float, from_currency: str, to_currency: str, rate: FxRate) -> float:
    if from_currency == to_currency:
        return amount
    if (from_currency, to_currency) == (rate.base, rate.quote):
        return amount * rate.rate
    if (from_currency, to_currency) == (rate.quote, rate.base):
        return amount / rate.rate
    raise ValueError(f"no rate for {from_currency}->{to_currency}")
