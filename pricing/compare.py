"""`quote --compare`: the same schedule priced at each provider, cheapest total first.

Per provider: its cheapest dedicated offer for the schedule, its shared slice where it sells one (an
estimate from the policy is not an offer and is left out), its spot price where it sells spot, and the
total (dedicated, with storage and traffic where their prices are known). The articles' advice: compare
platforms on the total cost of a baseline run, not on the hourly price.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from pricing.errors import QuoteError
from pricing.fx import FxRate
from pricing.offers import Offer
from pricing.quote import Option, Quote, QuoteRequest, quote, quoted_gpu
from pricing.records import ExtraPrice, Sharing
from rules.policy import Policy


class ProviderOffer(BaseModel):
    """One row of the comparison (the JSON's keys in this order)."""

    provider: str
    source: str
    region: str
    gpu: str
    billing: str
    dedicated: float | None
    spot: float | None
    total: float
    currency: str
    price_date: str
    shared: float | None = None
    includes: list[str] = []  # storage, egress: what the total counts beside the cards (where priced)


def _sold(option: Option | None) -> Option | None:
    return option if option is not None and not option.estimate and option.price is not None else None


def _row(provider: str, result: Quote, sells_slices: bool) -> ProviderOffer | None:
    dedicated, spot = _sold(result.dedicated), _sold(result.spot)
    shared = _sold(result.shared) if sells_slices else None
    chosen = dedicated or shared or spot
    if chosen is None or chosen.price is None:
        return None
    beside = sum(cost.amount for cost in result.extras.values())
    return ProviderOffer(
        provider=provider,
        source=chosen.price.source,
        region=chosen.price.region,
        gpu=result.gpu,
        billing=chosen.billing,
        dedicated=dedicated.amount if dedicated else None,
        spot=spot.amount if spot else None,
        total=round(chosen.amount + beside, 2),
        currency=result.currency,
        price_date=chosen.price.as_of[:10],
        shared=shared.amount if shared else None,
        includes=sorted(result.extras),
    )


def _quote(
    req: QuoteRequest, offers: Sequence[Offer], policy: Policy, fx: FxRate | None, extras: Sequence[ExtraPrice]
) -> Quote:
    """The provider's quote with its own storage and traffic prices; without them when it has none."""
    try:
        return quote(req, offers, policy, fx=fx, extra_prices=extras)
    except QuoteError as exc:
        if exc.code not in ("no_storage_price", "no_egress_price"):
            raise
        unknown = {"storage_gb": 0} if exc.code == "no_storage_price" else {"egress_gb": 0}
        return _quote(req.model_copy(update=unknown), offers, policy, fx, extras)


def compare(
    req: QuoteRequest,
    offers: Sequence[Offer],
    policy: Policy,
    *,
    fx: FxRate | None = None,
    extra_prices: Sequence[ExtraPrice] = (),
) -> list[ProviderOffer]:
    """Each provider that prices the GPU (in the region, if one is asked), cheapest total first."""
    gpu = quoted_gpu(req.gpu)
    providers = sorted({o.record.provider for o in offers if o.record.gpu == gpu})
    if not providers:
        priced = sorted({o.record.gpu for o in offers})
        raise QuoteError("no_price", f"no cached price for {gpu}", gpu=gpu, priced=", ".join(priced) or "-")
    rows = []
    for provider in providers:
        mine = [o for o in offers if o.record.provider == provider]
        try:
            result = _quote(
                req.model_copy(update={"provider": provider}),
                mine,
                policy,
                fx,
                [e for e in extra_prices if e.provider == provider],
            )
        except QuoteError as exc:
            if exc.code == "no_fx":
                raise  # no provider can be priced in this currency: say so, not "no prices"
            continue  # e.g. no price of it in the region asked
        slices = any(o.record.sharing is not Sharing.DEDICATED and o.record.gpu == gpu for o in mine)
        row = _row(provider, result, slices)
        if row is not None:
            rows.append(row)
    return sorted(rows, key=lambda r: (r.total, r.provider))
