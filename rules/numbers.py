"""Reading numbers the way people type them: digits, Chinese numerals, a few English words."""

from __future__ import annotations

import re
import unicodedata

from rules.patterns import lazy

_CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_CN_UNITS = {"十": 10, "百": 100, "千": 1000}
_EN_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "half": 0.5,
    "once": 1,
    "twice": 2,
    "thrice": 3,
    "few": 3,
    "several": 3,
    "几": 3,
}

# A number as it may appear inside a longer answer; use with number_value().
CHINESE_NUMERAL = "[零〇一二两三四五六七八九十百千万]+"
NUMBER = (
    r"\d+(?:\.\d+)?|"
    + CHINESE_NUMERAL
    + "|半|几|"
    + "|".join(rf"\b{w}\b" for w in sorted(_EN_WORDS, key=len, reverse=True) if w.isascii())
)


def chinese_int(text: str) -> int:
    """Chinese numerals as people say them: 十二 -> 12, 三百 -> 300, 两千五百 -> 2500, 一千五 -> 1500 and 一百五 -> 150
    (the digit after the unit counts the next unit down), 一千零五 -> 1005, 一万二 -> 12000."""
    if "万" in text:
        high, _, low = text.partition("万")
        rest = chinese_int(low) if low else 0
        if low and len(low) == 1 and low in _CN_DIGITS:  # 一万二: the digit after 万 counts thousands
            rest *= 1000
        return (chinese_int(high) if high else 1) * 10000 + rest
    total, current, unit = 0, 0, 0
    for char in text:
        if char in _CN_DIGITS:
            current = _CN_DIGITS[char]
            unit = 0 if char in "零〇" else unit  # 一千零五: the 5 is ones
        elif char in _CN_UNITS:
            unit = _CN_UNITS[char]
            total += (current or 1) * unit
            current = 0
        else:
            raise ValueError(f"not a Chinese numeral: {text!r}")
    if current and unit >= 100 and text[-2] in _CN_UNITS:  # 一千五, 两百五: the last digit counts the next unit down
        return total + current * unit // 10
    return total + current


def number_value(token: str) -> float:
    token = token.strip()
    if token in ("半",):
        return 0.5
    if token in _EN_WORDS:
        return float(_EN_WORDS[token])
    if re.fullmatch(r"\d+(?:\.\d+)?", token):
        return float(token)
    return float(chinese_int(token))


# "每秒二三十个请求吧": the particle too, and after a space a filler left ("大概一周左右吧"); "哈哈" apart is a word
_TRAILING = lazy(r"(?:[\s.。!！?？~～,，;；]|(?<=\S)[吧呗嘛啦呀哦哈]|(?<=\s)[吧呗嘛啦呀哦])+$")
_FILLERS = lazy(
    r"\b(?:about|around|approx\.?|approximately|roughly|usually|typically|each run|per run)\b"
    r"|\b(?:or so|or thereabouts|give or take|more or less)\b|(?<=\d)ish\b"  # "once a month or so", "10ish hours"
    r"|\b(?:something like|like|kinda|kind of|sort of|maybe|perhaps|probably|likely)\b"
    r"(?=\s*(?:about |around |roughly )?\d)"  # "like 12 hours", "probably around 10h"
    r"|(?:可能|也许|或许)(?=\s*(?:要|会|得|需要|是|有)?\s*(?:\d|[一二两三四五六七八九十几每]))"  # 可能要10小时: a hedge
    r"|大约|大概|约莫|约|左右|差不多|上下(?!文)|一般|通常|单次|每次"
    r"|估计|预计|预估|估摸着?"  # "估计要跑一个多星期", "预计3天": a guess, as 大概 is (也许, 可能: not sure, below)
)


_SUBJECT = lazy(
    r"^(?:i think|i guess|i'd say|we think|honestly|well)?[,\s]*"
    r"(?:it's|it is|it'll be|it will be|that's|that is|we're|we are|we'll be|it'll|it will)\s+(?:at\s+)?"
    r"(?=(?:about|around|roughly|like|maybe|probably|approximately|usually|typically|take|takes|\d"
    r"|daily|weekly|monthly|hourly|nightly|every|once|twice))"
)


def normalise(text: str) -> str:
    """NFKC (full-width to ASCII), lower case, fillers and trailing punctuation removed."""
    text = unicodedata.normalize("NFKC", text).lower().strip()
    text = _SUBJECT.sub("", text)  # "it's about 10 hours", "we're at like 70 of 80 gigs": the answer after
    text = _FILLERS.sub(" ", text)
    text = re.sub(r"^[~≈]\s*", "", text)
    text = _TRAILING.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


# --- money as typed -----------------------------------------------------------------------------

FIGURES_APART = lazy(r"\d\s+\d")  # two figures typed apart ("400 30/天"): never one number
_MONEY_WORDS = lazy(r"(?:块钱|块|元|人民币|rmb|cny)$")
_MONEY_SCALE = {"万": 10_000.0, "w": 10_000.0, "千": 1_000.0, "k": 1_000.0}
_SCALE_AND_DIGIT = lazy(r"(?P<n>\d+)(?P<scale>[万千w])(?P<d>\d)")
_DIGIT = r"(?:\d|[零〇一二两三四五六七八九])"
_KUAI = lazy(
    rf"^(?:(?P<whole>[\d.]+|[零〇一二两三四五六七八九十百千万]+)块)?"
    rf"(?:(?P<tenth>{_DIGIT})(?P<mao>[毛角])?(?:(?P<cent>{_DIGIT})分?)?)?钱?$"
)  # 两块五, 两块五毛, 一块二毛五, 3毛, 八毛五, 5毛钱: 块 a yuan, 毛 or 角 a tenth, 分 a hundredth


def money_value(text: str) -> float | None:
    """An amount of money as people type it: 20000, 20,000, 2万, 1.5万, 3千2, 20k, 三百, 两万五, 20000元, 300块, 两块五
    (2.5: 块 as the point before tenths), 3毛, 八毛五 (0.85: 毛 or 角 a tenth); a ¥, ￥ or $ before it is the
    caller's to read. None when it is not one."""
    said = unicodedata.normalize("NFKC", text).strip().lower().replace(",", "").replace("，", "").replace(" ", "")
    kuai = _KUAI.match(said)
    if kuai and kuai["tenth"] and (kuai["whole"] or kuai["mao"]) and (kuai["mao"] or not kuai["cent"]):
        whole = money_value(kuai["whole"]) if kuai["whole"] else 0.0  # "两块五": 2.5; "八毛五": 0.85
        cent = number_value(kuai["cent"]) if kuai["cent"] else 0.0
        return None if whole is None else round(whole + number_value(kuai["tenth"]) / 10 + cent / 100, 2)
    said = _MONEY_WORDS.sub("", said)
    tail = _SCALE_AND_DIGIT.fullmatch(said)
    if tail is not None:  # 3千2 is 3,200 and 1万2 12,000, as 三千二 and 一万二 are
        step = _MONEY_SCALE[tail["scale"]]
        return float(tail["n"]) * step + int(tail["d"]) * step / 10
    scale = 1.0
    if said[-1:] in _MONEY_SCALE and re.match(r"^[\d.]+[万wk千]$", said):  # "2万", "1.5万", "20k"
        said, scale = said[:-1], _MONEY_SCALE[said[-1]]
    try:
        return number_value(said) * scale if said else None
    except ValueError:
        return None
