"""Domestic accelerators as people write them, with their memory, their software stack's porting cost in the
advice (the tool for it per vendor), and the dated reference prices a quote uses (issue 32, section 2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pricing.offers import Freshness, as_offers
from pricing.quote import QuoteRequest, quote
from pricing.records import PriceRecord
from pricing.sources import rate_card_records
from rules.answers import AnswersError, build_profile, parse_answers
from rules.engine import evaluate
from rules.errors import UnknownGPU
from rules.gpus import canonical_gpu, gpu_model
from rules.policy import Policy

NOW = datetime(2026, 12, 2, 9, tzinfo=UTC)
ANSWERS = {"duration": "10h", "memory": "50/64", "model_parallel": "no", "frequency": "daily", "can_resume": "no"}


@pytest.mark.parametrize(
    ("typed", "card", "memory"),
    [
        ("910B", "Ascend-910B-64GB", 64),
        ("昇腾910B", "Ascend-910B-64GB", 64),
        ("Ascend-910B2", "Ascend-910B2-64GB", 64),
        ("Huawei Ascend 910B3", "Ascend-910B3-64GB", 64),
        ("K100", "K100-AI-64GB", 64),
        ("Hygon K100-AI", "K100-AI-64GB", 64),
        ("MTT S4000", "MTT-S4000-48GB", 48),
        ("S4000", "MTT-S4000-48GB", 48),
        ("Kunlunxin P800", "P800-96GB", 96),
    ],
)
def test_a_domestic_card_as_people_write_it(typed: str, card: str, memory: float) -> None:
    assert canonical_gpu(typed) == card
    model = gpu_model(typed)
    assert model.memory_gb == memory and model.domestic


@pytest.mark.parametrize(
    ("typed", "cards"),
    [
        ("海光", {"DCU-Z100-32GB", "K100-AI-64GB"}),
        ("DCU", {"DCU-Z100-32GB", "K100-AI-64GB"}),
        (
            "昇腾",
            {"Ascend-910B-64GB", "Ascend-910B1-64GB", "Ascend-910B2-64GB", "Ascend-910B3-64GB", "Ascend-910B4-32GB"},
        ),
        (
            "华为的卡",
            {"Ascend-910B-64GB", "Ascend-910B1-64GB", "Ascend-910B2-64GB", "Ascend-910B3-64GB", "Ascend-910B4-32GB"},
        ),
        ("寒武纪", {"MLU370-X8-48GB"}),
        ("Moore Threads", {"MTT-S4000-48GB"}),
        ("昆仑芯", {"P800-96GB"}),
    ],
)
def test_a_makers_name_alone_is_asked_which_card_not_guessed(typed: str, cards: set[str]) -> None:
    """ "海光" was refused as an unknown model with the whole catalogue listed; the maker's own cards are the question
    (a Z100 has 32 GB, a K100-AI 64: the memory rule depends on which)."""
    with pytest.raises(UnknownGPU) as caught:
        canonical_gpu(typed)
    assert caught.value.maker and set(caught.value.known) == cards
    with pytest.raises(AnswersError) as parsed:
        parse_answers({"gpu": typed})
    assert parsed.value.errors["gpu"].problem == "gpu_maker"


def test_a_name_that_is_no_maker_is_unknown_with_every_model_named() -> None:
    with pytest.raises(UnknownGPU) as caught:
        canonical_gpu("海光K999")
    assert not caught.value.maker and "K100-AI-64GB" in caught.value.known and "A100-80GB" in caught.value.known


@pytest.mark.parametrize(
    ("gpu", "tool"),
    [("910B2", "transfer_to_npu"), ("MLU370", "torch_mlu"), ("S4000", "torch_musa"), ("K100", "DTK")],
)
def test_the_advice_names_the_porting_tool_of_each_vendor(policy: Policy, gpu: str, tool: str) -> None:
    decision = evaluate(build_profile(parse_answers(ANSWERS | {"gpu": gpu})), policy)
    [ported] = [a for a in decision.advice if a.id == "domestic_accelerator"]
    assert tool in str(ported.params["stack"])
    assert "domestic_inference_engine" not in {a.id for a in decision.advice}


def test_serving_on_a_domestic_card_hears_the_engines_port_may_cost_more(policy: Policy) -> None:
    serving = ANSWERS | {"gpu": "910B", "workload": "inference", "qps": "20", "p99_ms": "300"}
    ids = {a.id for a in evaluate(build_profile(parse_answers(serving)), policy).advice}
    assert {"domestic_accelerator", "domestic_inference_engine"} <= ids
    cuda = ANSWERS | {"gpu": "A100", "workload": "inference", "qps": "20", "p99_ms": "300"}
    assert "domestic_inference_engine" not in {
        a.id for a in evaluate(build_profile(parse_answers(cuda)), policy).advice
    }


def test_a_910b_quote_is_priced_from_the_dated_reference_of_the_variant_sold(policy: Policy) -> None:
    records = [r for r in rate_card_records([], NOW) if isinstance(r, PriceRecord)]
    offers = as_offers(records, {"ratecard": Freshness(timedelta(days=400), True)}, NOW)
    done = quote(QuoteRequest(gpu="Ascend-910B-64GB", hours_per_day=4, days=14), offers, policy)
    assert done.dedicated is not None and done.dedicated.price is not None
    used = done.dedicated.price
    assert (used.unit_price, used.provider, used.as_of) == (3.87, "autodl", "2026-10-01")
    assert done.currency == "CNY" and round(done.dedicated.amount, 2) == round(3.87 * 56, 2)
    s4000 = quote(QuoteRequest(gpu="MTT-S4000-48GB", hours_per_day=4, days=14), offers, policy).dedicated
    k100 = quote(QuoteRequest(gpu="K100-AI-64GB", hours_per_day=4, days=14), offers, policy).dedicated
    assert s4000 is not None and k100 is not None and s4000.price is not None and k100.price is not None
    assert (s4000.price.unit_price, k100.price.unit_price) == (1.96, 2.53)


@pytest.mark.parametrize(("typed", "whole"), [("海光", True), ("NVIDIA", False)])
def test_a_form_says_a_makers_cards_where_they_fit_under_the_field(typed: str, whole: bool) -> None:
    from bot.fields.rentals import FORM_ROOM, FieldError, instance_fields
    from bot.text import Lang

    with pytest.raises(FieldError) as caught:
        instance_fields(typed, "14/h", 1, None, "CNY", Lang.ZH)
    assert "是哪一款" in caught.value.message and len(caught.value.short) <= FORM_ROOM
    assert ("是哪一款" in caught.value.short) is whole  # NVIDIA's 17 do not fit: the short form gives examples
