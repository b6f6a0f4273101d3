"""A question of a GPU's price, or of a run on it, said in words (`A100多少钱`, `A100 vs H100`, `H100 跑一周`,
`I need 4 H100s for two weeks`, `租一张A100一个月大概多少钱`): its cached prices, its quote, or several side by side;
a model the catalogue does not know, refused naming the known ones. Part of free_words (bot/app/free_words.py)."""

from __future__ import annotations

import re

from bot.fields.metering import provider_id, provider_names_pattern
from bot.fields.quote_words import bare_words, gpus_said, provider_in
from bot.fields.word_runs import longest_reading
from rules.gpus import gpu_at, gpu_words, gpus_in, unknown_model
from rules.parsing import parse_rental_schedule
from rules.patterns import lazy

_NEED = lazy(  # a GPU and a run wanted (I need 4 H100s for two weeks, 我们需要8张A100跑一个月): its quote
    r"^(?:i|we)(?:'d| would)? (?:need|want|like|would like|am looking for|are looking for)\s+(?:to rent\s+)?"
    r"(?P<rest>.+)$"
    r"|^(?:我|我们)?(?:需要|想要|要|想租|需要租|打算租)\s*(?P<rest_zh>.+)$",
    re.IGNORECASE,
)
_PRICE = lazy(
    r"多少钱|什么价|价格|价钱|贵不贵|最便宜|最实惠|(?:大概|大约|差不多|一共|总共)(?:要|得)?多少(?!显存|张|卡|GB?\b)"
    r"|how much|price|cost|cheapest",
    re.IGNORECASE,
)
# a provider named in a price question (AutoDL上4090多少钱, 阿里云A100多少钱一小时)
_PROVIDER = lazy(provider_names_pattern(), re.IGNORECASE)
_CHEAPEST = lazy(r"最便宜|最实惠|cheapest", re.IGNORECASE)
_CODE_FIRST = lazy(r"[A-Za-z][A-Za-z0-9-]*\d[A-Za-z0-9]*")  # a model code at a word's start, glued to Chinese
_RENT_FIRST = lazy(r"^(?:我|我们)?(?:想|要|打算)?租(?:用)?")  # 租一张A100一个月大概多少钱: the card and the run
_QUESTION = lazy(  # the question's words around what is priced
    r"要多少钱|多少钱|什么价|贵不贵|要多少|得多少|大概|大约|差不多|一共|总共|多少|分别|各自|[?？吗呢啊]"
    r"|(?<![a-z0-9])(?:how much|what's|what|is|an|the|would|it|cost|each|respectively)(?![a-z0-9])",
    re.IGNORECASE,
)
_PRICE_WORDS = lazy(
    r"多少钱|什么价|价格|价钱|贵不贵|一天|一小时|每小时|每天|一个月|包月|的|呢|啊|吗|？|\?"
    r"|(?<![a-z0-9])(?:how much|price|cost|is|an?|the|per|hour|day|month)(?![a-z0-9])",
    re.IGNORECASE,
)


def _run_said(words: list[str]) -> bool:
    """Whether `words` say a run to price with their GPU (`每天4小时 两周`, `跑10个小时`), as the quote reads them."""
    words = provider_in(words)[1]  # `H100 在 runpod 上跑三天`: the run beside the provider
    return longest_reading(words, parse_rental_schedule) is not None or "gpu_hours" in bare_words(words)[1]


def price_asked(said: str) -> tuple[str, list[str]] | None:
    """A question of a GPU's price, or of a run on it: its prices, its quote, or several side by side. A model code the
    catalogue does not know (`MI300X多少钱`, `A100和MI300X跑一周分别多少钱`) is its prices, refused naming the known
    ones: it was left out unsaid, or the question unknown."""
    named = _PRICE_WORDS.compiled.sub(" ", _QUESTION.compiled.sub(" ", _WHICH.compiled.sub(" ", said))).split()
    codes = [m.group(0) for word in gpu_words(named) for m in [_CODE_FIRST.match(word)] if m]  # MI300X跑一周: MI300X
    unknown = next((code for code in codes if unknown_model(code)), None)
    alone = unknown is not None and codes[0] == unknown and _run_said(gpu_words(named)[1:])  # B200 跑一周
    if unknown is not None and (_PRICE.search(said) or _WHICH.search(said) or alone):
        return "prices", [unknown]
    if (_PRICE.search(said) or _WHICH.search(said)) and len(several := _gpus_in(said)) > 1:
        asked = gpu_words(_QUESTION.compiled.sub(" ", _WHICH.compiled.sub(" ", said)).split())
        if _run_said(gpus_said(asked)[1]):  # A100和H100跑一周分别多少钱: the run quoted on each
            return "quote", asked
        return "prices", several  # A100和H100哪个划算, A100 vs H100: side by side
    if not _PRICE.search(said) and (first := _gpu_first(said)) is not None:  # `A100`, `H100 跑一周`
        return first
    if (gpu := gpu_in(said)) is not None and _WHICH.search(said) and len(set(_providers_in(said))) > 1:
        return "prices", [gpu, "cheapest"]  # is H100 cheaper on runpod or lambda, H100 阿里云和autodl哪家便宜
    if _PRICE.search(said):
        gpu = gpu_in(said)
        # `A100 每天4小时 两周 多少钱`, `租一张A100一个月多少钱`: the run priced
        asked = gpu_words(_QUESTION.compiled.sub(" ", _RENT_FIRST.compiled.sub("", said)).split())
        while asked and asked[0].lower() in ("for", "of", "on"):  # "how much for an H100 4x14"
            asked.pop(0)
        if gpu is not None and len(asked) > 1 and _run_said(asked):
            return "quote", asked
        if gpu is not None:  # 最便宜的4090在哪: the cheapest first; AutoDL上4090多少钱: that provider's
            named = [m.group(0) for m in [_PROVIDER.search(said)] if m is not None]
            return "prices", [gpu, *named, *(["cheapest"] if _CHEAPEST.search(said) else [])]
    if (need := _NEED.match(said)) is not None and gpu_in(said) is not None:  # I need 4 H100s for two weeks
        asked = gpu_words((need["rest"] or need["rest_zh"]).split())
        if _run_said(gpus_said(asked)[1]):
            return "quote", asked
    return None


def _gpu_first(said: str) -> tuple[str, list[str]] | None:
    """A message that starts with a GPU: alone, its prices (`A100`, `A100 40G`); with a run after it, that run's
    quote (`H100 跑一周`, `8卡A100 包月`); None otherwise (`A100 哈哈` stays unknown)."""
    words = gpu_words(said.split())
    at = gpu_at(words)
    gpu = gpu_in(said)
    if at is None or at[0] != 0 or gpu is None:
        return None
    after = words[at[1] :]
    if not after:
        return "prices", [gpu]
    return ("quote", words) if _run_said(after) else None


def _providers_in(text: str) -> list[str]:
    """The providers a question names, as their ids (阿里云: aliyun), in the order said."""
    return [provider_id(m.group(0)) for m in _PROVIDER.finditer(text)]


def gpu_in(text: str) -> str | None:
    """The one GPU a price question names (`A100多少钱`, `4090 价格`, `how much is an H100 per hour`)."""
    found = _gpus_in(text)
    return found[0] if len(found) == 1 else None


def _gpus_in(text: str) -> list[str]:
    """The GPUs a question names, in the order said (`A100和H100哪个划算`: A100-80GB, H100-80GB)."""
    return gpus_in(_PRICE_WORDS.compiled.sub(" ", _WHICH.compiled.sub(" ", text)).split())  # "A100 40G": 40 GB


# two cards weighed against each other, and the words between them (A100和H100哪个划算, A100 vs H100, A100 or H100)
_WHICH = lazy(
    r"哪个|哪一个|哪款|哪张|哪种|更|划算|便宜|还是|对比|比较|相比|和|与|跟|或者?|[,，、]"
    r"|(?<![a-z0-9])(?:vs\.?|versus|or|and|which|cheaper|better|compared?(?: to| with)?)(?![a-z0-9])",
    re.IGNORECASE,
)
