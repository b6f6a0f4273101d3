"""What `track` is told without keys, as people type it: `登记 训练机 A800 8卡 每小时60元 项目=llm` was refused
asking for key=value at "A800". The words before the first key=value are read here, each as what it can only be:

- an instance's GPU the catalogue knows (`A800`, `A100 80G`, `8卡A100`), its cards (`8卡`, `八张`, `8 cards`), a
  slice (`半卡`, `1/2卡`), its provider (`autodl`, `阿里云`), how it is billed (`包月`, `按量`) and whether a stop
  stops the meter (`关机不计费`); then the longest run of the words left that reads as its price (`每小时 60元`);
- a storage item's size with its unit (`500G`, `2T`), then the longest run that reads as its price a GB-month.

A word read as nothing is refused naming itself, what is read and the keys; nothing is kept. The keys have Chinese
names as well (`卡型=`, `价格=`, `项目=`, `负责人=` ...), as quote's have."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import partial

from bot.fields.metering import ALIASES, PROVIDER_NAMES, STOP_WORDS
from bot.fields.rentals import (
    CARDS_SAID,
    FieldError,
    cards_joined,
    price_currency,
    read_price,
    read_price_gb_month,
    slice_said,
)
from bot.fields.word_runs import longest_reading
from bot.text import Lang, t
from bot.text.errors import parse_error_text
from rules.errors import ParseError
from rules.gpus import counted_gpu, gpu_at, gpu_words
from rules.parsing import parse_cards
from rules.patterns import lazy
from rules.storage_amounts import parse_size_gb

INSTANCE_KEYS = {k: k for k in ("gpu", "price", "cards", "share", "project", "owner", "currency", "started")}
INSTANCE_KEYS |= {k: k for k in ("billing", "stop_billing", "provider")}
INSTANCE_KEYS["stop-billing"] = "stop_billing"
STORAGE_KEYS = {k: k for k in ("size", "price", "instance", "project", "owner", "currency", "created")}
_BOTH_ZH = {"项目": "project", "负责人": "owner", "所有者": "owner", "归属": "owner", "币种": "currency"}
INSTANCE_KEYS |= _BOTH_ZH | {"卡型": "gpu", "显卡": "gpu", "型号": "gpu", "价格": "price", "单价": "price"}
INSTANCE_KEYS |= {"租金": "price", "卡数": "cards", "份额": "share", "开始": "started", "起租": "started"}
INSTANCE_KEYS |= {"计费": "billing", "计费方式": "billing", "关机计费": "stop_billing", "平台": "provider"}
INSTANCE_KEYS |= {"供应商": "provider"}
STORAGE_KEYS |= _BOTH_ZH | {"大小": "size", "容量": "size", "价格": "price", "单价": "price", "实例": "instance"}
STORAGE_KEYS |= {"挂载": "instance", "创建": "created"}

_BILLING = frozenset(word for word in ALIASES if not word.isascii())  # 包月, 按量; "hourly" may be a price's word
_MODEL_LIKE = lazy(r"[a-z]{1,4}-?\d{2,4}[a-z0-9-]*", re.IGNORECASE)  # A900, RTX5090, MI300X: not 60/h


def _take(words: list[str], found: dict[str, str], field: str, test: Callable[[str], object]) -> None:
    """The first of `words` that `test` passes, taken out of them as `field`."""
    at = next((i for i, word in enumerate(words) if test(word)), None)
    if at is not None:
        found[field] = words.pop(at)


def instance_words(words: list[str], lang: Lang, unread: str = "error.track.words_unread") -> dict[str, str]:
    """An instance's fields from `words` typed without keys, as its keys would give them; FieldError with `unread`
    (the chat's message, or the terminal's) naming a word read as nothing."""
    # `2 H100s`, `8张H100`: the card a word of its own, its count with it (`2 H100` was "'2' is not a GPU")
    words, found = cards_joined(gpu_words([w for w in map(_unlabelled, words) if w])), dict[str, str]()
    at = gpu_at(words)
    if at is not None:
        found["gpu"] = " ".join(words[at[0] : at[1]])
        del words[at[0] : at[1]]
    else:  # `A900`: a card's name not in the catalogue, refused as gpu= is (naming the known ones)
        _take(words, found, "gpu", _MODEL_LIKE.fullmatch)
    _take(words, found, "share", slice_said)
    if "share" in found:  # 半卡, 1/2卡: the slice as share= takes it
        found["share"] = slice_said(found["share"]) or ""
    _take(words, found, "cards", CARDS_SAID.search)
    _take(words, found, "provider", lambda word: word.lower() in PROVIDER_NAMES)
    _take(words, found, "billing", lambda word: word in _BILLING)
    _take(words, found, "stop_billing", lambda word: word in STOP_WORDS)
    words = _per_billed(words, found)  # `包月 12000`: the month's price, as `billing NAME 包月 12000` reads it
    joined = " ".join(words)  # `$2 per GPU`: the words of a card's price together
    each = _CARD_HOUR.sub("/小时", _PER_CARD.sub("", joined))  # 每卡每小时7.5元: a card's price, 8 of it the machine's
    left = each.split() if each != joined else words
    try:
        said = _priced(left, found, read_price, unread, INSTANCE_KEYS, lang)
    except FieldError:
        amount = next((word for word in left if _money_alone(word)), None)
        if amount is not None:  # `$2`, `7.5元`: money without its period, asked for it rather than "read as nothing"
            raise FieldError("price", t("error.track.price_period", lang, price=amount)) from None
        raise
    if each != joined and "price" in said:
        count = said.get("cards") or str(counted_gpu(said.get("gpu") or "")[1] or "")  # A800*8
        said["price"] = _whole_machine(said["price"], count or None)
    return said


_PERIOD_OF = {"month": "/月", "day": "/天"}  # how a billing basis says its price's period


def _per_billed(words: list[str], found: dict[str, str]) -> list[str]:
    """An amount alone after 包月 or 包天 (`登记 训练机 A800 8卡 包月 12000`, `包月 1.2万`) as that period's price; the
    words as they are otherwise. It was refused as a word read as nothing."""
    period = _PERIOD_OF.get(ALIASES.get(found.get("billing", ""), ""))
    if period is None or len(words) != 1 or not _MONEY.fullmatch(unicodedata.normalize("NFKC", words[0])):
        return words
    return [words[0] + period]


# a price's label said before it (`单价 12元每小时`, `价格：每小时60元`, `rate $2/h`): read as a word of its own before
_PRICE_LABEL = lazy(r"^(?:单价|价格|租金|价钱|费用|price|rate)\s*(?:[:：]|是|为)?", re.IGNORECASE)


def _unlabelled(word: str) -> str:
    return _PRICE_LABEL.sub("", word)


# a price said for one card of the machine (每卡每小时7.5元, 单卡7.5元/小时, 7.5元/卡/时, $2 per GPU, $2.5/h each)
_PER_CARD = lazy(
    r"每张卡|每张|每卡|单卡|一张卡|每块卡|/\s*卡(?=\s*/)|\s*\bper (?:card|gpu)s?\b|/\s*gpu\b|\s*\beach\b", re.IGNORECASE
)
_CARD_HOUR = lazy(r"/?\s*卡(?:小)?时")  # 7.5元/卡时, 7.5/卡小时: a card-hour


_MONEY = lazy(r"[$¥€£]?\d+(?:\.\d+)?(?:万|千|k)?(?:元|块|块钱|美元|美金|人民币|usd|cny|rmb)?", re.IGNORECASE)


def _money_alone(word: str) -> bool:
    """An amount with its currency and nothing else (`$2`, `7.5元`, `¥400`): a price whose period is missing."""
    return price_currency(word) is not None and bool(_MONEY.fullmatch(unicodedata.normalize("NFKC", word)))


def _whole_machine(price: str, cards: str | None) -> str:
    """A card's price as the whole machine's (an instance's price is always its whole price), in the currency it
    said; as typed where it does not read (its own refusal says why)."""
    try:
        amount, unit = read_price(price)
        count = parse_cards(cards) if cards else 1
    except (ParseError, ValueError):
        return price
    currency = price_currency(price)
    return f"{amount * count:g}{f' {currency}' if currency else ''}/{unit}"


_SIZE_SAID = lazy(r"^\d+(?:\.\d+)?\s*(?:g|gb|gib|t|tb|tib)$", re.IGNORECASE)


def storage_words(words: list[str], lang: Lang, unread: str = "error.track.storage_words_unread") -> dict[str, str]:
    """A storage item's size (with its unit: a bare figure could be either) and price from `words`; FieldError with
    `unread` (the chat's message, or the terminal's) naming a word read as nothing."""
    words, found = list(words), dict[str, str]()
    _take(words, found, "size", _SIZE_SAID.fullmatch)
    size = parse_size_gb(found["size"]) if "size" in found else None  # `1T 每月500元`: the disk's month
    read = partial(read_price_gb_month, size_gb=size)
    try:
        return _priced(words, found, read, unread, STORAGE_KEYS, lang)
    except FieldError:
        try:  # `100G 每月2元`: a GB's dear month or the disk's cheap one, asked which, not "read as nothing"
            read(" ".join(words))
        except ParseError as exc:
            if exc.problem == "storage_price_per_gb":
                raise FieldError("price", f"`price`: {parse_error_text(exc, lang, where='chat')}") from None
        raise


def _priced(
    words: list[str],
    found: dict[str, str],
    read: Callable[[str], object],
    unread: str,
    keys: dict[str, str],
    lang: Lang,
) -> dict[str, str]:
    """`found` with the price: the longest run of the words left that `read` reads; a word still left is refused."""
    run = longest_reading(words, read)
    if run is not None:
        found["price"] = " ".join(words[run[0] : run[1]])
        del words[run[0] : run[1]]
    if words:
        raise FieldError("words", _unread(unread, words, found, keys, lang))
    return found


def _unread(message: str, words: list[str], found: dict[str, str], keys: dict[str, str], lang: Lang) -> str:
    read = ", ".join(f"{field}={text}" for field, text in found.items())
    return t(
        message,
        lang,
        words=" ".join(words)[:60],
        read=read or "—",
        keys=", ".join(sorted(key for key in keys if key.isascii())),
    )
