"""USD <-> CNY exchange rates: configured, or from the ECB daily reference rates (no authentication).

The ECB publishes euro rates: <Cube time="2026-11-27"><Cube currency="USD" rate="1.05"/>
<Cube currency="CNY" rate="7.61"/>...; USD->CNY is CNY per euro divided by USD per euro.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import date, datetime

from pydantic import BaseModel, ConfigDict, Field

from pricing.errors import SourceError

ECB_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

# Used only when no rate is configured and none has been fetched; quotes say so and show its date.
FALLBACK_USD_CNY = 7.2
FALLBACK_DATE = date(2024, 6, 28)


class FxRate(BaseModel):
    model_config = ConfigDict(frozen=True)

    base: str = "USD"
    quote: str = "CNY"
    rate: float = Field(gt=0)  # units of `quote` for one `base`
    rate_date: date
    source: str
    fetched_at: datetime | None = None


def parse_ecb(xml_text: str, fetched_at: datetime, source: str = "ecb") -> FxRate:
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
    if usd <= 0 or cny <= 0:
        raise SourceError("ECB rates must be positive")
    return FxRate(rate=round(cny / usd, 6), rate_date=when, source=source, fetched_at=fetched_at)


def convert(amount: float, from_currency: str, to_currency: str, rate: FxRate) -> float:
    if from_currency == to_currency:
        return amount
    if (from_currency, to_currency) == (rate.base, rate.quote):
        return amount * rate.rate
    if (from_currency, to_currency) == (rate.quote, rate.base):
        return amount / rate.rate
    raise ValueError(f"no rate for {from_currency}->{to_currency}")
