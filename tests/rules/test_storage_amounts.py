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
        ("每月0.7元/G", 0.7),  # the month first, the GB after the amount: refused before
        ("每个月102.4元/T", 0.1),
        ("0.7 元/GB·月", 0.7),  # as consoles write it
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


@pytest.mark.parametrize(
    ("typed", "size_gb", "per_gb_month"),
    [
        ("每月500元", 1024.0, 500 / 1024),  # a 1T disk's month, as a console or a bill says it
        ("500元/月", 1024.0, 500 / 1024),
        ("月租300", 300.0, 1.0),
        ("$40/month", 500.0, 0.08),
        ("500 a month", 1000.0, 0.5),
        ("整盘每月2元", 100.0, 0.02),  # said to be the disk's: taken however small
        ("total 2/month", 100.0, 0.02),
        ("0.35元/GB/月", 1024.0, 0.35),  # a GB's, said so: the size changes nothing
    ],
)
def test_a_month_said_without_a_gb_is_the_whole_disks_where_no_gb_costs_that(
    typed: str, size_gb: float, per_gb_month: float
) -> None:
    """`登记存储 数据盘 1TB 每月500元` was refused: 500 a GB-month is no disk's price (the dearest the project lists is
    1.5), so a month's price above twice that, with the disk's size, is the disk's."""
    assert parse_price_gb_month(typed, size_gb) == pytest.approx(per_gb_month)


@pytest.mark.parametrize(
    ("typed", "size_gb"),
    [
        ("每月2元", 100.0),  # a GB's dear month, or a cheap disk's: asked
        ("0.3/月", 500.0),
        ("每月3元", 500.0),  # above a GB's dearest, but 0.006 a GB-month is below any disk's
        ("每月500元", None),  # no size to divide by
        ("整盘每月2元", None),
    ],
)
def test_a_month_that_could_be_either_is_still_asked(typed: str, size_gb: float | None) -> None:
    with pytest.raises(ParseError) as caught:
        parse_price_gb_month(typed, size_gb)
    assert caught.value.problem == "storage_price_per_gb"


def test_a_size_of_figures_typed_apart_is_no_one_size() -> None:
    """ "1 024" was 1,024 GB and "500 2" 5,002: spaces were dropped between figures."""
    for typed in ("1 024", "500 2"):
        with pytest.raises(ParseError):
            parse_size_gb(typed)
    assert parse_size_gb("500 G") == 500.0
