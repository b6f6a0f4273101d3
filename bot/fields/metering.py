"""How an item is billed and what it says about its power and balance, as typed in the terminal (flags) or in
chat (key=value): read once, here. A bad value raises FieldError naming the field, what was wrong and what is
accepted, in the user's language (bot/fields/rentals.py)."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from bot.fields.rentals import (
    CURRENCIES,
    SIGNS,
    FieldError,
    cards_typed,
    currency_of,
    gpu_typed,
    price_currency,
    price_typed,
    without_currency,
)
from bot.text import Lang, t
from bot.text.chinese_names import currency_code
from rules.metering import STOP_BILLING, Basis
from rules.numbers import money_value
from rules.patterns import lazy
from rules.power import Power

PROVIDER = re.compile(r"[a-z][a-z0-9_.\-]{0,31}")
BASES = tuple(b.value for b in Basis)
BALANCE_MAX = 1e12
ALIASES = {"hour": "hourly", "h": "hourly", "按量": "hourly", "按小时": "hourly"}
ALIASES |= {"daily": "day", "包天": "day", "按天": "day", "monthly": "month", "包月": "month", "按月": "month"}


def billing_of(text: str, lang: Lang) -> str:
    value = text.strip().lower()
    value = ALIASES.get(value, value)
    if value not in BASES:
        raise FieldError("billing", t("error.metering.bad_billing", lang, value=text, accepted=", ".join(BASES)))
    return value


# whether stopping it stops the meter, as said in Chinese (`billing box 包月 关机也计费` was refused)
STOP_WORDS = dict.fromkeys(("关机也计费", "关机仍计费", "关机继续计费", "关机照样计费", "停机也计费"), "keeps")
STOP_WORDS |= dict.fromkeys(("关机不计费", "关机停止计费", "关机即停止计费", "关机就停", "停机不计费"), "stops")


def stop_billing_of(text: str, lang: Lang) -> str:
    value = text.strip().lower()
    value = STOP_WORDS.get(value, value)
    if value not in STOP_BILLING:
        raise FieldError("stop-billing", t("error.metering.bad_stop_billing", lang, value=text))
    return value


# Providers as Chinese teams name them, to the ids discovery and the balance readers use (aliyun, tencent, huawei,
# volcengine, autodl, aws) and the marketplaces' own Latin names
PROVIDER_WORDS = {"阿里云": "aliyun", "阿里": "aliyun", "alibaba": "aliyun", "alibabacloud": "aliyun",
                  "腾讯云": "tencent", "腾讯": "tencent", "华为云": "huawei", "华为": "huawei",
                  "火山引擎": "volcengine", "火山云": "volcengine", "火山": "volcengine", "亚马逊云": "aws",
                  "百度智能云": "baidu", "百度云": "baidu", "矩池云": "matpool", "恒源云": "gpushare",
                  "优云智算": "compshare"}  # fmt: skip


# the providers a bare word names (`track box A800 autodl`, `价格 4090 阿里云`): their ids and Chinese names; any
# other id is said with its key
PROVIDER_NAMES = frozenset(PROVIDER_WORDS) | frozenset(PROVIDER_WORDS.values()) | {"autodl", "aws", "gcp", "azure"}
# the marketplaces teams prepay and the bundled rate card's (runpod balance is 500 dollars was listed, not recorded)
PROVIDER_NAMES |= {"runpod", "lambda", "vastai", "featurize", "scnet", "openrelay"}


def provider_names_pattern(edge: str = "a-z") -> str:
    """PROVIDER_NAMES as one alternation, the longest first, for finding one inside a sentence: an ASCII name not
    within a longer run of `edge` characters, a Chinese one even glued (阿里云A100)."""
    return "|".join(
        rf"(?<![{edge}]){re.escape(name)}(?![{edge}])" if name.isascii() else re.escape(name)
        for name in sorted(PROVIDER_NAMES, key=len, reverse=True)
    )


# the currency a provider's prepaid balance is kept in, where a balance is said without one (`runpod 500` was ¥500:
# RunPod, Lambda and vast.ai bill in dollars, as the big clouds' international sites do)
PROVIDER_CURRENCY = dict.fromkeys(("runpod", "lambda", "vastai", "aws", "gcp", "azure"), "USD")


def provider_id(text: str) -> str:
    """A provider as typed (AutoDL, 阿里云) as ids name it (autodl, aliyun), unchecked."""
    said = text.strip().lower()
    return PROVIDER_WORDS.get(said, said)


def provider_of(text: str, lang: Lang) -> str:
    """A provider account's id: `autodl`, `aliyun`, or its Chinese name (阿里云, 腾讯云, 火山引擎 ...)."""
    value = provider_id(text)
    if not PROVIDER.fullmatch(value):
        raise FieldError("provider", t("error.metering.bad_provider", lang, value=text))
    return value


def power_of(text: str, lang: Lang) -> Power:
    value = text.strip().lower()
    value = {"开": "on", "开机": "on", "关": "off", "关机": "off", "started": "on", "stopped": "off"}.get(value, value)
    if value not in ("on", "off"):
        raise FieldError("state", t("error.metering.bad_power", lang, value=text))
    return Power(value)


Billed = tuple[str | None, str | None, tuple[float, str, str | None] | None, str | None]
_PROVIDER_KEYS = ("provider=", "平台=", "供应商=")


def billing_words(words: list[str], lang: Lang) -> Billed:
    """What `billing NAME …` is told, in any order: how it bills (hourly, 包月), whether a stop stops the meter
    (stops, 关机不计费), a price, keyed (price=1.88/h) or not (`每天1000`; `一万二` after 包月
    is a month's), with the currency it says itself ($8/h, 3000美元/月; None: the instance's), and the provider
    whose balance it bills to (`provider=autodl`, `平台=阿里云`, or its name alone). FieldError: a word read as
    none of them, named."""
    providers = [w for w in words if w.lower().startswith(_PROVIDER_KEYS) or w.lower() in PROVIDER_NAMES]
    words = [w for w in words if w not in providers]
    if len(providers) > 1:
        raise FieldError("provider", t("error.inline.twice", lang, key="provider"))
    provider = provider_of(providers[0].partition("=")[2] or providers[0], lang) if providers else None
    if provider is not None and not words:  # `billing box provider=autodl`: the provider alone
        return None, None, None, provider
    basis, stop, price = _billed(words, lang)
    return basis, stop, price, provider


def _billed(words: list[str], lang: Lang) -> tuple[str | None, str | None, tuple[float, str, str | None] | None]:
    keyed = [w.partition("=")[2] for w in words if w.lower().startswith(("price=", "价格="))]
    basis: str | None = None
    stop: str | None = None
    left = []
    for word in (w for w in words if not w.lower().startswith(("price=", "价格="))):
        if basis is None and reads(billing_of, word, lang):
            basis = billing_of(word, lang)
        elif stop is None and reads(stop_billing_of, word, lang):
            stop = stop_billing_of(word, lang)
        else:
            left.append(word)
    if len(keyed) > 1 or (keyed and left) or not (keyed or left or basis or stop):
        raise FieldError("billing", t("meter.billing_usage", lang))
    said = keyed[0] if keyed else " ".join(left) or None
    if said is None:
        return basis, stop, None
    try:
        return basis, stop, (*price_typed(said, lang), price_currency(said))
    except FieldError:
        amount = money_value(without_currency(said).replace(" ", ""))
        if amount is not None and amount > 0 and basis is not None:  # `包月 一万二`: the basis says what it is per
            return basis, stop, (amount, _UNIT_OF_BASIS[basis], price_currency(said))
        if amount is not None and amount > 0 and not stop:  # `训练机 单价改成50`: per what it is priced by now ("")
            return basis, stop, (amount, "", price_currency(said))
        if keyed or basis is not None:
            raise
        raise FieldError("billing", t("meter.billing_words", lang, words=said[:40])) from None


_UNIT_OF_BASIS = {"hourly": "hour", "day": "day", "month": "month"}


def reads(read: Callable[[str, Lang], str], word: str, lang: Lang) -> bool:
    try:
        read(word, lang)
    except FieldError:
        return False
    return True


# what is said before a balance: what is left (还剩三千二), or about how much (约5000)
_LEFT = lazy(r"^(?:还剩下?|剩下|剩余|还有|剩|余额|约|大约|大概|差不多|about|around|roughly|~|≈)\s*", re.IGNORECASE)


def balance_said(words: list[str], currency: str | None, default: str, lang: Lang) -> tuple[float, str]:
    """A prepaid balance as typed, in one word or several (`320`, `还剩 三千二`, `3200 块`, `$500`, `5000 USD`), and its
    currency: a sign before it or a currency after it (or `currency`, the terminal's --currency), which must agree
    (`$500 CNY` is refused, never kept as ¥500); neither: `default`, the team's currency where a balance may be in it
    (CNY or USD), else CNY, as the terminal's --currency was."""
    words = list(words)
    if currency is None and len(words) > 1 and _currency_word(words[-1]):
        currency = words.pop()
    said = unicodedata.normalize("NFKC", "".join(words)).strip()
    said = _LEFT.sub("", said)
    signed = SIGNS.get(said[:1])
    amount = balance_of(said[1:] if signed else said, lang, shown=" ".join(words))
    code = currency_of(currency, lang) if currency is not None else None
    if signed is not None and code is not None and signed != code:
        raise FieldError("currency", t("error.metering.sign_and_currency", lang, value=" ".join(words), currency=code))
    return amount, signed or code or (default if default in CURRENCIES else "CNY")


# a top-up said before its amount (`+2000`, `充值2000`, `加 2000`, `topped up 500`): added to what is left
_TOP_UP = lazy(r"^(?:\+|充值了?|充了|续费了?|加了?|top(?:ped)?[- ]?up(?:\s+by|\s+with)?|add(?:ed)?)\s*", re.IGNORECASE)


def top_up_said(words: list[str]) -> list[str] | None:
    """The amount's words of a balance topped up (`+2000`, `充值 2000`, `topped up $500`); None where the words say
    a balance, not an amount paid in."""
    said = unicodedata.normalize("NFKC", " ".join(words)).strip()
    found = _TOP_UP.match(said)
    if found is None or not said[found.end() :].strip():
        return None
    return said[found.end() :].split()


def top_up_amount(words: list[str], currency: str | None, lang: Lang) -> tuple[float, str | None]:
    """A top-up's amount (`2000`, `$500`, `三千`) and the currency it says by a sign or a word, or `currency` (the
    terminal's --currency); None where it says none (the balance's own)."""
    amount, code = balance_said(words, currency, "CNY", lang)
    return amount, code if currency is not None or price_currency(" ".join(words)) is not None else None


def _currency_word(word: str) -> bool:
    """Whether a word after an amount names its currency (元, USD; EUR too, to be refused as one)."""
    return currency_code(word) in CURRENCIES or (len(word) == 3 and word.isascii() and word.isalpha())


def balance_of(text: str, lang: Lang, shown: str | None = None) -> float:
    """A prepaid balance: a finite amount from 0 (thousands separators allowed; 三千二, 3千2, 2万, 300元); the error
    says `shown`, the words as typed, where given."""
    shown = text if shown is None else shown
    cleaned = text.strip().replace(",", "").replace("，", "").lstrip("¥$￥")
    try:
        value = float(cleaned)
    except ValueError:  # as people type money: 三百, 2万, 300元
        said = money_value(cleaned)
        value = math.nan if said is None else said
    if math.isfinite(value) and value < 0:  # owed money is read from a provider, never typed
        raise FieldError("amount", t("error.metering.negative_balance", lang, value=shown))
    if not math.isfinite(value) or value > BALANCE_MAX:
        raise FieldError("amount", t("error.metering.bad_balance", lang, value=shown, high=f"{BALANCE_MAX:g}"))
    return value


_WHOSE_KEYS = {"project": "project", "项目": "project", "owner": "owner", "负责人": "owner", "所有者": "owner"}
_WHOSE_KEYS |= {"归属": "owner"}
NO_PROJECT = frozenset(("none", "-", "无", "没有", "不属于任何项目"))  # `project=none`: in no project
STARTED_KEYS = frozenset(("started", "start", "开始", "起租", "开始时间"))  # `started=昨天9:00`: when it began


_MACHINE_KEYS = {"gpu": "gpu", "卡型": "gpu", "显卡": "gpu", "cards": "cards", "卡数": "cards"}


def machine_words(words: list[str], lang: Lang) -> tuple[list[str], dict[str, Any]]:
    """An instance's card and count corrected, out of `billing NAME …`'s words (`gpu=H800`, `cards=4`, `卡型=`,
    `卡数=`), read as tracking reads them; the other words as they were. FieldError: one given twice, or a value
    read as no GPU or no count of whole cards."""
    return _keyed(
        words,
        _MACHINE_KEYS,
        lang,
        lambda field, value: cards_typed(value, lang) if field == "cards" else gpu_typed(value, lang),
    )


def _keyed(
    words: list[str], keys: dict[str, str], lang: Lang, read: Callable[[str, str], Any]
) -> tuple[list[str], dict[str, Any]]:
    """The words `key=value` whose key is one of `keys` (by its field, each once), each value read by `read(field,
    value)`; the other words as they were. FieldError: a field given twice, or what `read` raises."""
    found: dict[str, Any] = {}
    rest: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        field = keys.get(key.lower()) if sep else None
        if field is None:
            rest.append(word)
            continue
        if field in found:
            raise FieldError(field, t("error.inline.twice", lang, key=key))
        found[field] = read(field, value)
    return rest, found


def whose_words(words: list[str], lang: Lang) -> tuple[list[str], dict[str, str]]:
    """Whose money an instance is, out of `billing NAME …`'s words: `project=llm` (`项目=`; `none` for no project)
    and `owner=@someone` (`负责人=`), each once; the other words as they were. FieldError: one given twice, or a
    project's name longer than a project's 80 characters."""

    def read(field: str, value: str) -> str:
        if not value.strip() or (field == "project" and len(value) > 80):
            raise FieldError(field, t("meter.billing_usage", lang))
        return "" if field == "project" and value.lower() in NO_PROJECT else value

    return _keyed(words, _WHOSE_KEYS, lang, read)


# every key `billing NAME …` takes, by the field (the terminal's flag) it sets
BILLING_KEYS = (
    {key.rstrip("="): "provider" for key in _PROVIDER_KEYS}
    | {"price": "price", "价格": "price"}
    | _MACHINE_KEYS
    | _WHOSE_KEYS
    | dict.fromkeys(STARTED_KEYS, "started")
)


_AMOUNT_FIRST = lazy(r"^(?:[+＋$¥￥]|充值|还剩|剩)?\s*\d")


def provider_first(words: list[str]) -> list[str]:
    """`balance`'s words with the provider first, where it was named last after an amount (`余额 +1000 autodl`,
    `balance 3200 aliyun`): it was refused as no provider named "+1000"."""
    if len(words) > 1 and _AMOUNT_FIRST.match(words[0]) and words[-1].lower() in PROVIDER_NAMES:
        return [words[-1], *words[:-1]]
    return words
