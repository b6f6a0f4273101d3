from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from pricing.errors import QuoteError
from pricing.fx import FxRate
from pricing.offers import Freshness, Offer, as_offers
from pricing.quote import QuoteRequest, quote
from pricing.records import PriceRecord
from pricing.sources import rate_card_records
from rules.policy import Policy
from rules.questions import BY_KEY

NOW = datetime(2026, 11, 30, tzinfo=UTC)
DATA = Path(__file__).parents[1] / "data"
RATECARD = {"ratecard": Freshness(timedelta(days=365), from_effective_date=True)}


def bundled(now: datetime = NOW) -> list[Offer]:
    return as_offers(rate_card_records([DATA / "team_ratecard.csv"], now), RATECARD, now)


def azure_like(*rows: tuple[str, str, float, float], fetched: datetime = NOW) -> list[Offer]:
    records = [
        PriceRecord(
            source="azure",
            provider="azure",
            region="eastus",
            region_class="cloud",
            instance_type=sku,
            gpu="A100-80GB",
            gpu_count=count,
            pricing_model=model,
            amount=amount,
            currency="USD",
            unit="hour",
            fetched_at=fetched,
            provenance="test",
        )
        for sku, model, count, amount in rows
    ]
    return as_offers(records, {"azure": Freshness(timedelta(hours=24))}, NOW)


def test_worked_example_comes_out_exactly(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100-80GB", hours_per_day=4, days=14, share=0.5), bundled(), policy)
    assert q.dedicated is not None and q.shared is not None
    assert q.dedicated.amount == 5600
    assert q.dedicated.billing == "daily"
    assert q.dedicated.alternatives == {"monthly": 11500}
    assert q.shared.amount == 784
    # 70-80% of dedicated speed: 784 / 0.8 .. 784 / 0.7, and 14 days stretched to 17.5 .. 20
    assert (q.shared.amount_min, q.shared.amount_max) == (980, 1120)
    assert (q.shared.days_min, q.shared.days_max) == (17.5, 20)
    assert q.savings_pct["shared"] == 86.0


def test_reference_prices_are_labelled_stale_with_their_age(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14), bundled(), policy)
    assert q.stale
    assert q.dedicated is not None and q.dedicated.price is not None
    assert q.dedicated.price.as_of == "2024-06-01"
    assert q.dedicated.price.age_days == (NOW.date() - date(2024, 6, 1)).days
    fresh = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14), bundled(datetime(2024, 7, 1, tzinfo=UTC)), policy)
    assert not fresh.stale


def test_long_period_picks_monthly_billing(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", hours_per_day=20, days=60), bundled(), policy)
    assert q.dedicated is not None
    assert (q.dedicated.billing, q.dedicated.amount) == ("monthly", 23000)
    assert q.dedicated.alternatives == {"daily": 24000}


def test_spot_without_a_cached_price_is_an_estimate_from_the_policy_range(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14), bundled(), policy)
    assert q.spot is not None and q.spot.estimate
    card_hour = 400 / 24
    assert q.spot.amount_min == pytest.approx(56 * card_hour * 0.2, abs=0.01)
    assert q.spot.amount_max == pytest.approx(56 * card_hour * 0.5, abs=0.01)


def test_cached_spot_price_is_used(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="H800", hours_per_day=10, days=3), bundled(), policy)
    assert q.spot is not None and not q.spot.estimate
    assert q.spot.amount == 30 * 9.5


def test_no_slice_price_estimates_shared_from_the_card(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="H800", hours_per_day=4, days=10, share=0.25), bundled(), policy)
    assert q.shared is not None and q.shared.estimate
    assert "estimated_proportional_to_slice" in q.shared.notes
    # the cheapest reference card-hour is the daily price, 650 / 24
    assert q.shared.amount == pytest.approx(40 * 650 / 24 * 0.25, abs=0.01)


def test_quarter_slice_uses_its_own_price(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, share=0.25), bundled(), policy)
    assert q.shared is not None and q.shared.amount == 56 * 7


def test_other_slice_sizes_are_scaled(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, share=1 / 8), bundled(), policy)
    assert q.shared is not None
    assert "scaled_from_other_slice" in q.shared.notes
    assert q.shared.amount == pytest.approx(56 * 28 / 8)  # from the quarter slice: 28 per card-hour


def test_hourly_dedicated_is_billed_per_hour_used(policy: Policy) -> None:
    offers = azure_like(("NC24", "on-demand", 1, 3.673), ("NC24", "spot", 1, 0.88))
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, currency="USD"), offers, policy)
    assert q.dedicated is not None
    assert q.dedicated.billing == "hourly"
    assert q.dedicated.amount == pytest.approx(56 * 3.673, abs=0.01)
    assert "release_between_runs" in q.dedicated.notes
    assert q.break_even_hours_per_day is None  # no card billed by the day to compare with


def test_currency_conversion_uses_the_rate_and_says_so(policy: Policy) -> None:
    offers = azure_like(("NC24", "on-demand", 1, 3.5))
    rate = FxRate(rate=7.0, rate_date=date(2026, 11, 27), source="ecb")
    q = quote(QuoteRequest(gpu="A100", hours_per_day=1, days=10, currency="CNY"), offers, policy, fx=rate)
    assert q.dedicated is not None and q.dedicated.amount == pytest.approx(10 * 3.5 * 7)
    assert q.fx == {"rate": 7.0, "date": "2026-11-27", "source": "ecb", "pair": "USD/CNY"}


def test_conversion_without_a_rate_is_an_error(policy: Policy) -> None:
    with pytest.raises(QuoteError, match="no exchange rate"):
        quote(QuoteRequest(gpu="A100", hours_per_day=1, days=10), azure_like(("NC24", "on-demand", 1, 3.5)), policy)


def test_break_even_hours(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, share=0.5), bundled(), policy)
    # 400 RMB/day vs 14 RMB/h: never at nominal speed; 400 x 0.7 / 14 = 20 h, 400 x 0.8 / 14 = 22.86 h
    assert q.break_even_hours_per_day == {"nominal": None, "adjusted_min": 20.0, "adjusted_max": 22.86}


def test_a_schedule_past_the_break_even_is_said_to_cost_less_on_the_dedicated_card(policy: Policy) -> None:
    """A 24 h service on a whole card by the hour cost 75% more than the card by the month, and the notes said only
    "dedicated becomes cheaper above 13.7 h/day": that this schedule is past it is now said outright."""
    from bot.text import Lang
    from bot.text.quote import notes

    def said(hours: float, days: float = 30) -> list[str]:
        return notes(quote(QuoteRequest(gpu="A100", hours_per_day=hours, days=days, share=0.5), bundled(), policy),
                     Lang.EN)  # fmt: skip

    assert "This schedule (23 h/day) is past that: for it, the dedicated card costs less" in said(23)
    assert not [n for n in said(21) if "past that" in n]  # within 20-22.86 h: it depends on the shared speed
    assert not [n for n in said(4, 14) if "past that" in n]


def test_a_shared_option_at_the_dedicated_price_says_so_not_zero_percent_less(policy: Policy) -> None:
    """A whole card on a shared platform priced as the dedicated one was said "costs 0% less than dedicated"."""
    from bot.text import Lang
    from bot.text.quote import notes

    made = quote(QuoteRequest(gpu="A800", cards=4, hours_per_day=20, days=30, share=1), bundled(), policy)
    assert made.savings_pct["shared"] == 0
    said = notes(made, Lang.EN)
    # named as its row names it: a whole card on a shared platform, four of them (it was "Shared 1 card")
    assert "Whole card by the hour (shared platform) × 4 costs the same as dedicated" in said
    assert not [n for n in said if "costs 0% less" in n]
    assert "共享平台整卡（按小时） × 4与独占卡价格相同" in notes(made, Lang.ZH)


def test_several_cards_slices_say_how_many(policy: Policy) -> None:
    """Eight 4090s' shared row read "Shared 1/2 card · 96 GB", as if one half card held 96 GB."""
    from bot.text import Lang
    from bot.text.quote import notes, rows

    eight = quote(QuoteRequest(gpu="A800", cards=8, hours_per_day=10, days=20), bundled(), policy)
    names = [row.option for row in rows(eight, policy, Lang.ZH)]
    assert names[:2] == ["独占卡 · 640 GB", "共享 1/2 卡 × 8 · 320 GB"], names
    assert [n for n in notes(eight, Lang.EN) if n.startswith("Shared 1/2 card × 8 costs ")], notes(eight, Lang.EN)
    one = quote(QuoteRequest(gpu="A800", hours_per_day=10, days=20), bundled(), policy)
    assert [row.option for row in rows(one, policy, Lang.EN)][1] == "Shared 1/2 card · 40 GB"


def test_rent_vs_buy_at_this_pace(policy: Policy) -> None:
    light = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14), bundled(), policy)
    heavy = quote(QuoteRequest(gpu="A100", hours_per_day=8, days=14), bundled(), policy)
    assert light.rent_vs_buy["advice"] == "rent"  # 1,460 GPU-hours a year
    assert heavy.rent_vs_buy["advice"] == "consider_buying"  # 2,920
    four = quote(QuoteRequest(gpu="A100", hours_per_day=3, days=14, cards=4), bundled(), policy)
    # issue 33.1.3: 4,380 GPU-hours a year, but 1,095 for each card you would own: rent
    assert (four.rent_vs_buy["yearly_gpu_hours_at_this_pace"], four.rent_vs_buy["yearly_gpu_hours_per_card"]) == (
        4380,
        1095.0,
    )
    assert four.rent_vs_buy["advice"] == "rent"


def test_total_gpu_hours_instead_of_a_schedule(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", gpu_hours=96, cards=2), bundled(), policy)
    assert (q.days, q.gpu_hours) == (2, 96)
    assert q.dedicated is not None and q.dedicated.amount == 2 * 2 * 400


def test_total_gpu_hours_alone_say_no_pace(policy: Policy) -> None:
    """100 GPU-hours were titled "24 h/day × 4.2 days" and told "a year at this pace: 8,760 GPU-hours, price buying
    too", and "this schedule (24 h/day) is past the break-even": a pace the team never said."""
    from bot.text import Lang
    from bot.text.quote import notes, title

    alone = quote(QuoteRequest(gpu="A100", gpu_hours=100), bundled(), policy)
    assert not alone.paced and alone.rent_vs_buy == {"threshold": 2000.0, "advice": "no_pace"}
    assert title(alone, Lang.EN) == "Cost for A100-80GB × 1, 100 GPU-hours (priced as one run back to back, 4.2 days)"
    assert title(alone, Lang.ZH) == "A100-80GB × 1 的费用：共 100 GPU 小时（按连续运行计价，约 4.2 天）"
    hour = quote(QuoteRequest(gpu="A100", gpu_hours=6), bundled(), policy)  # within a day: its hours ("0.2 days")
    assert title(hour, Lang.EN).endswith("6 GPU-hours (priced as one run back to back, 6 h)")
    assert title(hour, Lang.ZH).endswith("共 6 GPU 小时（按连续运行计价，约 6 小时）")
    said = notes(alone, Lang.EN)
    assert not [n for n in said if "at this pace" in n or "past that" in n], said
    assert [n for n in said if "dedicated becomes cheaper" in n], said  # the break-even itself still holds
    paced = quote(QuoteRequest(gpu="A100", gpu_hours=100, hours_per_day=4), bundled(), policy)
    assert paced.paced and paced.rent_vs_buy["advice"] == "rent"  # 4 h a day: 1,460 a year
    assert title(paced, Lang.EN).startswith("Cost for A100-80GB × 1, 4 h/day × 25 days")
    one = quote(QuoteRequest(gpu="A100", hours_per_day=1, days=1), bundled(), policy)  # "1 days (1 GPU-hours)"
    assert title(one, Lang.EN) == "Cost for A100-80GB × 1, 1 h/day × 1 day (1 GPU-hour)"
    day = quote(QuoteRequest(gpu="A100", gpu_hours=24), bundled(), policy)
    assert title(day, Lang.EN).endswith("24 GPU-hours (priced as one run back to back, 1 day)")


def test_several_cards(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, cards=4, share=0.5), bundled(), policy)
    assert q.dedicated is not None and q.dedicated.amount == 4 * 5600
    assert q.shared is not None and q.shared.amount == 4 * 784


def test_region_filter(policy: Policy) -> None:
    q = quote(QuoteRequest(gpu="H800", hours_per_day=4, days=10, region="inland"), bundled(), policy)
    assert q.dedicated is not None and q.dedicated.price is not None
    assert q.dedicated.price.region == "guizhou"
    shanghai = quote(QuoteRequest(gpu="H800", hours_per_day=4, days=10, region="上海"), bundled(), policy)
    tier1 = quote(QuoteRequest(gpu="H800", hours_per_day=4, days=10, region="tier1"), bundled(), policy)
    assert shanghai.model_dump() == tier1.model_dump()  # no Shanghai row: tier 1's prices, as for the class
    with pytest.raises(QuoteError, match="Regions with prices: beijing, guizhou, inland, tier1; names and classes"):
        quote(QuoteRequest(gpu="H800", hours_per_day=4, days=10, region="mars"), bundled(), policy)


@pytest.mark.parametrize(
    "name", ["guizhou", "贵州", "Guiyang", "内蒙古", "inner mongolia", "Inner_Mongolia", "neimenggu"]
)
def test_the_articles_cheap_regions_by_name_in_chinese_and_english(policy: Policy, name: str) -> None:
    """Issue 33.1.4: the docs' region names were refused; each maps to its tier (inland)."""
    by_name = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, region=name), bundled(), policy)
    by_class = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, region="inland"), bundled(), policy)
    assert by_name.dedicated is not None and by_class.dedicated is not None
    assert (by_name.dedicated.amount_min, by_name.dedicated.amount_max) == (
        by_class.dedicated.amount_min,
        by_class.dedicated.amount_max,
    )
    guizhou = quote(QuoteRequest(gpu="H800", hours_per_day=4, days=10, region="贵州"), bundled(), policy)
    assert guizhou.dedicated is not None and guizhou.dedicated.price is not None
    assert guizhou.dedicated.price.region == "guizhou" and not guizhou.dedicated.estimate


def test_unknown_gpu_lists_known_models(policy: Policy) -> None:
    with pytest.raises(QuoteError, match=r"unknown GPU model 'B300'. Known models: A10-24GB, A100-40GB"):
        quote(QuoteRequest(gpu="B300", hours_per_day=4, days=14), bundled(), policy)


def test_gpu_without_prices_says_which_have_them(policy: Policy) -> None:
    with pytest.raises(QuoteError, match=r"no cached price for L20-48GB\. GPUs with prices: A10-24GB, A100-40GB"):
        quote(QuoteRequest(gpu="L20", hours_per_day=4, days=14), bundled(), policy)


@pytest.mark.parametrize(
    "fields",
    [
        {"hours_per_day": 4, "days": 0},
        {"hours_per_day": 0, "days": 14},
        {"hours_per_day": 25, "days": 14},
        {"hours_per_day": 4},
        {"hours_per_day": 4, "days": 14, "share": 1.5},
        {"hours_per_day": 4, "days": 14, "cards": 0},
    ],
)
def test_bad_requests_are_rejected(fields: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        QuoteRequest(gpu="A100", **fields)


def test_a_team_price_wins_over_the_bundled_reference_for_the_same_offer(policy: Policy) -> None:
    team = PriceRecord(
        source="ratecard",
        provider="our-cloud",
        instance_type="A100 daily",
        gpu="A100-80GB",
        gpu_count=1,
        pricing_model="daily",
        amount=300,
        currency="CNY",
        unit="day",
        provenance="team.csv",
        fetched_at=NOW,
        effective_date=NOW.date(),
    )
    offers = as_offers([*rate_card_records([], NOW), team], {"ratecard": Freshness(timedelta(days=365), True)}, NOW)
    made = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14), offers, policy)
    assert made.dedicated is not None and made.dedicated.amount == 14 * 300
    assert made.dedicated.price is not None and made.dedicated.price.provider == "our-cloud"


def test_every_gpu_the_product_offers_as_a_button_has_a_bundled_price(policy: Policy) -> None:
    for gpu in BY_KEY["gpu"].options:
        rate = FxRate(rate=7.1, rate_date=NOW.date(), source="test")
        made = quote(QuoteRequest(gpu=gpu, hours_per_day=4, days=14), bundled(), policy, fx=rate)
        assert made.dedicated is not None and made.dedicated.price is not None
        assert "reference" in made.dedicated.price.flags and made.dedicated.price.basis


def test_inland_without_an_inland_price_is_a_labelled_estimate(policy: Policy) -> None:
    offers = as_offers(rate_card_records([], NOW), RATECARD, NOW)  # the bundled card: no inland row for A100
    made = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, region="inland"), offers, policy)
    assert made.dedicated is not None and made.dedicated.estimate
    assert (made.dedicated.amount_min, made.dedicated.amount_max) == (3920, 4480)  # 5,600 less 20-30%
    assert "estimated_inland_discount" in made.dedicated.notes


def test_an_inland_price_in_the_cache_is_used_as_it_is(policy: Policy) -> None:
    made = quote(QuoteRequest(gpu="H800", hours_per_day=4, days=14, region="inland"), bundled(), policy)
    assert made.dedicated is not None and not made.dedicated.estimate  # the team card's Guizhou row


def test_a_team_card_replaces_the_reference_prices_of_a_gpu_whatever_the_billing(policy: Policy) -> None:
    """Issue 17.12: a team card pricing H100 by the day still got a reference hourly price quoted."""
    team = PriceRecord(
        source="ratecard",
        provider="our-cloud",
        instance_type="H100 daily",
        gpu="H100-80GB",
        gpu_count=1,
        pricing_model="daily",
        amount=500,
        currency="CNY",
        unit="day",
        provenance="team.csv",
        fetched_at=NOW,
        effective_date=NOW.date(),
    )
    rate = FxRate(rate=7.1, rate_date=NOW.date(), source="test")
    offers = as_offers([*rate_card_records([], NOW), team], {"ratecard": Freshness(timedelta(days=365), True)}, NOW)
    made = quote(QuoteRequest(gpu="H100", hours_per_day=4, days=14), offers, policy, fx=rate)
    assert made.dedicated is not None and made.dedicated.price is not None
    assert (made.dedicated.price.provider, made.dedicated.amount) == ("our-cloud", 14 * 500)
    for option in (made.shared, made.spot):  # the team has no slice or spot price: estimates from its own
        assert option is not None and option.estimate and option.price is not None
        assert option.price.provider == "our-cloud" and "reference" not in option.price.flags
    other = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14), offers, policy, fx=rate)
    assert other.dedicated is not None and "reference" in other.dedicated.price.flags  # type: ignore[union-attr]


def _template_offers(tmp_path: Path) -> list[Offer]:
    template = Path(__file__).parents[2] / "pricing" / "data" / "ratecard.example.csv"
    ours = tmp_path / "ours.csv"
    ours.write_text(template.read_text(encoding="utf-8").replace("REPLACE: ", "our list: "), encoding="utf-8")
    return as_offers(rate_card_records([ours], NOW), RATECARD, NOW)


def test_one_card_is_priced_from_the_single_card_row_not_the_8_card_node(tmp_path: Path, policy: Policy) -> None:
    """Issue 34.19: 56 card-hours were ¥770 from the 8-card node's 110/8 a card-hour; one card cannot be rented
    from a node, so the single-card row's 14/h gives ¥784; eight cards may take the node (13.75 a card-hour)."""
    offers = _template_offers(tmp_path)
    one = quote(QuoteRequest(gpu="A100-80GB", hours_per_day=4, days=14, dedicated_billing="hourly"), offers, policy)
    assert one.dedicated is not None and one.dedicated.amount == 784
    assert one.dedicated.price is not None and one.dedicated.price.instance_type == "A100 80GB whole card (hourly)"
    eight = quote(
        QuoteRequest(gpu="A100-80GB", hours_per_day=4, days=14, cards=8, dedicated_billing="hourly"), offers, policy
    )
    assert eight.dedicated is not None and eight.dedicated.amount == 56 * 8 * 110 / 8


def test_a_node_sold_only_whole_still_prices_a_card(policy: Policy) -> None:
    """Where a provider sells the card only in an 8-card node, its per-card rate is what there is to quote."""
    offers = azure_like(("ND96", "on-demand", 8, 32.77))
    q = quote(QuoteRequest(gpu="A100", hours_per_day=4, days=14, currency="USD"), offers, policy)
    assert q.dedicated is not None and q.dedicated.amount == pytest.approx(56 * 32.77 / 8, abs=0.01)
