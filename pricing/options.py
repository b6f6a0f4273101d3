"""Pricing each option of a quote from the offers: dedicated, shared, spot, and storage and traffic.

Pure: the offers, the request, the policy and an exchange rate come in; quote.py puts them together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pricing.errors import QuoteError
from pricing.fx import EuroRates, FxRate, convert
from pricing.offers import Offer
from pricing.quote_models import Billing, ExtraCost, Option, PriceUsed, QuoteRequest
from pricing.records import ExtraPrice, PriceRecord, PricingModel, Sharing, Unit
from rules.gpus import gpu_model
from rules.policy import Policy


def price_used(offer: Offer, currency: str, fx: FxRate | None, unit_price: float, unit: str) -> PriceUsed:
    r = offer.record
    return PriceUsed(
        source=r.source,
        provider=r.provider,
        instance_type=r.instance_type,
        region=r.region,
        unit_price=round(unit_price, 4),
        unit=unit,
        original=f"{r.amount:g} {r.currency}/{r.unit}",
        basis=r.basis,
        provenance=r.provenance,
        as_of=offer.as_of.date().isoformat(),
        age_days=offer.age_days,
        stale=offer.stale,
        flags=r.flags,
    )


class Money:
    """Amounts in the quote's currency: USD<->CNY with the chosen USD/CNY rate (configured or the ECB's),
    any other pair through the euro with the ECB's rates of the day. `used` names the rate a conversion took,
    for the quote to state."""

    def __init__(self, currency: str, fx: FxRate | None, euro: EuroRates | None = None) -> None:
        self.currency, self.fx, self.euro = currency, fx, euro
        self.used: dict[str, str | float] | None = None

    def __call__(self, amount: float, from_currency: str) -> float:
        if from_currency == self.currency:
            return amount
        pair = {from_currency, self.currency}
        if self.fx is not None and pair == {self.fx.base, self.fx.quote}:
            self.used = self.used or {
                "rate": self.fx.rate,
                "date": self.fx.rate_date.isoformat(),
                "source": self.fx.source,
                "pair": f"{self.fx.base}/{self.fx.quote}",
            }
            return convert(amount, from_currency, self.currency, self.fx)
        rate = self.euro.rate(from_currency, self.currency) if self.euro is not None else None
        if rate is None or self.euro is None:
            raise QuoteError(
                "no_fx",
                f"no exchange rate to convert {from_currency} to {self.currency}: "
                "turn on the ECB source (GPU_ADVISOR_ECB_ENABLED) and run `gpu-advise prices refresh`",
                source=from_currency,
                target=self.currency,
            )
        self.used = self.used or {
            "rate": round(rate, 6),
            "date": self.euro.rate_date.isoformat(),
            "source": self.euro.source,
            "pair": f"{from_currency}/{self.currency}",
        }
        return amount * rate


INLAND = "inland"


def extra_cost(
    kind: str, gb: float, given: float | None, cached: Sequence[ExtraPrice], req: QuoteRequest, money: Money
) -> ExtraCost | None:
    if gb <= 0:
        return None
    months = round(req.period_days / 30, 2) if kind == "storage" else None
    if given is not None:
        price, source, basis = given, "given", ""
    else:
        # rows in the quote's currency, or convertible to it with the cached rate
        found = [p for p in cached if p.kind.value == kind and (p.currency == req.currency or money.fx is not None)]
        if not found:
            flag = "--storage-price" if kind == "storage" else "--egress-price"
            raise QuoteError(
                f"no_{kind}_price",
                f"no {kind} price in the cache: give {flag} or add a {kind} row to a rate card",
                flag=flag,
            )
        cheapest = min(found, key=lambda p: money(p.amount, p.currency))
        price, source, basis = money(cheapest.amount, cheapest.currency), cheapest.source, cheapest.basis
    amount = gb * price * (months if months is not None else 1)
    return ExtraCost(
        kind=kind,
        gb=gb,
        unit_price=round(price, 4),
        unit="gb-month" if months is not None else "gb",
        months=months,
        amount=round(amount, 2),
        source=source,
        basis=basis,
    )


def inland_estimate(option: Option | None, policy: Policy) -> Option | None:
    """An option priced from tier-1/any-region offers, lowered by the policy's inland discount
    (the articles: Inner Mongolia and Guizhou can be 20-30% cheaper), labelled an estimate."""
    if option is None:
        return None
    low, high = policy.regions.inland_discount_min, policy.regions.inland_discount_max
    return option.model_copy(
        update={
            "amount": round(option.amount * (1 - (low + high) / 2), 2),
            "amount_min": round(option.amount_min * (1 - high), 2),
            "amount_max": round(option.amount_max * (1 - low), 2),
            "estimate": True,
            "notes": [*option.notes, "estimated_inland_discount"],
        }
    )


def rentable_rows(offers: list[Offer], cards: int) -> list[Offer]:
    """The rows a request for `cards` whole cards can rent: a node of more cards than asked is set aside when a row
    of at most that many exists in its class (on-demand/period, or spot), since a node is rented whole; its per-card
    rate is kept only where nothing smaller is sold (a provider selling the H100 by the 8-card node only)."""
    set_aside: set[int] = set()
    for spot in (False, True):
        whole = [
            o
            for o in offers
            if o.record.sharing is Sharing.DEDICATED and (o.record.pricing_model is PricingModel.SPOT) == spot
        ]
        if any(o.record.gpu_count <= cards for o in whole):
            set_aside |= {id(o) for o in whole if o.record.gpu_count > cards}
    return [o for o in offers if id(o) not in set_aside]


TIERS = (96.0, 360.0)  # the hours of continuous use after which a tiered price drops (Tencent Cloud's 阶梯计费)


def tiered_hours(record: PriceRecord, req: QuoteRequest) -> float:
    """A card's hours as first-tier hours: each hour past 96 and past 360 of one instance's continuous use weighed
    by its cheaper tier's share of the first. A run of 24 h a day is one continuous use; shorter days are runs that
    each start again (released between them)."""
    hours = req.used_hours_per_card
    second, third = record.amount_after_96h, record.amount_after_360h
    if not second and not third:
        return hours
    run = hours if req.daily_hours >= 24 else req.daily_hours
    runs = hours / run if run else 0.0
    first_tier = min(run, TIERS[0])
    second_tier = max(min(run, TIERS[1]) - TIERS[0], 0.0)
    third_tier = max(run - TIERS[1], 0.0)
    base: float = record.amount
    weighed = first_tier + second_tier * (second or base) / base + third_tier * (third or second or base) / base
    return weighed * runs


def dedicated_option(offers: list[Offer], req: QuoteRequest, money: Money) -> tuple[Option | None, float | None]:
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
            hours = tiered_hours(r, req)
            billing, cost, per_day = Billing.HOURLY, hours * per_card * req.cards, None
        if billing not in best or cost < best[billing][0]:
            best[billing] = (cost, offer, per_card, r.unit.value, per_day)
    if not best:
        return None, None
    # the billing the advice names, when a price for it exists; else the cheapest, saying why
    advised = {"hourly": {Billing.HOURLY}, "period": {Billing.DAILY, Billing.MONTHLY}}.get(req.dedicated_billing or "")
    candidates = [b for b in best if advised is None or b in advised]
    billing_note = None
    if not candidates:
        candidates, billing_note = list(best), f"no_{req.dedicated_billing}_price"
    billing = min(candidates, key=lambda b: best[b][0])
    cost, offer, unit_price, unit, per_day = best[billing]
    notes = ["release_between_runs"] if billing == Billing.HOURLY else ["billed_whole_period"]
    return Option(
        kind="dedicated",
        amount=round(cost, 2),
        amount_min=round(cost, 2),
        amount_max=round(cost, 2),
        billing=billing,
        price=price_used(offer, req.currency, money.fx, unit_price, unit),
        notes=notes,
        alternatives={b: round(v[0], 2) for b, v in best.items() if b != billing},
        billing_note=billing_note,
    ), per_day


def reference_card_hour(offers: list[Offer], money: Money) -> tuple[float, Offer] | None:
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


def shared_option(
    offers: list[Offer], req: QuoteRequest, share: float, policy: Policy, money: Money
) -> tuple[Option | None, float | None]:
    """Shared option, and its price per slice-hour (for break-even)."""
    slices = [
        o
        for o in offers
        if o.record.sharing is not Sharing.DEDICATED and o.record.pricing_model is not PricingModel.SPOT
    ]
    if share >= 1:  # a whole card by the hour: an on-demand card is that offer
        slices += [
            o
            for o in offers
            if o.record.sharing is Sharing.DEDICATED
            and o.record.unit is Unit.HOUR
            and o.record.pricing_model is not PricingModel.SPOT
        ]
    notes: list[str] = []
    estimate = False
    if slices:
        offer = min(
            slices, key=lambda o: (abs(o.record.gpu_count - share), money(o.record.per_hour, o.record.currency))
        )
        exact = abs(offer.record.gpu_count - share) < 1e-6
        hourly = money(offer.record.per_gpu_hour, offer.record.currency) * share
        if not exact:
            notes.append("scaled_from_other_slice")
    else:
        reference = reference_card_hour(offers, money)
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
        kind="shared",
        amount=round(nominal, 2),
        amount_min=round(nominal / eff_max, 2),
        amount_max=round(nominal / eff_min, 2),
        billing=Billing.HOURLY,
        estimate=estimate,
        price=price_used(offer, req.currency, money.fx, hourly, "hour"),
        share=share,
        days_min=round(days / eff_max, 2),
        days_max=round(days / eff_min, 2),
        notes=notes,
        memory_gb=(req.shared_memory_gb or round(gpu_model(req.gpu).memory_gb * share, 1)) * req.cards,
        sharing=req.sharing,
    ), hourly


def spot_option(offers: list[Offer], req: QuoteRequest, policy: Policy, money: Money) -> Option | None:
    hours = req.used_hours_per_card * req.cards
    spots = [o for o in offers if o.record.pricing_model is PricingModel.SPOT and o.record.sharing is Sharing.DEDICATED]
    if spots:
        offer = min(spots, key=lambda o: money(o.record.per_gpu_hour, o.record.currency))
        hourly = money(offer.record.per_gpu_hour, offer.record.currency)
        cost = round(hours * hourly, 2)
        return Option(
            kind="spot",
            amount=cost,
            amount_min=cost,
            amount_max=cost,
            billing=Billing.HOURLY,
            price=price_used(offer, req.currency, money.fx, hourly, "hour"),
            notes=["needs_checkpoints"],
        )
    reference = reference_card_hour(offers, money)
    if reference is None:
        return None
    card_hour, offer = reference
    low, high = policy.spot.price_fraction_min, policy.spot.price_fraction_max
    return Option(
        kind="spot",
        amount=round(hours * card_hour * low, 2),
        amount_min=round(hours * card_hour * low, 2),
        amount_max=round(hours * card_hour * high, 2),
        billing=Billing.HOURLY,
        estimate=True,
        price=price_used(offer, req.currency, money.fx, card_hour, "hour"),
        notes=["estimated_from_policy_range", "needs_checkpoints"],
    )
