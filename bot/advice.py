"""The advice use case: parsed answers -> profile -> decision -> quote, as one typed result.

Both front ends call advise() and render the Advice it returns: the Slack views and the terminal
print the same decision, and `--json` is Advice.to_json(). The quote is made through a `quoter`
the caller passes in (the price cache, or nothing in a test), so this module does no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from bot.text.lang import Lang
from bot.text.reasons import headline, render
from pricing.errors import QuoteError
from rules.answers import build_profile
from rules.decision import Choice, Decision
from rules.engine import evaluate
from rules.fit import FitKind, SharedOption
from rules.policy import Policy
from rules.profile import Schedule, TaskProfile, Workload
from rules.schedule import assumed_schedule

if TYPE_CHECKING:  # the quote models load with the quote, not with every decision
    from pricing.quote import Quote, QuoteRequest

Quoter = Callable[["QuoteRequest"], "Quote"]


def without_none(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without its None values, at every depth (what was not answered is left out)."""
    return {k: without_none(v) if isinstance(v, dict) else v for k, v in data.items() if v is not None}


def shared_json(option: SharedOption | None) -> dict[str, Any] | None:
    """The shared option as --json says it: `kind` is the kind of sharing (vnpu, qgpu, hami, time-slicing)
    where there is one, else how it fits (slice, fraction, whole_card, assumed); `sharing` says which was asked."""
    if option is None:
        return None
    out = asdict(option)
    if option.sharing in ("vnpu", "qgpu", "hami", "time-slicing") and option.kind is not FitKind.WHOLE_CARD:
        out["kind"] = option.sharing
    return out


@dataclass(frozen=True)
class Advice:
    profile: TaskProfile
    decision: Decision
    quote: Quote | None = None
    quote_error: QuoteError | None = None
    schedule_assumed: bool = False  # the quote's schedule was derived from the answers, not given

    def to_json(self, lang: Lang) -> dict[str, Any]:
        """The decision as plain data (what `advise --json` prints), with `quote` when one was made."""
        decision = self.decision
        data: dict[str, Any] = {
            "choice": decision.choice.value,
            "choice_text": headline(decision, lang),
            "basis": decision.basis.value,
            "hits": [c.rule.value for c in decision.hits],
            "hits_needed": decision.hits_needed,
            "checks": [
                {"rule": c.rule.value, "fired": c.fired, "id": c.id, "params": c.params, "text": render(c, lang)}
                for c in decision.checks
            ],
            "reasons": [render(r, lang) for r in [*decision.hits, *decision.verdict]],
            "advice": [
                {"topic": a.topic.value, "id": a.id, "params": a.params, "text": render(a, lang)}
                for a in decision.guidance
            ],
            "missing": [q.value for q in decision.missing],
            "gpu": decision.gpu,
            "memory_peak_gb": decision.memory_peak_gb,
            "mig_profile": decision.mig_profile,
            "share_fraction": round(decision.share_fraction, 4),
            "spot_suitable": decision.spot_suitable,
            "spot_reason": decision.spot_reason,
            "cards": decision.cards,
            "max_concurrent_requests": decision.max_concurrent_requests,
            "shared_option": shared_json(decision.shared),
            "warnings": [{"id": w.id, "params": w.params, "text": render(w, lang)} for w in decision.warnings],
            "yearly_gpu_hours": decision.yearly_gpu_hours,
            "profile": without_none(asdict(self.profile)),
            "lang": lang.value,
        }
        if self.quote is not None or self.quote_error is not None:
            data["schedule_assumed"] = self.schedule_assumed
        if self.quote is not None:
            data["quote"] = self.quote.model_dump(mode="json")
        return data


def quote_request(
    profile: TaskProfile, decision: Decision, policy: Policy, schedule: Schedule, currency: str
) -> QuoteRequest:
    """What to price for a decision: its GPU and the cards it needs, the shared option that holds the
    peak (none when no shared option does), and spot only where spot suits the job."""
    from pricing.quote import QuoteRequest

    omit = {} if decision.shared is not None else {"shared": "peak_above_card"}
    if not decision.spot_suitable and decision.spot_reason:
        omit["spot"] = decision.spot_reason
    notes = {"shared": ["shared_compared_dedicated"]} if decision.choice is Choice.DEDICATED else {}
    return QuoteRequest(
        gpu=decision.gpu,
        cards=decision.cards,
        hours_per_day=schedule.hours_per_day,
        days=schedule.days,
        share=decision.shared.share if decision.shared else None,
        sharing=decision.shared.sharing if decision.shared else None,
        shared_memory_gb=decision.shared.memory_gb if decision.shared and decision.shared.compute_pct else None,
        currency=currency,
        omit=omit,
        yearly_gpu_hours=decision.yearly_gpu_hours,
        service=profile.workload is Workload.INFERENCE,
        option_notes=notes,
        dedicated_billing=advised_billing(decision),
    )


# The dedicated billing each billing sentence names: the quote prices that billing (pricing/options.py).
ADVISED_BILLING = {
    "billing_dedicated_monthly": "period",
    "billing_service_dedicated": "period",
    "billing_dedicated_hourly": "hourly",
}


def advised_billing(decision: Decision) -> Literal["hourly", "period"] | None:
    named = [ADVISED_BILLING[a.id] for a in decision.advice if a.id in ADVISED_BILLING]
    return "hourly" if named == ["hourly"] else "period" if named == ["period"] else None


def advise(
    parsed: Mapping[str, Any],
    policy: Policy,
    *,
    quoter: Quoter | None = None,
    currency: str = "CNY",
    assume_schedule: bool = False,
) -> Advice:
    """Decide for parsed answers (rules/answers.parse_answers) and, with a quoter, price the decision.

    The quote needs a schedule: the one answered, else (with `assume_schedule`) one derived from the
    run length and frequency. A quote that cannot be made is kept as `quote_error`, not raised."""
    profile = build_profile(parsed)
    decision = evaluate(profile, policy)
    schedule = profile.schedule
    if schedule is None and (assume_schedule or profile.workload is Workload.INFERENCE):
        schedule = assumed_schedule(profile, policy)  # a service runs the hours it serves, every day
    if quoter is None or schedule is None:
        return Advice(profile, decision)
    try:
        made = quoter(quote_request(profile, decision, policy, schedule, currency))
    except QuoteError as exc:
        return Advice(profile, decision, quote_error=exc, schedule_assumed=profile.schedule is None)
    return Advice(profile, with_quoted_ratio(decision, made), quote=made, schedule_assumed=profile.schedule is None)


def with_quoted_ratio(decision: Decision, quote: Quote) -> Decision:
    """One figure for a slice's price: with a quote, the advice states the ratio of the prices quoted
    rather than the market's range from the policy (a whole card by the hour said as that, not "a 100% slice")."""
    if quote.shared_price_pct is None:
        return decision
    advice = [
        replace(
            a,
            id="scenario_lora_quoted" if quote.share < 1 else "scenario_lora_quoted_whole",
            params={**a.params, "price_pct": quote.shared_price_pct, "share_pct": round(quote.share * 100)},
        )
        if a.id == "scenario_lora"
        else a
        for a in decision.advice
    ]
    return replace(decision, advice=advice)
