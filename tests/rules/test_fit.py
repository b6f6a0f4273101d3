"""Memory that does not fit: the header, the isolation advice and the quoted shared option agree."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.advice import advise
from bot.text import Lang
from bot.text.reasons import headline, render
from pricing.offers import Freshness, as_offers
from pricing.quote import Quote, QuoteRequest, quote
from pricing.sources import rate_card_records
from rules.answers import build_profile, parse_answers
from rules.decision import Basis, Choice
from rules.engine import evaluate
from rules.fit import FitKind, bigger_card_slice, shared_option
from rules.gpus import CATALOGUE, gpu_model
from rules.policy import Policy, load_policy

BASE = {"duration": "3h", "model_parallel": "no", "frequency": "daily", "can_resume": "yes"}
NOW = datetime(2026, 11, 30, tzinfo=UTC)
OFFERS = as_offers(rate_card_records([], NOW), {"ratecard": Freshness(timedelta(days=365), True)}, NOW)
POLICY = load_policy()


def decide(policy: Policy, **answers: str) -> Any:
    return evaluate(build_profile(parse_answers(BASE | answers)), policy)


def ids(decision: Any) -> list[str]:
    return [a.id for a in decision.advice]


def test_a_peak_above_the_card_needs_several_dedicated_cards(policy: Policy) -> None:
    decision = decide(policy, memory="200/80")
    assert decision.choice is Choice.DEDICATED and decision.basis is Basis.MEMORY
    assert decision.cards == 3 and decision.shared is None
    assert "memory_exceeds_card" in ids(decision)
    # the peak needs 3 cards: memory tight and model parallel both fire, so the rule itself says dedicated
    assert {c.id for c in decision.hits} == {"memory_tight_share", "model_parallel_peak_answer_no"}
    assert "two_of_four_dedicated" in ids(decision)
    assert headline(decision, Lang.EN) == "Dedicated cards: 3 × A100-80GB"


def test_a_peak_one_bigger_card_holds_names_it(policy: Policy) -> None:
    decision = decide(policy, memory="100GB")
    bigger = next(a for a in decision.advice if a.id == "memory_bigger_card")
    assert decision.cards == 2 and bigger.params["gpu"] == "H200-141GB"


def test_a_peak_no_slice_holds_is_a_whole_card_by_the_hour_or_a_bigger_cards_slice(policy: Policy) -> None:
    decision = decide(policy, memory="70/80")
    assert decision.choice is Choice.SHARED
    assert decision.shared is not None and decision.shared.kind is FitKind.WHOLE_CARD
    assert decision.shared.memory_gb == 80 and decision.share_fraction == 1 and decision.mig_profile is None
    alternative = next(a for a in decision.advice if a.id == "isolation_bigger_slice")
    assert (alternative.params["gpu"], alternative.params["profile"]) == ("H200-141GB", "3g.71gb")
    assert "timeslice_warning" in ids(decision)  # the articles' OOM warning for time-slicing
    assert "whole A100-80GB by the hour" in headline(decision, Lang.EN)


def test_a_bare_yes_means_more_than_80_percent_of_the_card(policy: Policy) -> None:
    decision = decide(policy, memory="yes")
    assert decision.shared is not None and decision.shared.kind is FitKind.WHOLE_CARD
    assert "isolation_whole_card_tight" in ids(decision)


def test_an_estimate_above_a_no_answer_is_a_warning_and_wins(policy: Policy) -> None:
    decision = decide(policy, memory="no", workload="lora", model_size_b="72b")  # about 173 GB
    assert {w.id for w in decision.warnings} == {"memory_estimate_above_answer"}
    assert decision.choice is Choice.DEDICATED and decision.cards == 3
    assert {c.id for c in decision.hits} == {"memory_tight_estimated", "model_parallel_peak_answer_no"}


def test_an_estimate_below_a_yes_answer_is_a_warning_and_the_answer_wins(policy: Policy) -> None:
    decision = decide(policy, memory="yes", workload="lora", model_size_b="7b")  # about 17 GB
    assert [w.id for w in decision.warnings] == ["memory_estimate_below_answer"]
    assert decision.shared is not None and decision.shared.kind is FitKind.WHOLE_CARD


def test_slices_give_their_memory() -> None:
    half = shared_option(gpu_model("A100"), 35, 0.5)
    assert half is not None and (half.mig_profile, half.memory_gb) == ("3g.40gb", 40)
    h200 = bigger_card_slice(gpu_model("A100"), 70)
    assert h200 is not None and h200[1].memory_gb == 71


def test_every_quoted_option_says_the_memory_it_gives(policy: Policy) -> None:
    made = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, share=0.5), OFFERS, policy)
    assert made.shared is not None and made.shared.memory_gb == 40
    assert made.dedicated is not None and made.dedicated.memory_gb == 80
    assert made.spot is not None and made.spot.memory_gb == 80


def _quoter(request: QuoteRequest) -> Quote:
    return quote(request, OFFERS, POLICY)


@settings(max_examples=150, deadline=None)
@given(
    peak=st.floats(min_value=1, max_value=400),
    answers=st.fixed_dictionaries(
        {
            "duration": st.sampled_from(["30 min", "3h", "10h"]),
            "model_parallel": st.sampled_from(["yes", "no"]),
            "frequency": st.sampled_from(["daily", "weekly"]),
            "can_resume": st.sampled_from(["yes", "no"]),
        }
    ),
    gpu=st.sampled_from(["A100-80GB", "H200-141GB", "L40S-48GB", "RTX4090-24GB", "A100-40GB"]),
)
def test_header_isolation_and_quote_never_contradict_each_other(peak: float, answers: dict[str, str], gpu: str) -> None:
    parsed = parse_answers(answers | {"memory": f"{peak:.1f}GB", "gpu": gpu, "schedule": "4x14"})
    held = float(f"{peak:.1f}")
    card = CATALOGUE[gpu]
    advice = advise(parsed, POLICY, quoter=_quoter if gpu == "A100-80GB" else None)
    decision = advice.decision
    rules = ids(decision)
    if decision.choice is Choice.SHARED:
        assert decision.shared is not None and decision.shared.memory_gb >= held
        assert "memory_exceeds_card" not in rules and headline(decision, Lang.EN).startswith("Shared card")
    if decision.shared is None:
        assert decision.choice is Choice.DEDICATED and decision.cards * card.memory_gb >= held
    else:
        assert decision.shared.memory_gb >= held
    if advice.quote is not None:
        shared = advice.quote.shared
        assert shared is None or (shared.memory_gb or 0) >= held
        assert (shared is None) == (decision.shared is None)
        assert (advice.quote.spot is None) == (not decision.spot_suitable)


def test_the_reasons_agree_with_a_decision_the_memory_made(policy: Policy) -> None:
    """Issue 17.2: a 13B full fine-tune answered "memory no, model parallel no" decided dedicated on 4
    cards while its reasons said the memory stayed within 80%, no model parallelism, and 0 of 4 fired."""
    decision = decide(
        policy,
        duration="2h",
        memory="no",
        model_parallel="no",
        frequency="weekly",
        can_resume="yes",
        workload="full-finetune",
        model_size_b="13b",
    )
    assert decision.cards == 4 and decision.choice is Choice.DEDICATED
    texts = [render(c, Lang.EN) for c in decision.checks] + [render(a, Lang.EN) for a in decision.verdict]
    assert not any("stays within" in text or text == "No model parallelism across cards" for text in texts)
    assert any("model estimate puts the peak at about 251.1 GB" in text for text in texts)
    assert any(text.startswith("2 of the 4 dedicated signals fired") for text in texts)
    assert len(decision.hits) == 2  # the count said is the signals listed as fired


def test_a_peak_one_card_holds_keeps_the_model_parallel_answer(policy: Policy) -> None:
    decision = decide(policy, memory="40/80", model_parallel="no")
    [check] = [c for c in decision.checks if c.rule.value == "model_parallel"]
    assert check.id == "model_parallel" and not check.fired


def test_a_bare_no_is_a_bound_not_a_small_footprint(policy: Policy) -> None:
    """Issue 17.4: 'not above 80%' may still be 64 GB of 80: no slice smaller than that is said to hold
    it, the footprint is not called small, and the figure is asked for."""
    decision = decide(policy, memory="no")
    assert decision.shared is not None and decision.shared.bound_gb == 64
    assert "timeslice_fit" not in ids(decision) and "timeslice_unknown_peak" in ids(decision)
    bound = next(a for a in decision.advice if a.id == "isolation_bound")
    assert bound.params["bound_gb"] == 64 and bound.params["slice_gb"] == 40
    for lang in Lang:
        assert "40" in headline(decision, lang) and "A100-80GB" in headline(decision, lang)
    assert "if the peak stays under 40 GB, else a whole A100-80GB" in headline(decision, Lang.EN)
    assert "holds it if the peak stays under 40 GB" in render(bound, Lang.EN)


def test_a_bare_yes_is_not_said_to_fit_a_slice_the_bound_does_not_guarantee(policy: Policy) -> None:
    """Issue 17.4: 'above 80%' with no figure was said to fit an H200 3g.71gb (71 GB < 80 GB)."""
    decision = decide(policy, memory="yes")
    assert "isolation_bigger_slice" not in ids(decision)
    figure = decide(policy, memory="70/80")  # with the figure, the bigger card's slice does hold it
    assert "isolation_bigger_slice" in ids(figure)
