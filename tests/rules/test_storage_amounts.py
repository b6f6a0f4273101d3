"""Storage sizes and prices as chat's `track storage` takes them (rules/storage_amounts.py)."""

from __future__ import annotations

import pytest

from rules.errors import ParseError
from rules.storage_amounts import parse_price_gb_month, parse_size_gb


@pytest.mark.parametrize(
    ("typed", "gb"),
    [("500", 500), ("500G", 500), ("500 GB", 500), ("2T", 2048), ("1.5TB", 1536), ("2 TiB", 2048), ("1,000", 1000)],
)
def test_a_size_in_gb_or_t(typed: str, gb: float) -> None:
    assert parse_size_gb(typed) == gb


@pytest.mark.parametrize(
    ("typed", "problem"), [("0", "not_positive"), ("-3", "not_positive"), ("500M", None), ("abc", None)]
)
def test_a_size_that_is_none_is_refused(typed: str, problem: str | None) -> None:
    with pytest.raises(ParseError) as caught:
        parse_size_gb(typed)
    assert caught.value.problem == problem and "2T" in caught.value.accepted


@pytest.mark.parametrize(
    ("typed", "per_gb_month"),
    [
        ("0.35", 0.35),
        ("0.35元", 0.35),
        ("0.35元/GB/月", 0.35),
        ("0.35/GB/month", 0.35),
        ("¥0.35 per GB-month", 0.35),
        ("0.7 元/G/月", 0.7),
        ("102.4元/T/月", 0.1),
        ("三毛五一个G一个月", 0.35),  # as said aloud: refused before
        ("0.35每个G每月", 0.35),
        ("一百零二块四一个T一个月", 0.1),
        ("每GB每月0.3元", 0.3),  # what it is per said first: refused before
        ("每月每GB 0.3元", 0.3),
        ("每TB每月102.4元", 0.1),
    ],
)
def test_a_price_per_gb_month_or_per_t(typed: str, per_gb_month: float) -> None:
    assert parse_price_gb_month(typed) == pytest.approx(per_gb_month)


@pytest.mark.parametrize(
    ("typed", "problem"),
    [
        ("350元/月", "storage_price_per_gb"),
        ("0.35/月", "storage_price_per_gb"),
        ("0", "not_positive"),
        ("-0.35", "not_positive"),
        ("0.35/h", None),
        ("500 0.35", None),  # two figures typed apart: it was 5000.35 a GB-month
    ],
)
def test_a_price_that_does_not_say_per_gb_is_asked_not_guessed(typed: str, problem: str | None) -> None:
    with pytest.raises(ParseError) as caught:
        parse_price_gb_month(typed)
    assert caught.value.problem == problem


def test_a_size_of_figures_typed_apart_is_no_one_size() -> None:
    """ "1 024" was 1,024 GB and "500 2" 5,002: spaces were dropped between figures."""
    for typed in ("1 024", "500 2"):
        with pytest.raises(ParseError):
            parse_size_gb(typed)
    assert parse_size_gb("500 G") == 500.0
