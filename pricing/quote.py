"""The cost calculator: dedicated, shared and spot for one schedule. Pure: prices, rates and policy come in.

The models live in quote_models.py and each option's arithmetic in options.py; this module filters
the offers, prices the options and compares them (savings, break-even, rent vs buy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pricing.errors import QuoteError
from pricing.fx import FxRate
from pricing.offers import Offer
from pricing.options import (
    INLAND,
    Money,
    dedicated_option,
    extra_cost,
    inland_estimate,
    reference_card_hour,
    rentable_rows,
    shared_option,
    spot_option,
)
from pricing.quote_models import Billing, ExtraCost, Option, PriceUsed, Quote, QuoteRequest
from pricing.records import ExtraPrice, RegionClass
from pricing.regions import accepted, region_class, resolve
from rules.errors import UnknownGPU
from rules.gpus import VARIANTS, canonical_gpu, gpu_model
from rules.policy import Policy

__all__ = ["Billing", "ExtraCost", "Option", "PriceUsed", "Quote", "QuoteRequest", "prefer_own_prices", "quote"]


def prefer_own_prices(offers: Sequence[Offer]) -> list[Offer]:
    """A team's rate card (or any live source) replaces the bundled reference prices for every GPU it
    prices, whatever the billing: a team's own price is the truth for that team. A sharing kind or spot
    its card lacks is then estimated from its own price with the policy's fractions (labelled so).
    Reference rows stay only for GPUs that nothing else prices."""
    own = {o.record.gpu for o in offers if not o.reference}
    return [o for o in offers if not (o.reference and o.record.gpu in own)]


def _filter(offers: Sequence[Offer], req: QuoteRequest) -> list[Offer]:
    gpu = [o for o in offers if o.record.gpu == req.gpu]
    if not gpu:  # a family named without its variant ("910B"): its variants' prices
        gpu = [o for o in offers if o.record.gpu in VARIANTS.get(req.gpu, ())]
    if not gpu:
        priced = sorted({o.record.gpu for o in offers})
        raise QuoteError(
            "no_price",
            f"no cached price for {req.gpu}. GPUs with prices: {', '.join(priced) or 'none'}; "
            "run `gpu-advise prices refresh` or add a rate card",
            gpu=req.gpu,
            priced=", ".join(priced) or "-",
        )
    if req.provider is not None:
        sold = [o for o in gpu if o.record.provider.lower() == req.provider.lower()]
        if not sold:
            sellers = ", ".join(sorted({o.record.provider for o in gpu}))
            # what the provider does price, so `A100在lambda上多少钱` is told lambda has the A100-40GB
            theirs = ", ".join(
                sorted({o.record.gpu for o in offers if o.record.provider.lower() == req.provider.lower()})
            )
            raise QuoteError(
                "no_provider_price",
                f"no price for {req.gpu} from provider {req.provider!r}. Providers with prices: {sellers}; "
                f"{req.provider} prices: {theirs or '-'}",
                gpu=req.gpu,
                provider=req.provider,
                known=sellers,
                theirs=theirs or "-",
            )
        gpu = sold
    if req.region is None:
        return gpu
    name, tier = resolve(req.region)
    region = name or (tier.value if tier else req.region.lower())
    matched = [o for o in gpu if region in (o.record.region.lower(), o.record.region_class.value)]
    if not matched and name is not None and tier is not None:  # a named region without prices: its class's
        matched = [o for o in gpu if o.record.region_class is tier]
        region = tier.value
    if not matched and region == INLAND:
        return gpu  # estimated below from the other regions' prices and the policy's inland discount
    if not matched:
        known = sorted({o.record.region for o in gpu} | {o.record.region_class.value for o in gpu})
        raise QuoteError(
            "no_region_price",
            f"no price for {req.gpu} in region {req.region!r}. Regions with prices: {', '.join(known)}; "
            f"names and classes: {accepted()}",
            gpu=req.gpu,
            region=req.region,
            known=", ".join(known),
            names=accepted(),
        )
    return matched


def _break_even(
    per_day: float | None, slice_hour: float | None, policy: Policy, stretch: bool = True
) -> dict[str, float | None] | None:
    """Hours a day of use at which a card billed by the day costs the same as the shared slice (counting
    the slice's 70-80% speed when `stretch`: a whole card by the hour, or a service, runs at full speed)."""
    if per_day is None or not slice_hour:
        return None

    def hours(efficiency: float) -> float | None:
        value = per_day * efficiency / slice_hour
        return round(value, 2) if value <= 24 else None  # None: shared stays cheaper all day

    if not stretch:
        return {"nominal": hours(1.0), "adjusted_min": hours(1.0), "adjusted_max": hours(1.0)}
    return {
        "nominal": hours(1.0),
        "adjusted_min": hours(policy.shared.efficiency_min),
        "adjusted_max": hours(policy.shared.efficiency_max),
    }


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


def quoted_gpu(name: str) -> str:
    """The canonical model a quote is for; QuoteError("unknown_gpu") naming the known ones, or ("gpu_maker") the
    cards of the maker named."""
    try:
        return canonical_gpu(name)
    except UnknownGPU as exc:
        known = ", ".join(exc.known)
        code = "gpu_maker" if exc.maker else "unknown_gpu"
        raise QuoteError(code, f"unknown GPU model {name!r}. Known models: {known}", gpu=name, known=known) from None


def _with_extras(
    req: QuoteRequest, extra_prices: Sequence[ExtraPrice], money: Money, options: tuple[Option | None, ...]
) -> tuple[dict[str, ExtraCost], dict[str, float], dict[str, tuple[float, float]]]:
    """Storage and egress beside the cards (when asked for), and each option's total with them (and its range)."""
    extras = {
        kind: cost
        for kind, gb, given in (
            ("storage", req.storage_gb, req.storage_price),
            ("egress", req.egress_gb, req.egress_price),
        )
        if (cost := extra_cost(kind, gb, given, extra_prices, req, money)) is not None
    }
    beside = sum(cost.amount for cost in extras.values())
    priced = [o for o in options if o is not None] if extras else []
    totals = {o.kind: round(o.amount + beside, 2) for o in priced}
    totals_range = {
        o.kind: (round(o.amount_min + beside, 2), round(o.amount_max + beside, 2))
        for o in priced
        if o.amount_max - o.amount_min > 0.005
    }
    return extras, totals, totals_range


def _rent_vs_buy(req: QuoteRequest, policy: Policy) -> dict[str, Any]:
    """The GPU-hours a year at this pace, per card (the threshold is the use of one card you would own). Total
    GPU-hours alone say no pace ("no_pace"): 100 GPU-hours run back to back are no year of 24 h days."""
    threshold = policy.rent_vs_buy.gpu_hours_per_year
    if req.yearly_gpu_hours is None and not req.paced:
        return {"threshold": threshold, "advice": "no_pace"}
    yearly = req.yearly_gpu_hours if req.yearly_gpu_hours is not None else req.daily_hours * 365 * req.cards
    per_card = round(yearly / max(req.cards, 1), 1)
    return {
        "yearly_gpu_hours_at_this_pace": yearly,
        "yearly_gpu_hours_per_card": per_card,
        "threshold": threshold,
        "advice": "rent" if per_card <= threshold else "consider_buying",
    }


def quote(
    req: QuoteRequest,
    offers: Sequence[Offer],
    policy: Policy,
    *,
    fx: FxRate | None = None,
    extra_prices: Sequence[ExtraPrice] = (),
) -> Quote:
    """Cost of each option for `req` from `offers` (cached prices with their freshness)."""
    gpu = quoted_gpu(req.gpu)
    req = req.model_copy(update={"gpu": gpu})
    usable = rentable_rows(prefer_own_prices(_filter(offers, req)), req.cards)
    inland = region_class(req.region) is RegionClass.INLAND and not any(
        o.record.region_class.value == INLAND for o in usable
    )
    money = Money(req.currency, fx, fx.euro if fx is not None else None)
    share = req.share or policy.shared.default_share
    dedicated, per_day = dedicated_option(usable, req, money)
    shared, slice_hour = (None, None) if "shared" in req.omit else shared_option(usable, req, share, policy, money)
    spot = None if "spot" in req.omit else spot_option(usable, req, policy, money)
    if inland:
        dedicated, shared, spot = (inland_estimate(o, policy) for o in (dedicated, shared, spot))
    if req.option_notes:  # what the caller says of an option (why a cheaper row is not the decision)
        dedicated, shared, spot = (
            o.model_copy(update={"notes": [*o.notes, *req.option_notes.get(o.kind, [])]}) if o is not None else None
            for o in (dedicated, shared, spot)
        )
    whole = {"memory_gb": gpu_model(gpu).memory_gb * req.cards}
    dedicated = dedicated.model_copy(update=whole) if dedicated else None
    spot = spot.model_copy(update=whole) if spot else None
    extras, totals, totals_range = _with_extras(req, extra_prices, money, (dedicated, shared, spot))
    savings, savings_range = _savings(dedicated, {"shared": shared, "spot": spot})
    chosen = [o for o in (dedicated, shared, spot) if o is not None]
    reference = reference_card_hour(usable, money)
    shared_pct = (
        round(slice_hour / reference[0] * 100, 1)
        if slice_hour and reference and reference[0] > 0 and not inland
        else None
    )
    return Quote(
        gpu=gpu,
        cards=req.cards,
        currency=req.currency,
        hours_per_day=req.daily_hours,
        days=req.period_days,
        gpu_hours=round(req.used_hours_per_card * req.cards, 2),
        share=share,
        paced=req.paced,
        dedicated=dedicated,
        shared=shared,
        spot=spot,
        savings_pct=savings,
        savings_range_pct=savings_range,
        break_even_hours_per_day=_break_even(per_day, slice_hour, policy, share < 1 and not req.service),
        rent_vs_buy=_rent_vs_buy(req, policy),
        fx=money.used,
        stale=any(o.price is not None and o.price.stale for o in chosen),
        omitted=dict(req.omit),
        service=req.service,
        extras=extras,
        totals=totals,
        totals_range=totals_range,
        shared_price_pct=shared_pct,
    )
