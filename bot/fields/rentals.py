"""An instance's fields as typed in the terminal (flags) or in Slack (key=value): read once, here.

A bad value raises FieldError naming the field and saying, in the user's language, what was wrong
and what is accepted; each front end puts its own spelling of the field in front (`--price`, `price=`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.text import Lang, t
from bot.text.chinese_names import SWITCH_WORDS, currency_code
from bot.text.errors import parse_error_text, unknown_gpu_text
from rules.errors import ParseError, UnknownGPU
from rules.gpus import canonical_gpu, counted_gpu
from rules.numbers import money_value
from rules.parsing import parse_cards, parse_price, parse_share
from rules.patterns import lazy
from rules.storage_amounts import parse_price_gb_month

T = TypeVar("T")
CURRENCIES = ("CNY", "USD")


FORM_ROOM = 150  # the characters of a field's error a form shows (a Slack modal's, a Feishu card's line)


class FieldError(ValueError):
    """A field that cannot be read: `message` names what is accepted; `short`, where given, says it in the room a
    form leaves under a field (a Slack modal's error, a Feishu card's line)."""

    def __init__(self, field: str, message: str, short: str | None = None) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.short = short or message


def currency_of(text: str, lang: Lang) -> str:
    code = currency_code(text)
    if code not in CURRENCIES:
        raise FieldError("currency", t("error.rental.bad_currency", lang, currency=text))
    return code


def machine(gpu: str, cards: int | None, lang: Lang) -> tuple[str, int | None]:
    """A GPU said with its count, as platforms list a machine ("A100*8": eight cards of it), as the GPU's name and
    the cards; `cards` (None: not given) as it is otherwise. FieldError("cards") when cards= gives another count."""
    name, counted = counted_gpu(gpu)
    if counted is None:
        return name, cards
    if cards not in (None, counted):
        raise FieldError("cards", t("error.cards_twice", lang, gpu=gpu, counted=counted, cards=cards))
    return name, counted


def instance_fields(
    gpu: str,
    price: str | None,
    cards: int | None,
    share: str | None,
    currency: str | None,
    lang: Lang,
    *,
    cached: Callable[[str, int, float | None], CachedPrice | None] | None = None,
    default_currency: str = "CNY",
) -> dict[str, Any]:
    """GPU model, price and its billing unit, cards (None: one, or the count the GPU is said with, "A100*8") or a
    slice, currency: the columns of an instance. Without a typed price, `cached(gpu, cards, share)` gives one from
    the price cache (its source in `price_source`), else the price is asked for. A price that says its currency ($,
    ¥, USD, 元) is in it, and `currency` (None: not given) must agree; else `currency`, else `default_currency`."""
    gpu, counted = machine(gpu, cards, lang)
    cards = counted or 1
    model = gpu_typed(gpu, lang)
    try:
        part = parse_share(share, model) if share is not None else None
    except ParseError as exc:
        raise FieldError("share", parse_error_text(exc, lang)) from None
    out = {"gpu": model, "cards": cards, "share": part}
    if price is None:
        found = cached(model, cards, part) if cached else None
        if found is None:
            raise FieldError("price", t("error.rental.no_cached_price", lang, gpu=model))
        return out | {
            "unit": found.unit,
            "price": found.amount,
            "currency": found.currency,
            "price_source": f"{found.source} {found.as_of}",
        }
    amount, unit = price_typed(price, lang)  # typed: the price of the whole instance, kept as it was said
    code = money_of(price, currency, default_currency, lang)  # "$2.5/h": never kept as ¥2.5
    return out | {"unit": unit, "price": amount, "currency": code, "price_by": "track"}


def gpu_typed(gpu: str, lang: Lang) -> str:
    """The catalogue's name of a GPU as typed (A800, 4090, 910B). FieldError naming the known ones (a maker's few
    where a maker was named)."""
    try:
        return canonical_gpu(gpu)
    except UnknownGPU as exc:
        said = unknown_gpu_text(exc, lang)
        fits = exc.maker and len(said) <= FORM_ROOM  # a maker's few cards are the answer; all of NVIDIA's are not
        short = said if fits else t("error.unknown_gpu_short", lang, gpu=exc.name[:30])
        raise FieldError("gpu", said, short) from None


def cards_typed(text: str, lang: Lang) -> int:
    """Whole cards as typed (8, 8卡, 八张, 两台8卡). FieldError: none or more than 1,024 said as that range; else
    that cards are whole (a slice is share=), which every other refusal said, 0卡 and 10万卡 too."""
    try:
        return parse_cards(text)
    except ParseError as exc:
        if exc.problem in ("not_positive", "too_many_cards"):
            raise FieldError("cards", f"`cards`: {parse_error_text(exc, lang)}") from None
        raise FieldError("cards", t("error.whole_cards", lang, cards=text)) from None


# 8卡, 八张, 两台8卡, 8cards: a count, then cards (not 200卡时, nor 共享卡), as quote and track take them without cards=
CARDS_SAID = lazy(r"^(?:\d|[零一二两三四五六七八九十百千万]).*(?:卡|张|cards?|gpus?)$", re.IGNORECASE)
CARD_WORDS = ("cards", "card", "gpus", "卡", "张", "张卡")  # not "gpu": "100 gpu hours" is a total


_SLICE = lazy(r"^(?:共享)?(?P<share>半|一半|\d+/\d+|\d+(?:\.\d+)?%|[一二三四]分之[一二三])(?:张卡|张|卡)$")


def slice_said(word: str) -> str | None:
    """A slice of a card said bare (半卡, 1/2卡, 1/4张, 共享半卡) as share= takes it (一半, 1/2); None if it is none."""
    found = _SLICE.fullmatch(word)
    if found is None:
        return None
    return "一半" if found["share"] == "半" else found["share"]


def cards_joined(words: list[str]) -> list[str]:
    """`words` with a count and its cards typed apart ("8 cards", "8 张") made one word ("8cards")."""
    out = list(words)
    for i in range(len(out) - 1, 0, -1):
        if out[i - 1].isdigit() and out[i].lower() in CARD_WORDS:
            out[i - 1 : i + 1] = [out[i - 1] + out[i]]
    return out


def price_typed(price: str, lang: Lang) -> tuple[float, str]:
    """A price as typed ("1.88/h", "400/天", "1.5 USD/hour"): its amount and what it is per (FieldError saying what
    is accepted)."""
    try:
        return read_price(price)
    except ParseError as exc:
        raise FieldError("price", parse_error_text(exc, lang)) from None


_PRICE_CURRENCY = lazy(r"(?<![a-z])(?:usd|cny|rmb)(?![a-z])|美元|美金|人民币", re.IGNORECASE)


def read_price(price: str) -> tuple[float, str]:
    """parse_price's reading of a price with its currency said in it ("1.5 USD/hour", "2.5美元/小时")."""
    return _as_typed(parse_price, price)


def read_price_gb_month(price: str, size_gb: float | None = None) -> float:
    """A storage price per GB-month with its currency said in it ("0.02美元/GB/月"), as parse_price_gb_month reads
    the rest (a whole disk's month, "每月500元", given its size)."""
    return _as_typed(lambda said: parse_price_gb_month(said, size_gb), price)


def _as_typed(read: Callable[[str], T], price: str) -> T:
    """`read` of a price without its currency; its error says the price as typed."""
    try:
        return read(without_currency(price))
    except ParseError as exc:
        raise ParseError(exc.question, price, exc.accepted, exc.problem, exc.params) from None


def without_currency(price: str) -> str:
    """A price without the currency said in it ("3000美元" is 3000), for what reads the amount."""
    return _PRICE_CURRENCY.sub(" ", price).strip()


def money_of(price: str, currency: str | None, default: str, lang: Lang) -> str:
    """The currency a price is kept in: its own ($, ¥, USD, 元) where it says one, which `currency` given as well
    must agree with (FieldError naming both); else `currency`, else `default` (the team's, or the terminal's CNY)."""
    priced_in = price_currency(price)
    given = currency_of(currency, lang) if currency is not None else None
    if priced_in is not None and given is not None and priced_in != given:
        raise FieldError("currency", t("error.metering.sign_and_currency", lang, value=price, currency=given))
    return priced_in or given or currency_of(default, lang)


def price_currency(price: str) -> str | None:
    """The currency a price says itself: a sign before it ($2.5/h, ¥400/天) or its currency in it (1.5 USD/hour,
    60元/小时 is CNY); None when it says none. "$2.5/h" was kept as ¥2.5 an hour, the sign dropped."""
    said = unicodedata.normalize("NFKC", price).strip()
    signed = SIGNS.get(said[:1])
    if signed is not None:
        return signed
    word = _PRICE_CURRENCY.search(said)
    if word is not None:
        return currency_code(word.group(0))
    return "CNY" if re.search(r"元|块", said) else None


@dataclass(frozen=True)
class CachedPrice:
    amount: float  # for the whole instance (cards x per card, or the slice's share of one card)
    unit: str
    currency: str
    source: str
    as_of: str


BILLING_ORDER = ("on-demand", "daily", "monthly")  # how a rented instance is usually billed, most likely first


def price_from_cache(
    offers: Iterable[Any], cards: int, share: float | None, models: tuple[str, ...] = BILLING_ORDER
) -> CachedPrice | None:
    """When no price is typed: a dedicated price of the GPU from the price cache, fresh before stale,
    billed by the hour before the day before the month (or by `models`, in their order: a spot instance's spot
    price), cheapest first; scaled to the instance's cards or slice. None when the cache has none."""
    usable = [o for o in offers if o.record.sharing.value == "dedicated" and o.record.pricing_model.value in models]
    if not usable:
        return None
    best = min(
        usable,
        key=lambda o: (
            o.stale,
            models.index(o.record.pricing_model.value),
            o.record.amount / o.record.gpu_count,
        ),
    )
    per_card = best.record.amount / best.record.gpu_count
    amount = per_card * (share if share is not None else cards)
    return CachedPrice(
        round(amount, 4),
        best.record.unit.value,
        best.record.currency.value,
        best.record.source,
        best.as_of.date().isoformat(),
    )


SIGNS = {"¥": "CNY", "￥": "CNY", "$": "USD"}
BUDGET_MIN, BUDGET_MAX = 1.0, 1e12


_A_MONTH = lazy(
    r"^(?:每月|每个月|一个月|月|monthly)\s*|\s*(?:/\s*(?:月|month|mo)|每月|一个月|per month|a month|monthly)$", re.I
)


# the whole team, as a budget's first word names it (`预算 全队 5万` kept a project named 全队, which the list then
# showed beside the whole team's own budget, also said 全队)
TEAM_WORDS = frozenset(("全队", "全团队", "整个团队", "团队", "全组", "整组", "全部", "所有", "总", "总预算", "整体",
                        "team", "the team", "whole-team", "all", "everyone", "total", "overall"))  # fmt: skip
# a budget removed, in either language (`预算 llm 关闭` was refused with the usage): a switch's off, and what removes
OFF_WORDS = frozenset(w for w, said in SWITCH_WORDS.items() if said == "off") | {
    "删除", "删掉", "取消", "清除", "remove", "delete", "none"}  # fmt: skip


def as_spelt(said: str, names: Iterable[str]) -> str | None:
    """The one of `names` that `said` names, capitals aside (`A1` for a1, `CV` for cv); None when none does."""
    return next((n for n in names if n.lower() == said.lower()), None)


def budget_target(words: list[str]) -> tuple[bool, list[str]]:
    """Whether a budget's words are the whole team's, and the words left once a word naming the team is taken
    (`全队 5万`, `team off`); else whole_team_budget's reading of them (an amount first: the whole team's)."""
    if words and words[0].lower() in TEAM_WORDS:
        return True, words[1:]
    return (len(words) == 1 and words[0].lower() in OFF_WORDS) or whole_team_budget(words), words


def whole_team_budget(words: list[str]) -> bool:
    """Whether a budget's words name no project, the whole team's: they begin with its amount or its month
    ("20000", "$500", "每月 5000", "monthly 2万"), not a project's name ("llm 20000"). A project named as a
    number keeps its name where an amount follows it ("2026 5000")."""
    if not words:
        return False
    if not _A_MONTH.sub("", words[0]).strip():  # 每月, monthly: a month, not a project
        return True
    if budget_money(words[0], None) is None:  # a project's name first
        return False
    rest = [w for w in words[1:] if currency_code(w) not in CURRENCIES]  # "5000 USD", "5000 美元"
    return not rest or budget_money(" ".join(rest), None) is None


def budget_words(words: list[str], currency: str | None, default: str | None = None) -> tuple[float, str] | None:
    """A month's budget in words as people say it ("每月 2万", "20k a month", "$500"), then perhaps its currency
    (USD, 美元) where `currency` is not given; no sign and no code: `default` (else budget_money's). None when the
    words are no budget in CNY or USD."""
    words = list(words)
    if currency is None and len(words) > 1 and currency_code(words[-1]) in CURRENCIES:  # "5000 USD", "5000 美元"
        currency = currency_code(words.pop())
    asked = budget_money(" ".join(words), currency) if words else None
    if asked is not None and default is not None and currency is None and words[0][:1] not in SIGNS:
        asked = (asked[0], default)
    return asked if asked is not None and asked[1] in CURRENCIES else None


def budget_money(text: str, currency: str | None) -> tuple[float, str] | None:
    """(amount, currency) of a budget as typed: a ¥ or $ sign sets the currency, which a currency also given must
    agree with ("$500" with CNY is refused, never stored as ¥500); without either, CNY. None when unreadable, below
    1 or above a trillion. A budget is a month's: "每月2万", "2万/月", "20k a month" say so and read as 2万."""
    text = _A_MONTH.sub("", text.strip()).strip()
    signed = SIGNS.get(text[:1])
    if signed is not None:
        text = text[1:]
    said = currency.upper() if currency else None
    if signed is not None and said is not None and signed != said:
        return None
    try:
        value = float(text.replace(",", ""))
    except ValueError:  # as people type money: 2万, 20k, 两万, 20000元
        typed = money_value(text)
        if typed is None:
            return None
        value = typed
    if not BUDGET_MIN <= value < BUDGET_MAX:  # also nan and inf
        return None
    return value, signed or said or "CNY"
