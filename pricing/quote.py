"""The cost calculator: dedicated, shared and spot for one schedule. Pure: prices, rates and policy come in."""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pricing.errors import QuoteError
from pricing.fx import FxRate, convert
from pricing.offers import Offer
from pricing.records import Currency, ExtraPrice, PricingModel, Sharing, Unit
from rules.errors import UnknownGPU
from rules.gpus import CATALOGUE, canonical_gpu, gpu_model
from rules.policy import Policy


class Billing(StrEnum):
    DAILY = "daily"
    MONTHLY = "monthly"
    HOURLY = "hourly"


class QuoteRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

    gpu: str
    cards: int = Field(default=1, ge=1, le=1024)
    hours_per_day: float | None = Field(default=None, gt=0, le=24)
    days: float | None = Field(default=None, gt=0, le=3660)
    gpu_hours: float | None = Field(default=None, gt=0)
    share: float | None = Field(default=None, gt=0, le=1)
    region: str | None = None
    currency: Currency = Currency.CNY
    yearly_gpu_hours: float | None = Field(default=None, ge=0)  # for rent vs buy; default: this pace all year
    service: bool = False  # an always-on service: a slice serves less throughput, its days do not stretch
    # Beside the cards: GB kept over the period and GB sent out, with their prices when the cache has none.
    storage_gb: float = Field(default=0, ge=0, le=10_000_000)
    storage_price: float | None = Field(default=None, gt=0, le=1000)  # per GB-month, in `currency`
    egress_gb: float = Field(default=0, ge=0, le=10_000_000)
    egress_price: float | None = Field(default=None, gt=0, le=1000)  # per GB, in `currency`
    # Options not to price, each with the reason the caller gives (e.g. {"shared": "peak_above_card"}).
    omit: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _schedule(self) -> QuoteRequest:
        if self.gpu_hours is None and (self.hours_per_day is None or self.days is None):
            raise ValueError("give hours per day and days, or total GPU-hours")
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
    notes: list[str] = Field(default_factory=list)
    alternatives: dict[str, float] = Field(default_factory=dict)


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
    currency: Currency
    hours_per_day: float
    days: float
    gpu_hours: float
    share: float
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


def _price(offer: Offer, currency: Currency, fx: FxRate | None, unit_price: float, unit: str) -> PriceUsed:
    r = offer.record
    return PriceUsed(
        source=r.source, provider=r.provider, instance_type=r.instance_type, region=r.region,
        unit_price=round(unit_price, 4), unit=unit, original=f"{r.amount:g} {r.currency}/{r.unit}",
        basis=r.basis, provenance=r.provenance, as_of=offer.as_of.date().isoformat(),
        age_days=offer.age_days, stale=offer.stale, flags=r.flags,
    )


class _Money:
    def __init__(self, currency: Currency, fx: FxRate | None) -> None:
        self.currency, self.fx, self.used = currency, fx, False

    def __call__(self, amount: float, from_currency: str) -> float:
        if from_currency == self.currency:
            return amount
        if self.fx is None:
            raise QuoteError("no_fx", f"no exchange rate to convert {from_currency} to {self.currency}",
                             source=from_currency, target=self.currency)
        self.used = True
        return convert(amount, from_currency, self.currency, self.fx)


def _is_reference(offer: Offer) -> bool:
    return "reference" in offer.record.flags.split(",")


def prefer_own_prices(offers: Sequence[Offer]) -> list[Offer]:
    """A team's rate card (or any live source) wins over the bundled reference price for the same GPU,
    sharing and billing: a team's own price is the truth for that team."""
    def key(o: Offer) -> tuple[str, str, str, str]:
        return o.record.gpu, o.record.sharing.value, o.record.pricing_model.value, o.record.unit.value

    own = {key(o) for o in offers if not _is_reference(o)}
    return [o for o in offers if not (_is_reference(o) and key(o) in own)]


INLAND = "inland"


def _extra(kind: str, gb: float, given: float | None, cached: Sequence[ExtraPrice], req: QuoteRequest,
           money: _Money) -> ExtraCost | None:
    if gb <= 0:
        return None
    months = round(req.period_days / 30, 2) if kind == "storage" else None
    if given is not None:
        price, source, basis = given, "given", ""
    else:
        found = [p for p in cached if p.kind.value == kind]
        if not found:
            flag = "--storage-price" if kind == "storage" else "--egress-price"
            raise QuoteError(f"no_{kind}_price", f"no {kind} price in the cache: give {flag} or add a {kind} row to "
                             "a rate card", flag=flag)
        cheapest = min(found, key=lambda p: money(p.amount, p.currency))
        price, source, basis = money(cheapest.amount, cheapest.currency), cheapest.source, cheapest.basis
    amount = gb * price * (months if months is not None else 1)
    return ExtraCost(kind=kind, gb=gb, unit_price=round(price, 4), unit="gb-month" if months is not None else "gb",
                     months=months, amount=round(amount, 2), source=source, basis=basis)


def _inland_estimate(option: Option | None, policy: Policy) -> Option | None:
    """An option priced from tier-1/any-region offers, lowered by the policy's inland discount
    (the articles: Inner Mongolia and Guizhou can be 20-30% cheaper), labelled an estimate."""
    if option is None:
        return None
    low, high = policy.regions.inland_discount_min, policy.regions.inland_discount_max
    return option.model_copy(update={
        "amount": round(option.amount * (1 - (low + high) / 2), 2),
        "amount_min": round(option.amount_min * (1 - high), 2), "amount_max": round(option.amount_max * (1 - low), 2),
        "estimate": True, "notes": [*option.notes, "estimated_inland_discount"]})


def _filter(offers: Sequence[Offer], req: QuoteRequest) -> list[Offer]:
    gpu = [o for o in offers if o.record.gpu == req.gpu]
    if not gpu:
        priced = sorted({o.record.gpu for o in offers})
        raise QuoteError("no_price", f"no cached price for {req.gpu}. GPUs with prices: {', '.join(priced) or 'none'}; "
                         "run `gpu-advise prices refresh` or add a rate card", gpu=req.gpu,
                         priced=", ".join(priced) or "-")
    if req.region is None:
        return gpu
    region = req.region.lower()
    matched = [o for o in gpu if region in (o.record.region.lower(), o.record.region_class.value)]
    if not matched and region == INLAND:
        return gpu  # estimated below from the other regions' prices and the policy's inland discount
    if not matched:
        known = sorted({o.record.region for o in gpu} | {o.record.region_class.value for o in gpu})
        raise QuoteError("no_region_price",
                         f"no price for {req.gpu} in region {req.region!r}. Regions with prices: {', '.join(known)}",
                         gpu=req.gpu, region=req.region, known=", ".join(known))
    return matched


def _dedicated(offers: list[Offer], req: QuoteRequest, money: _Money) -> tuple[Option | None, float | None]:
    """The cheapest dedicated billing, and its cost per card-day when billed by the day or month (for break-even)."""
    days = req.period_days
    best: dict[Billing, tuple[float, Offer, float, str, float | None]] = {}
    for offer in offers:
        r = offer.record
        if r.sharing is not Sharing.DEDICATED or r.pricing_model is PricingModel.SPOT:
            continue
        per_card = money(r.amount, r.currency) / r.gpu_count
        per_day: float | None
        if r.unit is Unit.DAY:
            billing, cost, per_day = Billing.DAILY, math.ceil(days - 1e-9) * per_card * req.cards, per_card
        elif r.unit is Unit.MONTH:
            billing, cost, per_day = Billing.MONTHLY, math.ceil(days / 30 - 1e-9) * per_card * req.cards, per_card / 30
        else:
            billing, cost, per_day = Billing.HOURLY, req.used_hours_per_card * per_card * req.cards, None
        if billing not in best or cost < best[billing][0]:
            best[billing] = (cost, offer, per_card, r.unit.value, per_day)
    if not best:
        return None, None
    billing = min(best, key=lambda b: best[b][0])
    cost, offer, unit_price, unit, per_day = best[billing]
    notes = ["release_between_runs"] if billing == Billing.HOURLY else ["billed_whole_period"]
    return Option(kind="dedicated", amount=round(cost, 2), amount_min=round(cost, 2), amount_max=round(cost, 2),
                  billing=billing, price=_price(offer, req.currency, money.fx, unit_price, unit), notes=notes,
                  alternatives={b: round(v[0], 2) for b, v in best.items() if b != billing}), per_day


def _reference_card_hour(offers: list[Offer], money: _Money) -> tuple[float, Offer] | None:
    """A dedicated card-hour price to estimate from: on-demand hourly, else daily / 24, else monthly / 720."""
    ranked = []
    for offer in offers:
        r = offer.record
        if r.sharing is Sharing.DEDICATED and r.pricing_model is not PricingModel.SPOT:
            order = {Unit.HOUR: 0, Unit.DAY: 1, Unit.MONTH: 2}[r.unit]
            ranked.append((order, money(r.per_gpu_hour, r.currency), offer))
    if not ranked:
        return None
    _, price, offer = min(ranked, key=lambda t: (t[0], t[1]))
    return price, offer


def _shared(offers: list[Offer], req: QuoteRequest, share: float, policy: Policy,
            money: _Money) -> tuple[Option | None, float | None]:
    """Shared option, and its price per slice-hour (for break-even)."""
    slices = [o for o in offers if o.record.sharing is not Sharing.DEDICATED
              and o.record.pricing_model is not PricingModel.SPOT]
    if share >= 1:  # a whole card by the hour: an on-demand card is that offer
        slices += [o for o in offers if o.record.sharing is Sharing.DEDICATED and o.record.unit is Unit.HOUR
                   and o.record.pricing_model is not PricingModel.SPOT]
    notes: list[str] = []
    estimate = False
    if slices:
        offer = min(slices, key=lambda o: (abs(o.record.gpu_count - share),
                                           money(o.record.per_hour, o.record.currency)))
        exact = abs(offer.record.gpu_count - share) < 1e-6
        hourly = money(offer.record.per_gpu_hour, offer.record.currency) * share
        if not exact:
            notes.append("scaled_from_other_slice")
    else:
        reference = _reference_card_hour(offers, money)
        if reference is None:
            return None, None
        card_hour, offer = reference
        hourly, estimate = card_hour * share, True
        notes.append("estimated_proportional_to_slice")
    nominal = req.used_hours_per_card * hourly * req.cards
    days = req.period_days
    # A slice runs at 70-80% of a dedicated card's speed (policy), so a batch job's days stretch; a whole
    # card by the hour runs at full speed; a service's days do not stretch (it serves less throughput).
    stretch = share < 1 and not req.service
    eff_min, eff_max = (policy.shared.efficiency_min, policy.shared.efficiency_max) if stretch else (1.0, 1.0)
    if req.service and share < 1:
        notes.append("service_throughput")
    return Option(
        kind="shared", amount=round(nominal, 2), amount_min=round(nominal / eff_max, 2),
        amount_max=round(nominal / eff_min, 2), billing=Billing.HOURLY, estimate=estimate,
        price=_price(offer, req.currency, money.fx, hourly, "hour"), share=share,
        days_min=round(days / eff_max, 2), days_max=round(days / eff_min, 2), notes=notes,
        memory_gb=round(gpu_model(req.gpu).memory_gb * share, 1) * req.cards,
    ), hourly


def _spot(offers: list[Offer], req: QuoteRequest, policy: Policy, money: _Money) -> Option | None:
    hours = req.used_hours_per_card * req.cards
    spots = [o for o in offers if o.record.pricing_model is PricingModel.SPOT
             and o.record.sharing is Sharing.DEDICATED]
    if spots:
        offer = min(spots, key=lambda o: money(o.record.per_gpu_hour, o.record.currency))
        hourly = money(offer.record.per_gpu_hour, offer.record.currency)
        cost = round(hours * hourly, 2)
        return Option(kind="spot", amount=cost, amount_min=cost, amount_max=cost, billing=Billing.HOURLY,
                      price=_price(offer, req.currency, money.fx, hourly, "hour"), notes=["needs_checkpoints"])
    reference = _reference_card_hour(offers, money)
    if reference is None:
        return None
    card_hour, offer = reference
    low, high = policy.spot.price_fraction_min, policy.spot.price_fraction_max
    return Option(kind="spot", amount=round(hours * card_hour * low, 2), amount_min=round(hours * card_hour * low, 2),
                  amount_max=round(hours * card_hour * high, 2), billing=Billing.HOURLY, estimate=True,
                  price=_price(offer, req.currency, money.fx, card_hour, "hour"),
                  notes=["estimated_from_policy_range", "needs_checkpoints"])


def _break_even(per_day: float | None, slice_hour: float | None, policy: Policy,
                stretch: bool = True) -> dict[str, float | None] | None:
    """Hours a day of use at which a card billed by the day costs the same as the shared slice (counting
    the slice's 70-80% speed when `stretch`: a whole card by the hour, or a service, runs at full speed)."""
    if per_day is None or not slice_hour:
        return None

    def hours(efficiency: float) -> float | None:
        value = per_day * efficiency / slice_hour
        return round(value, 2) if value <= 24 else None  # None: shared stays cheaper all day

    if not stretch:
        return {"nominal": hours(1.0), "adjusted_min": hours(1.0), "adjusted_max": hours(1.0)}
    return {"nominal": hours(1.0), "adjusted_min": hours(policy.shared.efficiency_min),
            "adjusted_max": hours(policy.shared.efficiency_max)}


def _saving(dedicated: Option, amount: float) -> float:
    return round((1 - amount / dedicated.amount) * 100, 1)


Savings = tuple[dict[str, float], dict[str, tuple[float, float]]]


def _savings(dedicated: Option | None, others: dict[str, Option | None]) -> Savings:
    nominal: dict[str, float] = {}
    ranges: dict[str, tuple[float, float]] = {}
    if dedicated is None or dedicated.amount == 0:
        return nominal, ranges
    for kind, option in others.items():
        if option is not None:
            nominal[kind] = _saving(dedicated, option.amount)
            ranges[kind] = (_saving(dedicated, option.amount_max), _saving(dedicated, option.amount_min))
    return nominal, ranges


def quote(req: QuoteRequest, offers: Sequence[Offer], policy: Policy, *, fx: FxRate | None = None,
          extra_prices: Sequence[ExtraPrice] = ()) -> Quote:
    """Cost of each option for `req` from `offers` (cached prices with their freshness)."""
    try:
        gpu = canonical_gpu(req.gpu)
    except UnknownGPU:
        known = ", ".join(sorted(CATALOGUE))
        raise QuoteError("unknown_gpu", f"unknown GPU model {req.gpu!r}. Known models: {known}",
                         gpu=req.gpu, known=known) from None
    req = req.model_copy(update={"gpu": gpu})
    usable = prefer_own_prices(_filter(offers, req))
    inland = (req.region or "").lower() == INLAND and not any(o.record.region_class.value == INLAND for o in usable)
    money = _Money(req.currency, fx)
    share = req.share or policy.shared.default_share
    dedicated, per_day = _dedicated(usable, req, money)
    shared, slice_hour = (None, None) if "shared" in req.omit else _shared(usable, req, share, policy, money)
    spot = None if "spot" in req.omit else _spot(usable, req, policy, money)
    if inland:
        dedicated, shared, spot = (_inland_estimate(o, policy) for o in (dedicated, shared, spot))
    whole = {"memory_gb": gpu_model(gpu).memory_gb * req.cards}
    dedicated = dedicated.model_copy(update=whole) if dedicated else None
    spot = spot.model_copy(update=whole) if spot else None
    extras = {kind: cost for kind, gb, given in (("storage", req.storage_gb, req.storage_price),
                                                  ("egress", req.egress_gb, req.egress_price))
              if (cost := _extra(kind, gb, given, extra_prices, req, money)) is not None}
    beside = sum(cost.amount for cost in extras.values())
    totals = {o.kind: round(o.amount + beside, 2) for o in (dedicated, shared, spot) if o is not None} if extras else {}
    savings, savings_range = _savings(dedicated, {"shared": shared, "spot": spot})
    yearly = req.yearly_gpu_hours if req.yearly_gpu_hours is not None else req.daily_hours * 365 * req.cards
    threshold = policy.rent_vs_buy.gpu_hours_per_year
    chosen = [o for o in (dedicated, shared, spot) if o is not None]
    return Quote(
        gpu=gpu, cards=req.cards, currency=req.currency, hours_per_day=req.daily_hours, days=req.period_days,
        gpu_hours=round(req.used_hours_per_card * req.cards, 2), share=share, dedicated=dedicated, shared=shared,
        spot=spot, savings_pct=savings, savings_range_pct=savings_range,
        break_even_hours_per_day=_break_even(per_day, slice_hour, policy, share < 1 and not req.service),
        rent_vs_buy={"yearly_gpu_hours_at_this_pace": yearly, "threshold": threshold,
                     "advice": "rent" if yearly <= threshold else "consider_buying"},
        fx=({"rate": fx.rate, "date": fx.rate_date.isoformat(), "source": fx.source, "pair": f"{fx.base}/{fx.quote}"}
            if fx is not None and money.used else None),
        stale=any(o.price is not None and o.price.stale for o in chosen), omitted=dict(req.omit),
        service=req.service, extras=extras, totals=totals,
    )
