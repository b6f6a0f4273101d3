"""The quantity grammar (rules/quantity.py), property-tested: a phrase built from a number, an approximation, a
bound, a range or "some more", a unit and either language reads as the interval it means; text that states no
quantity reads as none."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.quantity import Amount, read_amount

UNIT = r"gb|g|qps|h|小时"
numbers = st.integers(min_value=1, max_value=5000)
units = st.sampled_from(["", "gb", "g", "qps", "h", "小时", " gb", " qps"])
ABOVE = ["more than {n}{u}", "over {n}{u}", "above {n}{u}", "超过{n}{u}", "{n}{u}以上", "> {n}{u}", "a bit over {n}{u}"]
AT_LEAST = ["at least {n}{u}", "至少{n}{u}", "≥{n}{u}", "不少于{n}{u}", "不能少于{n}{u}", "不要低于{n}{u}"]
BELOW = ["less than {n}{u}", "under {n}{u}", "below {n}{u}", "不到{n}{u}", "{n}{u}不到", "小于{n}{u}", "低于{n}{u}",
         "< {n}{u}"]  # fmt: skip
AT_MOST = ["at most {n}{u}", "{n}{u}以内", "不超过{n}{u}", "最多{n}{u}", "up to {n}{u}", "{n}{u} or less",
           "不能超过{n}{u}", "不要超过{n}{u}", "别超过{n}{u}", "不得高于{n}{u}"]  # fmt: skip
APPROX = ["~{n}{u}", "{n}{u}左右", "{n}{u}上下", "{n}{u} or so", "{n}-ish{u}"]


def _read(text: str) -> Amount:
    read = read_amount(text, UNIT)
    assert read is not None, text
    return read[0]


@given(numbers, units)
def test_a_plain_number_is_itself(n: int, unit: str) -> None:
    assert _read(f"{n}{unit}") == Amount(n, n)


@given(numbers, units, st.sampled_from(APPROX))
def test_an_approximation_reads_as_its_number_and_says_so(n: int, unit: str, form: str) -> None:
    if "ish" in form and unit:
        form = "{n}-ish"  # "70-ish gb" is not how it is said; "70-ish" is
        unit = ""
    amount = _read(form.format(n=n, u=unit))
    assert (amount.exact, amount.approx) == (n, True)


@given(numbers, units, st.sampled_from(ABOVE + AT_LEAST))
def test_a_lower_bound_is_everything_above_it(n: int, unit: str, form: str) -> None:
    amount = _read(form.format(n=n, u=unit))
    assert (amount.low, amount.high, amount.low_open) == (n, None, form not in AT_LEAST)
    assert amount.side(n - 0.5) is True and amount.side(n + 1) is None
    # "more than 64" is past 64; "at least 64" may be at it
    assert amount.side(n) is (True if form not in AT_LEAST else None)


@given(numbers, units, st.sampled_from(BELOW + AT_MOST))
def test_an_upper_bound_is_everything_below_it(n: int, unit: str, form: str) -> None:
    amount = _read(form.format(n=n, u=unit))
    assert (amount.low, amount.high, amount.high_open) == (None, n, form not in AT_MOST)
    assert amount.side(n) is False and amount.side(n - 0.5) is None
    assert amount.planned == n and amount.below_only


@given(numbers, numbers, units, st.sampled_from(["{a}-{b}{u}", "{a}~{b}{u}", "{a} to {b}{u}", "{a}到{b}{u}"]))
def test_a_range_is_both_ends(a: int, b: int, unit: str, form: str) -> None:
    low, high = min(a, b), max(a, b)
    amount = _read(form.format(a=low, b=high, u=unit))
    assert (amount.low, amount.high, amount.planned) == (low, high, high)
    if low < high:
        assert amount.side((low + high) / 2) is None  # straddles a line between its ends: never guessed


@given(st.integers(min_value=1, max_value=99), st.sampled_from(["gb", "g", "小时", ""]))
def test_some_more_is_up_to_the_next_step_of_its_last_digit(tens: int, unit: str) -> None:
    n = tens * 10
    step = 10 if tens % 10 else 100
    amount = _read(f"{n}多{unit}")
    assert (amount.low, amount.high, amount.low_open, amount.high_open) == (n, n + step, True, True)


def show_amount(amount: Amount) -> str:
    """ "70–80", ">64", "<64", "≥20", "300": the interval in a few characters."""

    def n(v: float) -> str:
        return f"{v:g}" if math.isfinite(v) else "∞"

    if amount.exact is not None:
        return n(amount.exact)
    if amount.high is None and amount.low is not None:
        return f"{'>' if amount.low_open else '≥'}{n(amount.low)}"
    if amount.low is None and amount.high is not None:
        return f"{'<' if amount.high_open else '≤'}{n(amount.high)}"
    return f"{n(amount.low or 0)}–{n(amount.high or 0)}"


@pytest.mark.parametrize(
    ("text", "shown"),
    [("70多g", "70–80"), ("8个多小时", "8–9"), ("100出头", "100–120"), ("2000多小时", "2000–3000"),
     ("70 something gb", "70–80"), ("70 odd", "70–80"), ("2,400 gb", "2400"), ("1.5k qps", "1500"),
     ("不到64g", "<64"), ("64g不到", "<64"), ("at least 20h", "≥20"), ("more than 64gb", ">64")],
)  # fmt: skip
def test_the_forms_people_type(text: str, shown: str) -> None:
    assert show_amount(_read(text)) == shown


@given(st.text(alphabet=st.sampled_from(list("abcdefgh 多不到以上左右超过gbqps小时~<>-")), max_size=30))
def test_text_that_states_no_number_is_no_quantity(text: str) -> None:
    assert read_amount(text, UNIT) is None


@pytest.mark.parametrize("text", ["over 6-10 gb", "不到70多g", "10-5 gb", "more than less than 5"])
def test_two_readings_at_once_are_none(text: str) -> None:
    assert read_amount(text, UNIT) is None
