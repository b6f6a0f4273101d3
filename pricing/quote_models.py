"""What a quote is: the request, each priced option and where its price came from, the whole quote."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pricing.fx import currency_code


class Billing(StrEnum):
    DAILY = "daily"
    MONTHLY = "monthly"
    HOURLY = "hourly"


class QuoteRequest(BaseModel):
    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    gpu: str
    cards: int = Field(default=1, ge=1, le=1024)
    hours_per_day: float | None = Field(default=None, gt=0, le=24)
    days: float | None = Field(default=None, gt=0, le=3660)
    gpu_hours: float | None = Field(default=None, gt=0, le=10_000_000)
    share: float | None = Field(default=None, gt=0, le=1)
    # a software partition (qGPU, HAMi): its own memory, priced at its compute share (`share`)
    sharing: str | None = None  # mig, qgpu, hami, time-slicing: how the shared option is shared
    shared_memory_gb: float | None = Field(default=None, gt=0, le=10_000)
    region: str | None = None
    provider: str | None = None  # only this provider's prices (None: the cheapest of every provider)
    currency: str = "CNY"  # any currency the ECB publishes (prices are converted through the euro)
    yearly_gpu_hours: float | None = Field(default=None, ge=0)  # for rent vs buy; default: this pace all year
    service: bool = False  # an always-on service: a slice serves less throughput, its days do not stretch
    # Beside the cards: GB kept over the period and GB sent out, with their prices when the cache has none.
    storage_gb: float = Field(default=0, ge=0, le=10_000_000)
    storage_price: float | None = Field(default=None, gt=0, le=1000)  # per GB-month, in `currency`
    egress_gb: float = Field(default=0, ge=0, le=10_000_000)
    egress_price: float | None = Field(default=None, gt=0, le=1000)  # per GB, in `currency`
    # Options not to price, each with the reason the caller gives (e.g. {"shared": "peak_above_card"}).
    omit: dict[str, str] = Field(default_factory=dict)
    # The dedicated billing the advice names: "hourly", or "period" (by the day or month); None: the cheapest.
    dedicated_billing: Literal["hourly", "period"] | None = None
    # Notes the caller adds to an option (e.g. {"shared": ["shared_compared_dedicated"]}).
    option_notes: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("currency", mode="before")
    @classmethod
    def _known_currency(cls, value: object) -> str:
        return currency_code(str(value))

    @model_validator(mode="after")
    def _schedule(self) -> QuoteRequest:
        if self.gpu_hours is None and (self.hours_per_day is None or self.days is None):
            raise ValueError("give hours per day and days, or total GPU-hours")
        given = (self.hours_per_day or 0) * (self.days or 0) * self.cards
        if self.gpu_hours is not None and given and not math.isclose(self.gpu_hours, given, rel_tol=1e-9):
            # all three, disagreeing: "2 h/day × 3 days (5 GPU-hours)" was priced as 5
            raise ValueError("give hours per day and days, or total GPU-hours, not both")
        return self

    @property
    def used_hours_per_card(self) -> float:
        if self.gpu_hours is not None:
            return self.gpu_hours / self.cards
        assert self.hours_per_day is not None and self.days is not None
        return self.hours_per_day * self.days

    @property
    def period_days(self) -> float:
        if self.days is not None:
            return self.days
        return self.used_hours_per_card / (self.hours_per_day or 24)

    @property
    def daily_hours(self) -> float:
        return self.hours_per_day or 24.0

    @property
    def paced(self) -> bool:
        """Whether hours a day were said: total GPU-hours alone are priced as one run back to back (24 h a day),
        which is how they are billed at the least, not how often the team runs."""
        return self.hours_per_day is not None


class PriceUsed(BaseModel):
    """Where an option's price came from, and how fresh it is."""

    source: str
    provider: str
    instance_type: str
    region: str
    unit_price: float  # in the quote's currency
    unit: str
    original: str  # e.g. "400 CNY/day"
    basis: str
    provenance: str
    as_of: str
    age_days: float
    stale: bool
    flags: str = ""


class Option(BaseModel):
    kind: str  # dedicated | shared | spot
    amount: float  # nominal, in the quote's currency
    amount_min: float
    amount_max: float
    billing: str
    estimate: bool = False
    price: PriceUsed | None = None
    days_min: float | None = None  # the period, stretched by shared efficiency
    days_max: float | None = None
    share: float | None = None
    memory_gb: float | None = None  # the GPU memory the option gives, all cards together
    sharing: str | None = None  # the shared option's kind of sharing, when the platform's was asked for
    notes: list[str] = Field(default_factory=list)
    alternatives: dict[str, float] = Field(default_factory=dict)
    # set where the billing priced differs from the billing the advice names: why (no price for that billing)
    billing_note: str | None = None


class ExtraCost(BaseModel):
    """Storage or traffic for the run: how much, at what price, from where."""

    kind: str  # storage | egress
    gb: float
    unit_price: float  # in the quote's currency, per GB-month (storage) or GB (egress)
    unit: str
    months: float | None = None  # storage: the period it is kept
    amount: float
    source: str  # the price cache's source, or "given" for a price passed with the request
    basis: str = ""


class Quote(BaseModel):
    gpu: str
    cards: int
    currency: str
    hours_per_day: float
    days: float
    gpu_hours: float
    share: float
    paced: bool = True  # False: total GPU-hours alone, priced back to back; hours_per_day (24) is no pace of theirs
    dedicated: Option | None
    shared: Option | None
    spot: Option | None
    savings_pct: dict[str, float]  # nominal: 1 - option / dedicated, in percent
    savings_range_pct: dict[str, tuple[float, float]]  # over the option's min..max (efficiency, estimates)
    break_even_hours_per_day: dict[str, float | None] | None
    rent_vs_buy: dict[str, float | str]
    fx: dict[str, str | float] | None
    stale: bool
    omitted: dict[str, str] = Field(default_factory=dict)  # options left out on purpose, with the reason
    service: bool = False  # priced as an always-on service
    extras: dict[str, ExtraCost] = Field(default_factory=dict)  # storage and egress for the run
    totals: dict[str, float] = Field(default_factory=dict)  # each option's cost with the extras
    totals_range: dict[str, tuple[float, float]] = Field(default_factory=dict)  # an option whose cost is a range
    # the shared option's slice-hour as a percentage of a dedicated card-hour (on-demand hourly, else a day's
    # or month's price over its hours): the one figure for what a slice costs
    shared_price_pct: float | None = None
