"""A quote's words typed without their keys, as people ask for one (`quote 4090 每天4小时14天`, `报价 A100 8卡 包月`,
`gpu-advise quote H100 4x14`): the GPU, its cards or slice, the currency, the schedule or the GPU-hours, each as its
key would give it. Here, apart from the chat's quote, so the terminal reads them the same without the chats."""

from __future__ import annotations

import re

from bot.fields.metering import provider_id, provider_names_pattern
from bot.fields.rentals import CARDS_SAID, cards_joined, slice_said
from bot.fields.word_runs import longest_reading
from bot.text.chinese_names import CURRENCY_WORDS
from pricing.fx import ECB_CURRENCIES
from rules.errors import ParseError
from rules.gpus import gpu_at, gpu_words, gpus_in, unknown_model
from rules.numbers import number_value
from rules.parsing import parse_cards, parse_rental_schedule
from rules.patterns import lazy

BARE_KEYS = {
    "gpu": "gpu",
    "schedule": "hours",
    "gpu_hours": "gpu_hours",
    "cards": "cards",
    "share": "share",
    "currency": "currency",
    "provider": "provider",
}  # what a bare word stands for, as its key is typed
# the options a quote prices, named as people ask for one (`报价 A100 共享卡 每天4小时 14天`): each quote says them all
OPTION_WORDS = frozenset(
    ("共享卡", "共享", "shared", "独享", "独享卡", "独占", "独占卡", "dedicated", "整卡", "抢占式", "竞价", "spot")
)


# words around what is priced that price nothing: `how much would 8 H100s cost for a week`, `租 A100 一个月`
FILLERS = frozenset(("for", "over", "during", "about", "around", "roughly", "租", "租用", "用", "跑", "要", "想租"))


MOST_GPUS = 4  # GPUs side by side in one answer: `prices A100 H100`, `quote A100 H100 4x14`


def gpus_said(args: list[str]) -> tuple[list[str], list[str]]:
    """The GPUs words without a key name, in order, and the words without them (`A100 H100 跑一周`: both, and the
    run); a run quoted on each where two or more are named."""
    words, gpus = gpu_words([a for a in args if "=" not in a]), []
    while (at := gpu_at(words)) is not None:
        gpus += gpus_in(words[at[0] : at[1]])
        words = words[: at[0]] + words[at[1] :]
    if len(gpus) > 1:  # `A100 和 H100`, `A100 vs H100`: the words between them join them
        words = [w for w in words if w.lower() not in JOINING]
    if gpus:  # `A100 MI300X 4x14`: MI300X one of them, refused as an unknown GPU where it is read
        gpus += [w for w in words if unknown_model(w)]
        words = [w for w in words if not unknown_model(w)]
    return gpus, [a for a in args if "=" in a] + words


JOINING = frozenset(
    ("和", "与", "跟", "还是", "或", "或者", "对比", "比较", "vs", "vs.", "versus", "or", "and", "、", ",")
)


def bare_words(args: list[str]) -> tuple[list[str], dict[str, str]]:
    """Words typed without a key, as people ask for a quote (`quote 4090 每天4小时14天`, `quote A100 4x14 share=1/2`):
    a GPU the catalogue knows, then the rest as the schedule when it reads as one. The key=value tokens are left
    as they are, and so is anything bare that is neither (its error names it and the keys)."""
    pairs = [a for a in args if "=" in a]
    bare = gpu_words([a for a in args if "=" not in a])  # `8张H100跑一周`, `8 H100s`: the GPU a word of its own
    found: dict[str, str] = {}
    at = gpu_at(bare)  # "A100", "A100*8", "A100 40G"; a maker alone (`quote 海光 4x14`): refused asking which card
    if at is not None:  # else no GPU: the rest left for the schedule, or refused naming the keys
        found["gpu"], bare = " ".join(bare[at[0] : at[1]]), bare[: at[0]] + bare[at[1] :]
    elif (unknown := next((w for w in bare if unknown_model(w)), None)) is not None:  # `quote MI300X 4x14`
        found["gpu"], bare = unknown, [w for w in bare if w != unknown]  # refused as an unknown GPU, naming the known
    bare = cards_joined(bare)  # "8 cards", "8 张": one word
    for word in [w for w in bare if slice_said(w)][:1]:  # `quote A100 半卡 4x14`: share=
        found["share"] = slice_said(word) or ""
        bare.remove(word)
    for word in [w for w in bare if CARDS_SAID.search(w)][:1]:  # `quote H800 8卡 包月`: the cards, said bare
        found["cards"] = word  # 0卡 or 10万卡 too: refused as cards=, naming the range (request_of)
        bare.remove(word)
    for word in [w for w in bare if w.lower() in CURRENCY_WORDS or w.upper() in ECB_CURRENCIES][:1]:  # 美元, USD
        found["currency"] = word
        bare.remove(word)
    provider, bare = provider_in(bare)  # `runpod`, `on lambda`, `在autodl上`: provider=, refused as a word before
    if provider is not None:
        found["provider"] = provider
    bare = [w for w in bare if w.lower() not in OPTION_WORDS | FILLERS]  # every quote prices each option
    # `每天4小时 14天`, `一个月` (rented for it); else refused naming the word, the keys
    schedule = longest_reading(bare, parse_rental_schedule)
    if schedule is not None:
        start, end = schedule
        found["schedule"], bare = " ".join(bare[start:end]), bare[:start] + bare[end:]
    total = _GPU_HOURS.fullmatch(" ".join(bare).strip().lower())
    if total is not None:  # `quote H100 100 gpu hours`, `100卡时`: the terminal's --gpu-hours
        found["gpu_hours"], bare = total["n"], []
    elif (run := _run_gpu_hours(" ".join(bare).strip().lower(), found.get("cards"))) is not None:
        found["gpu_hours"], bare = run, []
    return pairs + bare, found


_GPU_HOURS = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?:gpu[- ]?hours?|gpu[- ]?hrs?|gpu[- ]?h|卡时|卡小时|gpu ?小时|机时)")
# one run of so many hours (`quote H100 10h`, `跑10个小时`, `ten hours`: refused before), on every card asked for
_RUN_HOURS = re.compile(
    r"(?:连续)?(?:跑|用|租)?\s*(?P<n>\d+(?:\.\d+)?|[一二两三四五六七八九十百]+|[a-z]+)\s*(?:个)?\s*"
    r"(?:h|hrs?|hours?|小时|钟头)"
)


_ON = frozenset(("on", "at", "from", "via", "在", "用"))  # before a provider: `on runpod`, `在 autodl 上`
_AFTER = ("平台上", "平台", "上")  # after one: `在 autodl 上`, `在autodl平台上跑一周`


_PROVIDER_GLUED = lazy(rf"在?(?P<name>{provider_names_pattern('a-z0-9')})(?:平台)?上?")  # compiled once, when asked


def provider_in(bare: list[str]) -> tuple[str | None, list[str]]:
    """The provider the words name (one the bot knows by name: bot/fields/metering.py PROVIDER_NAMES), even glued
    (`在阿里云上跑一周`), and the words without it and the little words around it (`on`, `在 … 上`); None and the words
    where none is named."""
    for n, word in enumerate(bare):
        found = _PROVIDER_GLUED.search(word.lower())
        if found is None:
            continue
        start = n - 1 if n and bare[n - 1].lower() in _ON and found.start() == 0 else n
        after = bare[n + 1 :]
        if after and found.end() == len(word) and after[0].startswith(_AFTER):  # `上`, `上跑三天`
            rest = next(after[0][len(a) :] for a in _AFTER if after[0].startswith(a))
            after = [rest, *after[1:]] if rest else after[1:]
        kept = [piece for piece in (word[: found.start()], word[found.end() :]) if piece]
        return provider_id(found["name"]), bare[:start] + kept + after
    return None, bare


def _run_gpu_hours(said: str, cards: str | None) -> str | None:
    """The GPU-hours of one run of so many hours (`said`) on the cards asked for (`quote A100 8卡 10h`: 80), as
    gpu_hours= takes them; None where `said` is no run of hours (cards not read are refused as cards= after)."""
    run = _RUN_HOURS.fullmatch(said)
    try:
        hours = number_value(run["n"]) if run is not None else None
    except ValueError:  # `abc hours`: left to be refused, named
        return None
    try:
        count = parse_cards(cards) if cards is not None else 1
    except ParseError:
        count = 1
    return f"{hours * count:g}" if hours is not None else None
