"""How people state a quantity, read into the interval it means: one grammar for every question.

A quantity is a number with what is said around it:
- an approximation (about, around, ~, -ish, 约, 大概, 左右, 上下, 来): the number itself;
- a bound before or after it (over, more than, at least, >, 超过, 以上, 不止; under, less than, at most, <, 不到,
  以内, 以下, 小于, 低于): everything above it, or below it;
- a range (6-10, 六到十, 6~10, "six or seven"): both ends;
- "some more" after it (七十多, 70-something, 70-odd, 一百出头): above it, below the next step of its last digit
  (七十多 is 70-80, 一百多 100-200, 八个多小时 8-9 h; 出头 a fifth of that step);
- and a unit, which each question names (a pattern of its own: GB, hours, QPS, ms, GPU-hours a year).

It reads into an `Amount` (the interval, each end open or closed), and each question turns the interval into its
answer by one rule: `Amount.side(line)` says whether every value is above a rule's threshold, none is, or the
interval straddles it (then the answer is refused naming the threshold, never guessed); `Amount.planned` is the
figure a rule plans for (the upper end, as the hit rules read a range).

The text comes normalised, with numbers written as digits (rules/numbers.normalise, rules/spoken.spoken: the
Chinese numerals and English number words are read there). Regular expressions, not a parser library: the
grammar is one optional prefix, a number or range, one optional suffix and a unit, which a pattern states in a
few lines; lark or pyparsing would add a dependency and a grammar file for the same shape. No word segmentation
(jieba): the grammar reads characters around one number, and jieba's dictionary (about a second to load) would be
paid by every `gpu-advise advise` start for answers that do not need it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rules.patterns import lazy

NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_ABOVE_BEFORE = (
    r">=?|≥|more than|greater than|longer than|over|above|at least|just over|a bit over|a little over|slightly over"
    r"|well over|超过|多于|大于|高于|不止|至少|起码|最少|不少于|不低于|(?:不能|不要|不得|不可以?|别)(?:少于|低于)"
)
_BELOW_BEFORE = (
    r"<=?|≤|less than|fewer than|shorter than|under|below|within|at most|no more than|not more than|up to"
    r"|不到|少于|小于|低于|不超过|不高于|不足|最多|(?:不能|不要|不得|不可以?|别)(?:超过|高于|大于)"
)
_ABOVE_AFTER = r"以上|\+|or more|plus|and up|不止"
_BELOW_AFTER = r"以内|以下|之内|内|不到|or less|or under|at most|max|tops"  # 内: "一秒内", "500毫秒内"
_SOME_AFTER = r"多|出头|something|odd|-odd"
_CLOSED = {">=", "≥", "at least", "至少", "起码", "最少", "不少于", "不低于", "<=", "≤", "at most", "no more than",
           "within", "not more than", "up to", "不超过", "不高于", "最多", "以内", "之内", "内", "or less", "max",
           "tops"}  # fmt: skip
# 不能超过 80ms, 不要低于 100: a bound that may be reached, as 不超过 and 不低于 are
_CLOSED |= {f"{no}{than}" for no in ("不能", "不要", "不得", "不可", "不可以", "别")
            for than in ("超过", "高于", "大于", "少于", "低于")}  # fmt: skip
_APPROX = lazy(r"^\s*[~≈]|(?:^|\s)(?:or so|give or take|ish)(?:\s|$)|(?<=\d)-?ish\b|左右|上下(?!文)")


@dataclass(frozen=True)
class Amount:
    """The interval a stated quantity means. `low`/`high` None: unbounded on that side."""

    low: float | None
    high: float | None
    low_open: bool = False
    high_open: bool = False
    approx: bool = False

    @property
    def exact(self) -> float | None:
        return self.low if self.low is not None and self.low == self.high else None

    @property
    def planned(self) -> float:
        """The figure a rule plans for: the upper end, or the lower end when there is no upper one."""
        value = self.high if self.high is not None else self.low
        assert value is not None  # every reading has an end
        return value

    @property
    def above_only(self) -> bool:
        """Said as "more than N", with no upper end."""
        return self.high is None

    @property
    def below_only(self) -> bool:
        """Said as "less than N" or "at most N", with no lower end."""
        return self.low is None

    def side(self, line: float, *, at_line_is_above: bool = False) -> bool | None:
        """True when every value is above `line` (or at it, where the rule says "at least"), False when none is,
        None when the interval straddles it."""
        if at_line_is_above:
            if self.low is not None and self.low >= line:
                return True
            if self.high is not None and (self.high < line or (self.high == line and self.high_open)):
                return False
            return None
        if self.low is not None and (self.low > line or (self.low == line and self.low_open)):
            return True
        if self.high is not None and self.high <= line:
            return False
        return None

    def at_most_is_the_peak(self) -> Amount:
        """For a question that asks for a peak, "at most 300" or "up to 300" names the peak: 300 ("less than 300"
        stays below it)."""
        if self.low is None and self.high is not None and not self.high_open:
            return Amount(self.high, self.high, approx=self.approx)
        return self

    def scaled(self, factor: float) -> Amount:
        def times(v: float | None) -> float | None:
            return None if v is None else round(v * factor, 9)

        return Amount(times(self.low), times(self.high), self.low_open, self.high_open, self.approx)


def number(text: str) -> float:
    return float(text.replace(",", ""))


def _step(value: float) -> float:
    """The step of a number's last significant digit: 70 -> 10, 8 -> 1, 100 -> 100, 2500 -> 100, 7.5 -> 0.1."""
    if value != int(value):
        decimals = len(f"{value:g}".partition(".")[2])
        return 10.0**-decimals
    whole, step = int(value), 1
    while whole and whole % 10 == 0:
        whole //= 10
        step *= 10
    return float(step)


def _quantity_pattern(unit: str) -> str:
    unit_part = rf"(?:\s*(?:个\s*)?(?P<unit>{unit}))?" if unit else ""
    low_unit = rf"(?:\s*(?:个\s*)?(?:{unit}))?" if unit else ""  # "70G到80G", "2天到3天": the unit said at both ends
    return (
        rf"^(?:(?P<above>{_ABOVE_BEFORE})|(?P<below>{_BELOW_BEFORE}))?\s*"
        rf"(?P<low>{NUM})(?:\s*(?P<thousand>{_TIMES})(?![a-z]))?(?P<plus>\+)?"
        rf"(?:{low_unit}\s*(?:-|–|~|to|or|到|至|或)\s*(?P<high>{NUM})(?:\s*(?P<thousand2>{_TIMES})(?![a-z]))?)?"
        rf"(?:\s*(?:个\s*)?(?P<some>{_SOME_AFTER}))?"
        rf"{unit_part}"
        rf"(?:\s*(?P<some2>多|出头))?"
        rf"(?:\s*(?:(?P<after_above>{_ABOVE_AFTER})|(?P<after_below>{_BELOW_AFTER})))?$"
    )


_PATTERNS: dict[str, re.Pattern[str]] = {}
_MULTIPLIERS = {"k": 1e3, "万": 1e4, "million": 1e6}  # 1.5k, 100万 (a day's calls), 5 million
_TIMES = "|".join(_MULTIPLIERS)


def read_amount(text: str, unit: str = "") -> tuple[Amount, str | None] | None:
    """The amount `text` states, and the unit it was stated in (the match of `unit`, a pattern; None when the text
    gave none); None when the text is not one quantity."""
    approx = _APPROX.search(text) is not None
    core = _APPROX.sub(" ", text).strip()
    pattern = _PATTERNS.get(unit)
    if pattern is None:
        pattern = _PATTERNS[unit] = re.compile(_quantity_pattern(unit))
    match = pattern.match(core)
    if match is None:
        return None
    g = match.groupdict()
    low = number(g["low"]) * _MULTIPLIERS.get(g["thousand"] or "", 1.0)
    high = (
        None if g["high"] is None else number(g["high"]) * _MULTIPLIERS.get(g["thousand2"] or g["thousand"] or "", 1.0)
    )
    if high is not None and high < low:
        return None
    some = g["some"] or g["some2"]
    bound_before = g["above"] or g["below"]
    bound_after = g["after_above"] or g["after_below"] or g["plus"]
    if sum(x is not None for x in (high, some, bound_before, bound_after)) > 1:
        return None  # "over 6-10", "不到70多": not one reading
    found_unit = g.get("unit")
    if high is not None:
        return Amount(low, high, approx=approx), found_unit
    if some is not None:
        step = _step(low) * (0.2 if some == "出头" else 1.0)
        return Amount(low, low + step, low_open=True, high_open=True, approx=approx), found_unit
    if g["above"] or g["after_above"] or g["plus"]:
        closed = (g["above"] or g["after_above"]) in _CLOSED
        return Amount(low, None, low_open=not closed, approx=approx), found_unit
    if g["below"] or g["after_below"]:
        closed = (g["below"] or g["after_below"]) in _CLOSED
        return Amount(None, low, high_open=not closed, approx=approx), found_unit
    return Amount(low, low, approx=approx), found_unit
