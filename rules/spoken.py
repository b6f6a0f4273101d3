"""Numbers as people say them, written as digits before a question's parser reads the answer.

Chinese numerals are read here (十来个小时 -> 10个小时, 六七个小时 -> 6-7个小时, 六十几个G -> 65个G,
几百 -> 200-900, 一百五 -> 150, 三分之一 -> 33.3333%): cn2an reads 六七 as 67 and 三四次 as 34次, the ranges people type
most, so the reader is this project's own (rules/numbers.chinese_int). English number words go through
text2num's `alpha2digit` ("three and a half" -> 3.5, "a hundred and fifty" -> 150), loaded only when
an answer has one. A range comes out as "low-high": each parser reads its upper end and says so.

The result is the text each parser matches; `changed` tells the reply to echo what was read
("10 h (from 十来个小时)").
"""

from __future__ import annotations

import re

from rules.numbers import chinese_int
from rules.patterns import lazy

_DIGIT = "一二两三四五六七八九"
_CN = "[零〇一二两三四五六七八九十百千万]"
_VALUES = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2, "〇": 0}

_PERCENT_OF = lazy(rf"百分之({_CN}+|\d+(?:\.\d+)?)")
_FRACTION = lazy(rf"({_CN}+|\d+)分之({_CN}+|\d+)")
# two neighbouring digits are a range: 六七个小时 (6-7), 三四次 (3-4), 两三百 (200-300), 三五天 (3-5)
_PAIR = lazy(rf"(?<![{_DIGIT}十百千万零〇\d])([{_DIGIT}])([{_DIGIT}])([十百千万]?)(?![{_DIGIT}])")
# 几十, 几百, 几千, 几万 ("a few tens, hundreds ..."): 2 to 9 of that place, a range as 两三百 is; a question whose
# line falls inside it asks which side (几十G of an 80 GB card), one whose line does not reads it (几百 QPS is high)
_SOME_PLACE = lazy(rf"(?<![{_DIGIT}十百千万零〇\d几])几(十万|百万|十|百|千|万)(?![{_DIGIT}十百千万几])")
_PLACES = {"十": 10, "百": 100, "千": 1000, "万": 10000, "十万": 100000, "百万": 1000000}
# 六十几 ("sixty-odd") reads as 65, 十几 as 15: an approximation reads as its number
_TENS_AND_SOME = lazy(rf"(?<![{_DIGIT}十百千万])([{_DIGIT}]?)十几")
_ABOUT = lazy(rf"({_CN}+|\d+)来(?=\s*(?:个|[小天周星次张卡块gG岁分秒]|$))")  # 十来个, 二十来天: about that
_RUN = lazy(rf"({_CN}+)")
# numerals that are part of a word, not a number: 一直, 一般, 一晚上, 万一, 第一, 周一至周五 (weekdays) ...
_WORDS = lazy(
    r"一[直般下起样定些晚夜致旦点边半]|(?<![零〇一二两三四五六七八九十百千\d])万一|千万|[统唯单第]一"
    r"|(?:周|星期|礼拜)[一二三四五六日天](?:[、,，和及]?[一二三四五六日天])*(?=\s*(?:至|到|-|~|、|,|和|及|$|\s))"
)
_NUMERALS = "零〇一二两三四五六七八九十百千万"
_HIDE = str.maketrans(_NUMERALS, "".join(chr(0xE000 + i) for i in range(len(_NUMERALS))))
_SHOW = {v: k for k, v in _HIDE.items()}
_KEEP_ALONE = {"万", "千", "百"}  # a unit alone is a word (百分), not a number

_EN_NUMBER = lazy(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    r"|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    r"|hundred|thousand|dozen|couple)\b"
)
_EN_BEFORE = [
    (lazy(r"\b(?:a few|several) hundred\b|\bhundreds(?: of)?\b"), "200-900"),  # as 几百
    (lazy(r"\b(?:a few|several) thousand\b|\bthousands(?: of)?\b"), "2000-9000"),
    (lazy(r"\ban? (hour|day|week) or two\b"), r"1-2 \1s"),  # "a day or two": one to two days
    (lazy(r"\ba couple of\b|\bcouple of\b|\ba couple\b|\bcouple(?= times?\b| hours?\b| days?\b| weeks?\b)"), "two"),
    (lazy(r"\ba dozen\b|\bdozen\b"), "twelve"),
    (lazy(r"\ba (hundred|thousand)\b"), r"one \1"),
    (lazy(r"\bevery other\b"), "every two"),
    (lazy(r"(?<=[a-z0-9])-(something|odd|ish)\b"), r" \1"),  # "seventy-something": the number, then how it was said
]
# alpha2digit would write "per second" as "per 2nd" and "seventy billion" (parameters) as 70000000000
_GUARDED = lazy(r"\b(?:seconds?|billion|million)\b")
_AND_A_HALF = lazy(r"(\d+(?:\.\d+)?)\s+and a half\b")
_OR = lazy(r"\b(\d+(?:\.\d+)?)\s+or\s+(\d+(?:\.\d+)?)\b")  # "three or four times": a range


def _number(token: str) -> float:
    return float(token) if token[0].isdigit() else float(chinese_int(token))


def _show(value: float) -> str:
    return f"{value:.6g}"


def _pair(match: re.Match[str]) -> str:
    low, high, unit = _VALUES[match.group(1)], _VALUES[match.group(2)], match.group(3)
    if not (low < high <= low + 2 or (low, high) == (1, 2)):
        return match.group(0)  # 二一, 九二: not a range; read as a numeral below
    scale = {"": 1, "十": 10, "百": 100, "千": 1000, "万": 10000}[unit]
    return f"{low * scale}-{high * scale}"


def _tens_and_some(match: re.Match[str]) -> str:
    tens = _VALUES[match.group(1)] if match.group(1) else 1
    return str(tens * 10 + 5)


def _run(match: re.Match[str]) -> str:
    run = match.group(1)
    if run in _KEEP_ALONE:
        return run
    try:
        return str(chinese_int(run))
    except ValueError:
        return run


def _chinese(text: str) -> str:
    text = _WORDS.sub(lambda m: m.group(0).translate(_HIDE), text)  # hidden from the numeral reader
    text = _PERCENT_OF.sub(lambda m: f"{_show(_number(m.group(1)))}%", text)
    text = _FRACTION.sub(lambda m: f"{_show(_number(m.group(2)) / _number(m.group(1)) * 100)}%", text)
    text = _PAIR.sub(_pair, text)
    text = _SOME_PLACE.sub(lambda m: f"{2 * _PLACES[m.group(1)]}-{9 * _PLACES[m.group(1)]}", text)
    text = _TENS_AND_SOME.sub(_tens_and_some, text)
    text = _ABOUT.sub(lambda m: m.group(1), text)
    return _RUN.sub(_run, text).translate(_SHOW)


def _english(text: str) -> str:
    for pattern, said in _EN_BEFORE:
        text = pattern.sub(said, text)
    if not _EN_NUMBER.search(text):
        return text
    from text_to_num import alpha2digit  # only for an answer with a number word in it

    words: list[str] = []

    def guard(match: re.Match[str]) -> str:
        words.append(match.group(0))
        return f" \x00{len(words) - 1}\x00 "

    done: str = alpha2digit(_GUARDED.sub(guard, text), "en", threshold=0)
    return re.sub(r"\s?\x00(\d+)\x00\s?", lambda m: f" {words[int(m.group(1))]} ", done).strip()


_LISTED_PAIR = lazy(r"(?<![\d.])(\d+)\s*[、/]\s*(\d+)(?=\s*个?\s*(?:小时|天|周|次|张|卡|g|月))")  # 5、6个小时


_STEPS = {"百": "100", "千": "1000", "万": "10000"}
_UPWARDS_OF = lazy(r"(?<![晚早马])上([百千万])(?![零〇一二两三四五六七八九十百千万\d])")


def spoken(text: str) -> str:
    """`text` (normalised) with numbers said in words written as digits, ranges as "low-high"."""
    text = text.replace("好几", "几")  # 好几天, 好几次: "quite a few" reads as 几 does
    text = _UPWARDS_OF.sub(lambda m: _STEPS[m[1]] + "+", text)  # 上千: a thousand or more, as 1000+ reads
    if re.search(f"{_CN}", text):
        text = _chinese(text)
    text = _english(text)
    text = _AND_A_HALF.sub(lambda m: _show(float(m.group(1)) + 0.5), text)
    text = _LISTED_PAIR.sub(lambda m: f"{m[1]}-{m[2]}" if int(m[1]) < int(m[2]) else m[0], text)
    return re.sub(r"\s+", " ", _OR.sub(r"\1-\2", text)).strip()
