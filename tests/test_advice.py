"""The advice use case: one typed result from parsed answers, the quote made for the slice the decision names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.advice import advise
from bot.text import Lang
from bot.text.reasons import render
from pricing.errors import QuoteError
from pricing.fx import FxRate
from pricing.offers import Freshness, as_offers
from pricing.quote import Quote, QuoteRequest, quote
from pricing.sources import rate_card_records
from rules.answers import parse_answers
from rules.policy import Policy

NOW = datetime(2026, 11, 30, tzinfo=UTC)
SHARED = {
    "duration": "4h",
    "memory": "35GB",
    "model_parallel": "no",
    "frequency": "daily",
    "can_resume": "yes",
    "workload": "lora",
}


class Quoter:
    """Prices from the bundled rate card, remembering what it was asked."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.asked: list[QuoteRequest] = []
        self.offers = as_offers(rate_card_records([], NOW), {"ratecard": Freshness(timedelta(days=365), True)}, NOW)

    def __call__(self, request: QuoteRequest) -> Quote:
        self.asked.append(request)
        return quote(request, self.offers, self.policy)


def test_without_a_quoter_it_only_decides(policy: Policy) -> None:
    advice = advise(parse_answers(SHARED), policy)
    assert advice.quote is None and advice.quote_error is None
    assert advice.decision.choice.value == "shared"


def test_a_shared_decision_is_priced_for_the_slice_that_holds_the_peak(policy: Policy) -> None:
    quoter = Quoter(policy)
    advice = advise(parse_answers(SHARED | {"schedule": "4x14"}), policy, quoter=quoter)
    assert advice.decision.mig_profile == "3g.40gb"
    assert quoter.asked[0].share == 0.5 and advice.quote is not None and advice.quote.shared is not None
    assert advice.quote.shared.amount == 784 and not advice.schedule_assumed


def test_a_dedicated_decision_is_compared_with_the_shared_option_that_holds_its_peak(policy: Policy) -> None:
    quoter = Quoter(policy)
    answers = {
        "duration": "10h",
        "memory": "70/80",
        "model_parallel": "no",
        "frequency": "daily",
        "can_resume": "no",
        "schedule": "4x14",
    }
    advice = advise(parse_answers(answers), policy, quoter=quoter)
    assert advice.decision.choice.value == "dedicated"
    assert quoter.asked[0].share == 1.0  # no slice smaller than the card holds 70 GB
    assert quoter.asked[0].omit == {"spot": "cannot_resume"}
    assert advice.quote is not None and advice.quote.spot is None and advice.quote.shared is not None
    assert advice.quote.shared.memory_gb == 80


def test_without_a_known_peak_the_policys_default_slice_is_quoted(policy: Policy) -> None:
    quoter = Quoter(policy)
    advise(parse_answers(SHARED | {"memory": "no", "schedule": "4x14"}), policy, quoter=quoter)
    assert quoter.asked[0].share == policy.shared.default_share


def test_no_schedule_means_no_quote_unless_one_may_be_assumed(policy: Policy) -> None:
    quoter = Quoter(policy)
    assert advise(parse_answers(SHARED), policy, quoter=quoter).quote is None
    assumed = advise(parse_answers(SHARED), policy, quoter=quoter, assume_schedule=True)
    assert assumed.quote is not None and assumed.schedule_assumed


def test_a_quote_that_cannot_be_made_is_kept_as_the_reason(policy: Policy) -> None:
    def refuse(request: QuoteRequest) -> Quote:
        raise QuoteError("no_price", "no cached price", gpu=request.gpu, priced="-")

    advice = advise(parse_answers(SHARED | {"schedule": "4x14"}), policy, quoter=refuse)
    assert advice.quote is None and advice.quote_error is not None and advice.quote_error.code == "no_price"


def test_json_keeps_the_documented_fields_and_reasons_in_order(policy: Policy) -> None:
    advice = advise(parse_answers(SHARED | {"schedule": "4x14"}), policy, quoter=Quoter(policy))
    data = advice.to_json(Lang.EN)
    assert {
        "choice",
        "choice_text",
        "basis",
        "hits",
        "hits_needed",
        "checks",
        "reasons",
        "advice",
        "missing",
        "gpu",
        "memory_peak_gb",
        "mig_profile",
        "share_fraction",
        "spot_suitable",
        "spot_reason",
        "cards",
        "shared_option",
        "warnings",
        "yearly_gpu_hours",
        "profile",
        "lang",
        "quote",
        "schedule_assumed",
        "max_concurrent_requests",
    } == set(data)
    assert data["reasons"][-1].startswith("0 of the 4 dedicated signals")
    assert all(item["topic"] != "decision" for item in data["advice"])
    assert data["quote"]["shared"]["amount"] == 784


def test_one_figure_for_a_slices_price(policy: Policy) -> None:
    """Issue 17.6: the text said a quarter slice costs 'about a quarter of the price' while the quote's
    slice cost otherwise, and the policy's market_price_fraction was used by nothing."""
    plain = next(a for a in advise(parse_answers(SHARED), policy).decision.advice if a.id == "scenario_lora")
    assert (plain.params["low_pct"], plain.params["high_pct"]) == (30, 50)  # the policy's range, no quote
    assert "30-50% of a dedicated card" in render(plain, Lang.EN)
    quoted = advise(parse_answers(SHARED | {"schedule": "4x14"}), policy, quoter=Quoter(policy))
    assert quoted.quote is not None and quoted.quote.shared is not None and quoted.quote.dedicated is not None
    [said] = [a for a in quoted.decision.advice if a.id.startswith("scenario_lora")]
    slice_hour = quoted.quote.shared.price.unit_price  # type: ignore[union-attr]
    card_hour = quoted.quote.dedicated.price.unit_price / 24  # type: ignore[union-attr]  # 400 a day
    assert said.id == "scenario_lora_quoted" and said.params["price_pct"] == round(slice_hour / card_hour * 100, 1)
    assert f"costs {said.params['price_pct']:g}% of a dedicated card-hour" in render(said, Lang.EN)
    assert "quarter of the price" not in render(said, Lang.EN)


def test_the_billing_advised_is_the_billing_quoted(policy: Policy) -> None:
    """Issue 17.5: 'runs daily: bill by the day or month' sat beside a dedicated row priced per hour of
    use, and a cheaper 'whole card by the hour' row stood as the shared option of a dedicated decision."""
    daily = {
        "duration": "10h",
        "memory": "70/80",
        "model_parallel": "no",
        "frequency": "daily",
        "can_resume": "no",
        "schedule": "10x20",
    }
    advice = advise(parse_answers(daily), policy, quoter=Quoter(policy))
    assert "billing_dedicated_monthly" in [a.id for a in advice.decision.advice]
    assert advice.quote is not None and advice.quote.dedicated is not None
    assert advice.quote.dedicated.billing in ("daily", "monthly") and advice.quote.dedicated.billing_note is None
    assert advice.quote.shared is not None and "shared_compared_dedicated" in advice.quote.shared.notes
    weekly = advise(parse_answers(daily | {"frequency": "weekly"}), policy, quoter=Quoter(policy))
    assert "billing_dedicated_hourly" in [a.id for a in weekly.decision.advice]
    dedicated = weekly.quote.dedicated  # type: ignore[union-attr]
    assert dedicated is not None
    if dedicated.billing != "hourly":  # the bundled card has no hourly dedicated A100: said, not silent
        assert dedicated.billing_note == "no_hourly_price"
    rate = FxRate(rate=7.2, rate_date=NOW.date(), source="test")
    priced_with_fx = Quoter(policy)
    hourly_only = advise(
        parse_answers(daily | {"gpu": "RTX4090", "memory": "20/24"}),
        policy,
        quoter=lambda request: quote(request, priced_with_fx.offers, policy, fx=rate),
    )
    priced = hourly_only.quote.dedicated  # type: ignore[union-attr]  # the bundled 4090 is priced by the hour
    assert priced is not None and priced.billing == "hourly" and priced.billing_note == "no_period_price"
    shown = hourly_only.to_json(Lang.EN)["quote"]["dedicated"]
    assert shown["billing"] == "hourly" and shown["billing_note"] == "no_period_price"


def test_a_whole_card_by_the_hour_is_not_called_a_100_percent_slice(policy: Policy) -> None:
    """A LoRA whose peak fills the card is quoted a whole card by the hour: the advice said "a 100% slice costs
    168% of a dedicated card-hour"; it says a whole card by the hour on a shared platform, the same figure."""
    quoted = advise(parse_answers(SHARED | {"memory": "70/80", "schedule": "10x30"}), policy, quoter=Quoter(policy))
    assert quoted.quote is not None and quoted.quote.share == 1
    [said] = [a for a in quoted.decision.advice if a.id.startswith("scenario_lora")]
    assert said.id == "scenario_lora_quoted_whole" and said.params["price_pct"] == quoted.quote.shared_price_pct
    assert f"a whole card by the hour on a shared platform costs {said.params['price_pct']:g}%" in render(said, Lang.EN)
    assert "100% slice" not in render(said, Lang.EN) and "整卡" in render(said, Lang.ZH)
