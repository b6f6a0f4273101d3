"""One parser per question, for answers typed in the terminal or in a Slack thread.

Every parser takes arbitrary text and either returns an answer or raises ParseError, whose
`accepted` lists the forms the question takes. Nothing else escapes (property-tested).
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Mapping
from typing import TypeVar

from rules import colloquial as said
from rules.errors import ParseError, UnknownGPU
from rules.gpus import canonical_gpu, gpus_in, known_gpu
from rules.memory_amounts import read_memory_amount, stripped
from rules.numbers import FIGURES_APART, NUMBER, money_value, normalise, number_value
from rules.patterns import Lazy, has_han, lazy
from rules.profile import (
    DurationAnswer,
    DurationBucket,
    FrequencyAnswer,
    FrequencyLevel,
    MemoryAnswer,
    Phase,
    Schedule,
    Sharing,
    Workload,
)
from rules.quantity import Amount, number, read_amount
from rules.spoken import spoken

ACCEPTED = {
    "duration": ["45 min", "3h", "3.5 hours", "2 days", "3 weeks", "半小时", "两小时", "10小时", "3天",
        "short/medium/long", "短/中/长", "<1h", "1-8h", ">8h"],
    "yes_no": ["yes/no", "y/n", "true/false", "是/否", "能/不能", "可以/不可以", "需要/不需要"],
    "model_parallel": ["yes/no", "y/n", "需要/不需要", "是/否", "要/不要", "4 cards", "需要8卡"],
    "can_resume": ["yes/no", "y/n", "能/不能", "可以/不可以", "是/否"],
    "checkpointing": ["yes/no", "y/n", "有/没有", "是/否"],
    "memory": ["yes/no", "70 GB of 80", "85%", "7B LoRA", "13B 全参微调", "70/80", "70GB", "70G/80G",
        "72B QLoRA", "是/否", "7B serve", "qwen2.5-7b 8k x 16", "Llama-3.1-70B int4 4k×32"],
    "frequency": ["daily", "every day", "3 times a week", "weekly", "high/low", "每天", "每周两次",
        "高频/低频"],
    "workload": [w.value for w in Workload] + ["预训练", "全参微调", "超参搜索", "推理", "调试"],
    "phase": ["exploration", "stable", "deployment", "探索", "稳定", "部署"],
    "model_size": ["7b", "13B", "72 billion", "70亿"],
    "qps": ["300", "300 qps", "300/s"],
    "p99": ["40ms", "40", "0.04s"],
    "schedule": ["4x14", "4h x 14d", "4 hours a day for 14 days", "每天4小时14天"],
    "cards": ["1", "2", "8"],
    "yearly_gpu_hours": ["1500", "3000h"],
    "serving_hours": ["24/7", "always", "8h a day", "12 hours", "一直运行", "每天8小时"],
    "price": ["400/day", "14/h", "11500/month", "400/天", "14/小时", "11500/月"],
}  # fmt: skip

_MAX_TEXT = 200  # answers longer than this are not answers
# One set of bounds, checked where an answer is read, so nothing past them reaches a quote.
MIN_RUN_HOURS = 1 / 60  # a run of at least a minute
MIN_DAYS, MAX_DAYS = 1, 3660  # a schedule of 1 day to about ten years (the quote's own limit)


def _prepare(question: str, text: object) -> str:
    if not isinstance(text, str):
        raise ParseError(question, repr(text), accepted_for(question), "expected_text")
    norm = normalise(text)
    if not norm:
        raise ParseError(question, text, accepted_for(question), "empty")
    if re.match(r"^-\s*\d", norm):
        raise ParseError(question, text, accepted_for(question), "negative")
    if len(norm) > _MAX_TEXT:
        raise ParseError(question, text, accepted_for(question), "too_long")
    if said.unsure(norm):
        raise ParseError(question, text, accepted_for(question), "unsure", {"nearest": _nearest(question)})
    return norm if question in _NAMES else spoken(norm)


def _nearest(question: str) -> str:
    """The answers to offer someone who is not sure: the question's buttons where it has them."""
    from rules.questions import BY_KEY

    ask = BY_KEY.get(_ACCEPTED_ALIASES.get(question, question)) or BY_KEY.get(question)
    options = list(ask.options) if ask is not None and ask.options else accepted_for(question)[:3]
    return " / ".join(options)


_NAMES = {"workload", "phase", "gpu", "sharing"}  # answers that name a thing: no numbers read out of words

_ACCEPTED_ALIASES = {"p99_ms": "p99", "model_size_b": "model_size"}


def accepted_for(question: str) -> list[str]:
    """The accepted forms of a question (or answer field), listed in its ParseError."""
    return ACCEPTED[_ACCEPTED_ALIASES.get(question, question)]


# --- duration ----------------------------------------------------------------------------------

_UNIT_HOURS = [
    (r"minutes|minute|mins|min|分钟|分|m", 1 / 60),
    (r"hours|hour|hrs|hr|小时|钟头|h", 1.0),
    (r"days|day|天|日|d", 24.0),
    (r"weeks|week|wks|wk|个星期|星期|个礼拜|礼拜|周|w", 24.0 * 7),
    (r"months|month|个月|月|mo", 24.0 * 30),  # a month is 30 days, as a quote counts it
]
_UNIT = "|".join(f"(?P<u{i}>{pattern})" for i, (pattern, _) in enumerate(_UNIT_HOURS))
_PART = lazy(rf"(?P<num>{NUMBER})\s*(?:个)?(?P<half>半)?\s*(?:{_UNIT})(?![a-z])")
_JOINERS = lazy(r"\b(?:and|a|an|run|runs|per|each)\b|和|又|零|,|，|\s")
_BUCKETS = {"short": DurationBucket.SHORT, "短": DurationBucket.SHORT, "<1h": DurationBucket.SHORT,
            "medium": DurationBucket.MEDIUM, "中": DurationBucket.MEDIUM, "1-8h": DurationBucket.MEDIUM,
            "long": DurationBucket.LONG, "长": DurationBucket.LONG, ">8h": DurationBucket.LONG}  # fmt: skip
_DURATION_UNIT = "|".join(pattern for pattern, _ in _UNIT_HOURS)
LONG_RUN_LINE = 8.0  # the bundled policy's two_of_four.long_run_hours: where a stated interval must not straddle
_ONE = lazy(r"\b(?:an?|one)\s+(?=(?:minute|hour|day|week)s?\b)")  # "just over a day": one day
_HALF = lazy(r"^半(?=\s*个?(?:小时|钟头|天|日|周|星期))")  # "半小时以内": 0.5 h


# every hour of the days said beside it ("7天24小时不停", "一周七天每天24小时"): how they are run, not more of them
_AROUND_THE_CLOCK = lazy(r"(?:每天|每日|一天|1天)?\s*24\s*个?\s*(?:小时|h)\s*(?:不停|不间断|连续|都在跑)?")


def _sum_parts(text: str) -> float | None:
    """A length said in parts ("1h30m", "2 days 3 hours", "a week"): their sum in hours. A part that is no rest of
    the one before ("一周7天", "3天72小时") says the length again, not more of it ("一周7天" was two weeks); one that
    is neither is no one length (None). 24 hours beside days is every hour of them ("7天24小时不停": a week)."""
    bare = _AROUND_THE_CLOCK.sub(" ", text)
    text = bare if bare.strip() and _PART.search(bare) else text
    total, end, before = 0.0, 0, None
    leftovers = []
    for match in _PART.finditer(text):
        leftovers.append(text[end : match.start()])
        end = match.end()
        unit = _UNIT_HOURS[next(i for i in range(len(_UNIT_HOURS)) if match.group(f"u{i}"))][1]
        part = (number_value(match.group("num")) + (0.5 if match.group("half") else 0.0)) * unit
        if before is not None and unit <= before and part >= before:  # not what is left of the part before
            if not math.isclose(part, total):
                return None
            continue
        total, before = total + part, unit
    leftovers.append(text[end:])
    if end == 0 or _JOINERS.sub("", "".join(leftovers)):
        return None
    return total


def _unit_hours(unit: str | None) -> float:
    return next((hours for pattern, hours in _UNIT_HOURS if re.fullmatch(pattern, unit or "")), 1.0)


def parse_duration(text: str) -> DurationAnswer:
    """A single run's length: '45 min', '3.5 hours', '两个半小时', 'long', '>8h', '8个多小时' (more than 8 h) ...;
    said in two clauses, a guess and its second ("about a week, maybe 10 days") is the upper end, and where one
    clause alone is a length ("until it converges, usually 2 days", "等收敛，一般两天") it is the answer."""
    clauses = re.split(r"[,，]\s*", text.strip(), maxsplit=1) if isinstance(text, str) else []
    read: list[DurationAnswer] = []
    if len(clauses) == 2 and all(c.strip() for c in clauses):
        for clause in clauses:
            with contextlib.suppress(ParseError):
                read.append(_duration(clause))
        if len(read) == 2 and all(r.hours is not None for r in read):  # a second guess, not more of the run
            return max(read, key=lambda r: r.hours or 0.0)  # the upper end, as a range reads
    try:
        return _duration(text)
    except ParseError:
        if len(read) == 1:
            return read[0]
        raise


def _duration(text: str) -> DurationAnswer:
    norm = _prepare("duration", text)
    clauses = re.split(r"[,，]\s*", norm, maxsplit=1)
    if len(clauses) == 2 and (said.overnight(clauses[0]) or said.most_of_a_day(clauses[0])):
        with contextlib.suppress(ParseError):  # "overnight, like 12 hours": the figure says how long
            return _duration(clauses[1])
    if said.overnight(norm):
        raise ParseError("duration", text, ACCEPTED["duration"], "ambiguous_overnight", {"suggestion": "10h"})
    if said.most_of_a_day(norm):  # "大半天", "all day": a working day or a whole one, either side of the 8 h line
        day: dict[str, str | float] = {"said": text.strip(), "line": f"{LONG_RUN_LINE:g} h"}
        raise ParseError("duration", text, ACCEPTED["duration"], "ambiguous_bound", day)
    norm = said.duration_words(norm)
    compact = norm.replace(" ", "")
    for key in (norm, compact, compact.removesuffix("ours").removesuffix("our")):
        if key in _BUCKETS:
            return DurationAnswer(bucket=_BUCKETS[key])
    norm = _HALF.sub("0.5", _ONE.sub("1 ", norm.replace("half an hour", "0.5h").replace("half a day", "0.5d")))
    read = read_amount(norm, _DURATION_UNIT)
    if read is not None and read[1] is not None:  # one figure and its unit, with its bound or approximation
        amount = read[0].scaled(_unit_hours(read[1]))
        if amount.side(LONG_RUN_LINE) is None:  # "6-10 hours", "不到10小时": a long run or not?
            params: dict[str, str | float] = {"said": text.strip(), "line": f"{LONG_RUN_LINE:g} h"}
            raise ParseError("duration", text, ACCEPTED["duration"], "ambiguous_bound", params)
        above = amount.above_only or amount.low_open  # "more than 8 h", "at least 20 h", "8个多小时"
        hours = amount.low if above else amount.planned
    else:  # a length said in parts
        hours = _sum_parts(norm)
        above = False
    if hours is None:
        raise ParseError("duration", text, ACCEPTED["duration"])
    if hours <= 0:
        raise ParseError("duration", text, ACCEPTED["duration"], "duration_not_positive")
    if hours < MIN_RUN_HOURS:
        raise ParseError("duration", text, ACCEPTED["duration"], "duration_under_a_minute")
    if hours > 24 * 366:
        raise ParseError("duration", text, ACCEPTED["duration"], "duration_over_a_year")
    return DurationAnswer(hours=round(hours, 6), above=above)


# --- yes / no ----------------------------------------------------------------------------------

_YES = {"yes", "y", "yeah", "yep", "yup", "true", "sure", "ok", "okay", "1", "是", "是的", "对", "对的", "能", "可以",
        "需要", "要", "有", "会", "行", "嗯", "没问题", "当然", "当然可以", "当然能", "应该可以", "应该能", "可以的",
        "能的", "of course", "definitely", "no problem", "not a problem", "no worries", "no doubt"}  # fmt: skip
_NO = {"no", "n", "nope", "nah", "false", "0", "not really", "否", "不", "不是", "不能", "不可以", "不需要", "不要",
       "不用", "没有", "无", "不会", "不行", "没", "不太能", "不太行", "不太可以", "恐怕不行", "不太需要", "应该不能",
       "应该不行", "probably not"}  # fmt: skip
_EN_FIRST = lazy(r"^([a-z]+)\b")
_CN_PREFIX_NO = ("不能", "不可以", "不需要", "不要", "不用", "不会", "不是", "不行", "没有", "否")
_CN_PREFIX_YES = ("可以", "需要", "能", "是", "会", "要")


def read_yes_no(norm: str) -> bool | None:
    """True/False for a recognised yes or no, None otherwise. `norm` is normalised text."""
    if norm in _NO:
        return False
    if norm in _YES:
        return True
    if norm.startswith(("no problem", "not a problem", "no worries")):  # a yes that begins with "no"
        return True
    first = _EN_FIRST.match(norm)
    if first and first.group(1) in _NO - {"0"}:
        return False
    if first and first.group(1) in _YES - {"1"} and first.group(1) not in ("ok", "okay", "sure"):
        return True
    for prefix, value in [(p, False) for p in _CN_PREFIX_NO] + [(p, True) for p in _CN_PREFIX_YES]:
        if norm.startswith(prefix) and re.match(r"^[\s,，.。;；!！]", norm[len(prefix) :] or " "):
            return value
    return None


_MP_CARDS = lazy(r"(?<![\d.])(?P<n>\d{1,4})\s*(?:x\s*)?(?:cards?|gpus?|张卡|张|卡|块卡|块)")


def _cards_named(norm: str) -> int | None:
    found = _MP_CARDS.search(norm)
    count = int(found.group("n")) if found else (int(norm) if norm.isdigit() else said.tensor_parallel_cards(norm))
    return count


def model_parallel_cards(text: str) -> int | None:
    """The card count a model-parallelism answer names ("yes, 4 cards", "需要，八卡", "4", "tp=4"), 2 or more;
    else None (also for data parallelism on several cards: that is not model parallelism)."""
    norm = spoken(normalise(text)) if isinstance(text, str) else ""
    if said.model_parallel_words(norm) is False:
        return None
    count = _cards_named(norm)
    return count if count is not None and 2 <= count <= 1024 else None


def parse_model_parallel(text: str) -> bool:
    """Yes or no, or a card count of 2 or more ("4", "yes, 4 cards", "需要，8卡"): model parallelism needs 2+ cards.
    "只是数据并行", "data parallel only", "单卡就够" are a no: each card holds the whole model."""
    norm = _prepare("model_parallel", text)
    words = said.model_parallel_words(norm)
    if words is False:
        return False
    if words is True and (_cards_named(norm) or 0) < 2:  # "模型放不下一张卡": its "one card" is what it does not fit
        return True
    count = _cards_named(norm)
    if count is not None and 2 <= count <= 1024:
        if read_yes_no(norm) is False:
            raise ParseError("model_parallel", text, accepted_for("model_parallel"))  # "no, 4 cards": which?
        return True
    if count == 1:  # "1张卡", "one card"
        return False
    value = read_yes_no(norm)
    if value is None:
        value = words
    if norm.strip() in _ABLE:  # "没问题" says it can, not that the model must be split: asked
        raise ParseError("model_parallel", text, accepted_for("model_parallel"), "which_parallel")
    if value is None and _SEVERAL_CARDS.match(norm):  # several cards, but splitting the model or copying it?
        raise ParseError("model_parallel", text, accepted_for("model_parallel"), "which_parallel")
    if value is None:
        raise ParseError("model_parallel", text, accepted_for("model_parallel"))
    return value


# a yes that says something can be done, not that it must: on "does the model need splitting?" it answers nothing
_SO = lazy(r"^(?:so|then|hence|therefore|所以|那就|那|因此|总之)\s*")
_ABLE = frozenset(("没问题", "no problem", "可以", "当然可以", "可以的", "应该可以", "行", "没事"))
_SEVERAL_CARDS = lazy(
    r"^(?:要|需要|用)?\s*(?:多卡|多张卡|几张卡|多机多卡|多机|多节点|multi-?gpu|multi-?node|multiple (?:gpus|cards)"
    r"|several (?:gpus|cards)|deepspeed)$"
)


def parse_yes_no(text: str, question: str = "yes_no") -> bool:
    norm = _prepare(question, text)
    value = read_yes_no(norm)
    if value is None and question in ("can_resume", "checkpointing"):
        value = said.resume_words(norm)  # "每小时存一次checkpoint", "挂了要从头跑"
    if value is None and len(clauses := re.split(r"[,，;；]\s*", norm)) > 1:  # "if it dies we lose a day, so no"
        value = read_yes_no(_SO.sub("", clauses[-1]).strip())  # the verdict said last
    if value is None:
        raise ParseError(question, text, accepted_for(question) if question in ACCEPTED else ACCEPTED["yes_no"])
    return value


# --- memory ------------------------------------------------------------------------------------

_NUM = r"\d+(?:\.\d+)?"


def parse_memory(text: str) -> MemoryAnswer:
    """Memory peak against one card: 'yes', '70GB', '70 GB of 80', '70/80', '85%', '七十多G', '7B LoRA' ...; said in
    clauses (`显存应该挺紧的，估计要70G左右`), the one with a figure, else the verdict they agree on."""
    try:
        return _memory(text)
    except ParseError:
        clauses = [c for c in re.split(r"[,，;；]", text) if c.strip()] if isinstance(text, str) else []
        if len(clauses) < 2:
            raise
        read = []
        for clause in clauses:
            with contextlib.suppress(ParseError):
                read.append(_memory(clause))
        figures = [r for r in read if r.tight is None]
        verdicts = {r.tight for r in read if r.tight is not None}
        if len(figures) == 1 and len(read) == len(clauses):
            return figures[0]
        if not figures and len(verdicts) == 1 and len(read) == len(clauses):
            return read[0]
        raise


def _memory(text: str) -> MemoryAnswer:
    norm = _prepare("memory", text)
    yes_no = read_yes_no(norm)
    if yes_no is None:
        yes_no = said.memory_full(norm)  # "快满了", "plenty of room"
    if yes_no is not None:
        return MemoryAnswer(tight=yes_no)
    norm = _UNDER_HALF.sub("不到一半", norm)  # "一半都用不到": less than half, as 不到一半 reads
    figure = read_memory_amount("memory", text, norm, ACCEPTED["memory"])  # rules/memory_amounts.py
    if figure is not None:
        return figure
    words = _MODEL_WORD.sub(r"\g<unit> ", stripped(norm)).replace(",", " ").strip()  # "7b的模型, int4" -> "7b int4"
    words = re.sub(r"\s+", " ", words)
    model = _served(text, said.serving_words(words)) or _model_job(text, words)
    if model is not None:
        return model
    if re.fullmatch(_NUM, words.replace(" ", "")):
        raise ParseError("memory", text, ACCEPTED["memory"], "bare_number")
    size = _BARE_SIZE.fullmatch(words)
    if size is not None:  # "7B", "7B模型": trained or served? The answer decides the figure (120 GB or 16 GB)
        raise ParseError("memory", text, MODEL_JOB_FORMS, "which_model_job", {"size": f"{_billions(size):g}B"})
    raise ParseError("memory", text, ACCEPTED["memory"])


_MODEL_WORD = lazy(r"(?<=\d)\s*(?P<unit>b|亿)\s*(?:的)?\s*(?:模型|model|参数)(?:的)?")  # "7b的模型", "70亿参数"
MODEL_JOB_FORMS = ["7B LoRA", "7B 全参微调", "7B 推理", "7B int4"]


def served_by_name_alone(text: str, value: object) -> bool:
    """Whether a memory answer is a served model only because a bundled model was named (no serving word, no
    quantisation, no context × requests): what the kind of work answered may say otherwise."""
    return (
        isinstance(value, MemoryAnswer)
        and value.method is Workload.INFERENCE
        and value.context is None
        and value.quant is None
        and re.search(_SERVE_WORDS, _prepare("memory", text)) is None
    )


def with_workload(text: str, workload: Workload) -> str:
    """A bare model size answered on the memory question, said with the kind of work already answered: "7B" after
    "推理" is "7B inference" (its serving memory), after "LoRA" "7B lora" (its training estimate)."""
    return f"{text.strip()} {workload.value}"


_UNDER_HALF = lazy(r"^(?:(?:一半|半)都?用不到|用不到一半|一半不到)$")
_QUANTS = (
    dict.fromkeys(("bf16",), "bf16")
    | dict.fromkeys(("fp16",), "fp16")
    | dict.fromkeys(("fp8",), "fp8")
    | dict.fromkeys(("int8", "8bit"), "int8")
    | dict.fromkeys(("int4", "4bit", "awq", "gptq"), "int4")
)  # fmt: skip
_SERVE_WORDS = r"(?:serve|serving|served|inference|推理|部署|服务|在线服务)"
_SERVED = lazy(
    rf"^(?:(?P<size>{_NUM})\s*b|(?P<name>[a-z][a-z0-9.\-_ ]*?))"
    rf"(?:\s+(?P<quant>{'|'.join(_QUANTS)}))?"
    rf"(?:\s+(?P<ctx>{_NUM})\s*(?P<k>k)?\s*(?:tokens?)?\s*[x×*]\s*(?P<conc>\d+))?"
    rf"(?:\s+{_SERVE_WORDS})?$"
)


def _served(text: str, norm: str) -> MemoryAnswer | None:
    """A served model: 'qwen2.5-7b 8k x 16', 'Llama-3.1-70B int4 4k×32', '7B serve' (the model, optional
    quantisation, context x concurrent requests). A size alone needs a serving word; a bundled model's
    name is enough."""
    from rules.serving import find_model, nearest_model

    match = _SERVED.match(norm)
    if match is None:
        return None
    serving_word = re.search(rf"{_SERVE_WORDS}$", norm) is not None
    if match.group("name"):
        model = find_model(match.group("name"))
        if model is None:
            if serving_word or match.group("ctx"):  # said to be served, but not a model we know
                raise ParseError("memory", text, ACCEPTED["memory"], "unknown_model")
            return None
        size, name = model.params_b, model.name
    else:
        if not (serving_word or match.group("ctx") or match.group("quant")):
            return None
        size = float(match.group("size"))
        if not 0 < size <= 10_000:
            raise ParseError("memory", text, ACCEPTED["memory"], "size_not_positive")
        name = None
    context = concurrency = None
    if match.group("ctx"):
        tokens = float(match.group("ctx")) * (1024 if match.group("k") else 1)
        context, concurrency = round(tokens), int(match.group("conc"))
        if context < 1 or concurrency < 1:
            raise ParseError("memory", text, ACCEPTED["memory"], "serving_not_positive")
    quant = _QUANTS[match.group("quant")] if match.group("quant") else None
    return MemoryAnswer(
        model_size_b=size,
        method=Workload.INFERENCE,
        served_model=name or nearest_model(size).name,
        quant=quant,
        context=context,
        concurrency=concurrency,
    )


_SIZE = rf"(?P<size>{_NUM})\s*(?P<unit>b|bn|billion|亿)"
_NAME = r"(?:[a-z][a-z0-9.]*[-_ ]?)?"  # qwen2.5-, llama- ...
_BARE_SIZE = lazy(rf"(?:model\s*|模型\s*)?{_NAME}{_SIZE}")  # "7B", "qwen 7b", "70亿": a size said with no job
_MODEL_JOBS = [
    lazy(rf"^(?:model\s*|模型\s*)?{_NAME}{_SIZE}\s*(?:model|模型|参数)?\s*的?\s*(?P<method>.+)$"),
    lazy(rf"^(?P<method>.+?)\s+{_NAME}{_SIZE}(?:\s*(?:model|模型|参数))?$"),
    lazy(rf"^(?P<method>[^\x00-\x7f]+?)\s*{_SIZE}(?:\s*(?:model|模型|参数))?$"),  # "部署7B模型": Chinese, no space
]
_TRAINING = (Workload.PRETRAIN, Workload.FULL_FINETUNE, Workload.LORA, Workload.QLORA)


def _billions(match: re.Match[str]) -> float:
    """A model size matched by _SIZE, in billions of parameters (亿 is a tenth of one)."""
    return float(match.group("size")) / (10 if match.group("unit") == "亿" else 1)


def _model_job(text: str, norm: str) -> MemoryAnswer | None:
    """'7B LoRA', '13B 全参微调', 'qwen2.5-72b qlora', 'LoRA 7B': the model to estimate the peak from."""
    found = [m for m in (p.match(norm) for p in _MODEL_JOBS) if m]
    match = next((m for m in found if m.group("method").strip() in _WORKLOADS), None)
    which = next((m for m in found if m.group("method").strip().replace(" ", "") in _WHICH_TRAINING), None)
    if match is None and which is not None:  # "7B 微调": LoRA or full? The estimate is 16 GB or 120: asked
        said, problem = f"{_billions(which):g}B", _WHICH_TRAINING[which.group("method").strip().replace(" ", "")]
        forms = [f"{said} LoRA", f"{said} QLoRA", f"{said} 全参微调"]
        forms += [f"{said} 预训练"] if problem == "which_training" else []
        raise ParseError("memory", text, forms, problem, {"size": said})
    if match is None:
        return None
    method = _WORKLOADS[match.group("method").strip()]
    size = _billions(match)
    if method is Workload.INFERENCE:  # "7B inference": the served model, at the policy's defaults
        return _served(text, f"{size:g}b serve")
    if method not in _TRAINING:
        raise ParseError("memory", text, ACCEPTED["memory"], "model_method")
    if not 0 < size <= 10_000:
        raise ParseError("memory", text, ACCEPTED["memory"], "size_not_positive")
    return MemoryAnswer(model_size_b=size, method=method)


# --- frequency ---------------------------------------------------------------------------------

_LEVELS = {"high": FrequencyLevel.HIGH, "高": FrequencyLevel.HIGH, "高频": FrequencyLevel.HIGH,
           "frequent": FrequencyLevel.HIGH, "often": FrequencyLevel.HIGH, "频繁": FrequencyLevel.HIGH,
           "经常": FrequencyLevel.HIGH, "low": FrequencyLevel.LOW, "低": FrequencyLevel.LOW, "低频": FrequencyLevel.LOW,
           "rare": FrequencyLevel.LOW, "rarely": FrequencyLevel.LOW, "occasionally": FrequencyLevel.LOW,
           "偶尔": FrequencyLevel.LOW, "很少": FrequencyLevel.LOW, "once in a while": FrequencyLevel.LOW,
           "挺少": FrequencyLevel.LOW, "挺少的": FrequencyLevel.LOW, "比较少": FrequencyLevel.LOW,
           "不多": FrequencyLevel.LOW, "不常": FrequencyLevel.LOW, "不经常": FrequencyLevel.LOW,
           "不频繁": FrequencyLevel.LOW, "不太频繁": FrequencyLevel.LOW, "not often": FrequencyLevel.LOW,
           "every now and then": FrequencyLevel.LOW, "now and then": FrequencyLevel.LOW,
           "seldom": FrequencyLevel.LOW, "只跑1次": FrequencyLevel.LOW, "就跑1次": FrequencyLevel.LOW,
           "只1次": FrequencyLevel.LOW, "就1次": FrequencyLevel.LOW, "1次性": FrequencyLevel.LOW,
           "1次性的": FrequencyLevel.LOW,  # 只跑一次, 一次性的: their numerals read by then
           "就这1次": FrequencyLevel.LOW, "只这1次": FrequencyLevel.LOW, "就这么1次": FrequencyLevel.LOW,
           "仅此1次": FrequencyLevel.LOW, "就1回": FrequencyLevel.LOW,
           "once only": FrequencyLevel.LOW, "just once": FrequencyLevel.LOW, "only once": FrequencyLevel.LOW,
           "one-off": FrequencyLevel.LOW, "one off": FrequencyLevel.LOW, "a one-off": FrequencyLevel.LOW}  # fmt: skip
_A_WEEK = {"day": 7.0, "天": 7.0, "日": 7.0, "week": 1.0, "周": 1.0, "星期": 1.0, "礼拜": 1.0, "month": 12 / 52,
           "月": 12 / 52}  # fmt: skip
_PERIOD_OF = {"daily": "day", "weekly": "week", "monthly": "month"}  # "twice daily": twice a day
_PER_WORD = {"daily": "1 a day", "everyday": "1 a day", "天天": "1 a day", "weekly": "1 a week", "monthly": "1 a month",
             "once": "1", "twice": "2", "thrice": "3", "a few": "3", "few": "3", "several": "3"}  # fmt: skip
_RUNS = r"times?|x|次|回"
_PERIOD = r"(?P<per>days?|weeks?|months?|天|日|周|星期|礼拜|个?月)"
_FREQUENCY = [  # the count before its period ("3 times a week", "3次/周") or after it ("每周3-4次", "一天两三次")
    lazy(rf"^(?P<count>.*?)\s*(?:a|an|per|each|every|/|每|每个)\s*{_PERIOD}$"),
    lazy(rf"^(?:every|each|每个?|一个?|1)?\s*{_PERIOD}\s*(?P<count>.*)$"),
]
_EVERY_N_DAYS = lazy(rf"^(?:every|每)\s*(?P<n>{_NUM})\s*(?:days?|天)(?:\s*(?:一次|1次|once))?$")


def parse_frequency(text: str) -> FrequencyAnswer:
    """How often the job runs: 'daily', '3 times a week', '每周两次', '每周跑三四次' (4), 'every 2 days', 'high' ..."""
    norm = said.frequency_words(_prepare("frequency", text))
    compact = norm.replace(" ", "") if has_han(norm) else norm
    if compact in _LEVELS:
        return FrequencyAnswer(level=_LEVELS[compact])
    if said.continuous(compact) or said.continuous(norm):  # "一直在跑", "24/7", "constantly"
        return FrequencyAnswer(level=FrequencyLevel.HIGH)
    weekly = said.runs_a_week(compact) or said.runs_a_week(norm)
    if weekly is not None:
        return FrequencyAnswer(runs_per_week=weekly)
    if said.irregular(compact):  # "不定期", "on demand": no figure to judge by, so asked for one
        raise ParseError("frequency", text, ACCEPTED["frequency"], "irregular")
    every = _EVERY_N_DAYS.match(compact)
    if every:
        if number(every["n"]) <= 0:
            raise ParseError("frequency", text, ACCEPTED["frequency"], "interval_not_positive")
        return FrequencyAnswer(runs_per_week=7 / number(every["n"]))
    compact = re.sub(
        r"\b(once|twice|thrice|\d+(?:\.\d+)? times?) (daily|weekly|monthly)$",
        lambda m: f"{m[1]} a {_PERIOD_OF[m[2]]}",
        compact,
    )
    words = re.sub(r"\b(?:a few|few|several|once|twice|thrice)\b|^(?:daily|everyday|weekly|monthly|天天)$",
                   lambda m: _PER_WORD[m.group(0)], compact)  # fmt: skip
    for form in _FREQUENCY:
        match = form.match(words)
        count = match and (read_amount(match["count"], _RUNS) if match["count"] else (Amount(1, 1), None))
        if match and count:
            if count[0].planned <= 0:  # "3-4次": the upper end, as a range reads
                raise ParseError("frequency", text, ACCEPTED["frequency"], "runs_not_positive")
            period = match["per"].removeprefix("个").removesuffix("s")
            return FrequencyAnswer(runs_per_week=count[0].planned * _A_WEEK[period])
    raise ParseError("frequency", text, ACCEPTED["frequency"])


# --- context ------------------------------------------------------------------------------------

# the articles' own words beside how teams name the same work; rendering (which the articles count among the
# high-continuity jobs) has no scenario of its own: its duration and interruption answers carry it
_WORKLOADS = (
    dict.fromkeys(("pretrain", "pre-train", "pretraining", "pre-training", "预训练", "继续预训练",
        "增量预训练", "大模型预训练"), Workload.PRETRAIN)
    | dict.fromkeys(("full-finetune", "full finetune", "full fine-tune", "full fine-tuning",
        "finetune", "fine-tune", "全参微调", "全量微调", "全参数微调", "全量训练", "全参", "sft",
        "full sft", "fine tuning", "full fine tuning"), Workload.FULL_FINETUNE)
    | dict.fromkeys(("lora", "lora微调", "lora fine-tune", "lora finetune"), Workload.LORA)
    | dict.fromkeys(("qlora", "qlora微调"), Workload.QLORA)
    | dict.fromkeys(("hpo", "hyperparameter search", "hyper-parameter search", "超参搜索",
        "超参数搜索", "调参", "超参调优", "超参数调优", "hyperparameter tuning",
        "hyper-parameter tuning", "sweep", "grid search"), Workload.HPO)
    | dict.fromkeys(("inference", "serving", "推理", "推理服务", "在线推理", "模型服务",
        "部署推理", "model serving", "online inference", "部署", "模型部署", "推理部署", "inference serving",
        "在线服务", "serve", "served", "deploy", "deploying"), Workload.INFERENCE)
    | dict.fromkeys(("debug", "debugging", "调试", "调试代码", "跑通代码"), Workload.DEBUG)
    | dict.fromkeys(("other", "其他", "渲染", "3d渲染", "rendering", "3d rendering"), Workload.OTHER)
    # post-training that is neither a plain fine-tune nor LoRA by its name alone, and evaluation: the general rules
    | dict.fromkeys(("rlhf", "dpo", "ppo", "grpo", "强化学习", "对齐训练", "蒸馏", "模型蒸馏", "distillation",
        "评测", "模型评测", "eval", "evaluation", "benchmark"), Workload.OTHER)
)  # fmt: skip
_PHASES = (
    dict.fromkeys(("exploration", "explore", "探索", "早期探索期", "探索期", "研发", "实验", "实验阶段",
        "试验", "poc", "prototype", "prototyping", "research"), Phase.EXPLORATION)
    | dict.fromkeys(("stable", "稳定", "中期稳定期", "稳定期", "稳定迭代"), Phase.STABLE)
    | dict.fromkeys(("deployment", "deploy", "部署", "后期部署期", "部署期", "上线", "已上线", "生产",
        "生产环境", "production", "prod", "in production"), Phase.DEPLOYMENT)
)  # fmt: skip


_WHICH_TRAINING = dict.fromkeys(("微调", "finetuning", "tuning", "模型微调"), "which_finetune") | dict.fromkeys(
    ("训练", "training", "train", "模型训练", "跑训练"), "which_training"
)


def parse_workload(text: str) -> Workload:
    norm = _prepare("workload", text)
    bare = norm.removesuffix("任务").strip()
    for key in (norm, bare, bare.removesuffix("训练").strip(), norm.replace(" ", "")):
        if key in _WORKLOADS:
            return _WORKLOADS[key]
    plain = _WORK_AROUND.sub("", norm.replace(" ", "")) or norm.replace(" ", "")  # 做lora, 大模型推理服务
    if plain in _WHICH_TRAINING or bare in _WHICH_TRAINING:  # "微调", "训练": which kind decides the advice: asked
        raise ParseError("workload", text, ACCEPTED["workload"], _WHICH_TRAINING.get(plain) or _WHICH_TRAINING[bare])
    found = _named_among(plain, _WORKLOADS, _WORK_WORDS)
    if found is None:  # "微调 llama3-8b", "fine-tune qwen": which kind is asked, as of "微调" alone
        which = next((problem for word, problem in _WHICH_AMONG if word.search(norm)), None)
        if which is None and _SERVED_FOR.search(norm):  # "给客服做个RAG问答": what a service is for
            return Workload.INFERENCE
        raise ParseError("workload", text, ACCEPTED["workload"], which)
    return found


# what a service is for, said without serving's own words: read only when no training is said ("问答模型微调" asks)
_SERVED_FOR = lazy(
    r"(?<![a-z])rag(?![a-z])|问答|客服|智能助手|聊天机器人|chatbot|copilot|知识库|文生图|图生图|出图|生图"
)
# the words of training that say no kind, inside other words (a model's name around them): which kind is asked
_WHICH_AMONG = (
    (lazy(r"微调|fine-?tun|tuning"), "which_finetune"),
    (lazy(r"训练|train"), "which_training"),
)


T = TypeVar("T")


def _named_among(plain: str, table: Mapping[str, T], words: tuple[tuple[Lazy, T], ...]) -> T | None:
    """What `plain` names: a name of `table` it is, else the first of `words` found in it (in their order)."""
    if plain in table:
        return table[plain]
    return next((value for word, value in words if word.search(plain)), None)


# what is said around a workload's name ("我们在做大模型推理服务", "跑个lora", "debug一下")
_WORK_AROUND = lazy(
    r"^(?:我们|我)?(?:在|想|要|准备|主要是|主要|就是|是)?(?:做|跑|搞|用|训|跑个|做个|搞个|弄个|一个)?"
    r"|(?:大模型|大语言模型|语言模型|模型|llm|的)(?=.)|(?:任务|一下|而已|吧|呢|啊|工作|这类|之类)$"
)
# a workload named inside other words, in this order: QLoRA before LoRA, offline or batch inference (a job, not a
# service: the general rules) before serving, serving (推理, 部署, 服务, 上线) before what trains
_WORK_WORDS = (
    (lazy("qlora"), Workload.QLORA),
    (lazy("lora"), Workload.LORA),
    (lazy("预训练|pre-?train"), Workload.PRETRAIN),
    (lazy("(?:全参|全量|全参数)(?:微调|训练)?|full[- ]?(?:fine[- ]?tun|sft)|sft"), Workload.FULL_FINETUNE),  # sft微调
    (lazy("(?:离线|批量|批处理)推理|batch ?inference|offline ?inference"), Workload.OTHER),  # spaces gone by then
    (lazy("推理|部署|上线|服务|serving|inference|serve"), Workload.INFERENCE),
    (lazy("超参|调参|hpo|sweep"), Workload.HPO),
    (lazy("调试|debug|测试|跑通|试跑|demo|冒烟"), Workload.DEBUG),
    (lazy("渲染|render"), Workload.OTHER),
)


def parse_phase(text: str) -> Phase:
    norm = _prepare("phase", text)
    if norm in _PHASES:
        return _PHASES[norm]
    plain = _PHASE_AROUND.sub("", norm.replace(" ", "") if has_han(norm) else norm).strip()  # 已经上线了, 探索阶段
    found = _named_among(plain, _PHASES, _PHASE_WORDS)
    if found is None:
        raise ParseError("phase", text, ACCEPTED["phase"])
    return found


_PHASE_AROUND = lazy(
    r"^(?:我们|项目)?(?:还|已经|已|正|正在|目前|现在|处于|刚|都)*(?:在|是)?"
    r"|(?:了|中|阶段|时期|的|吧|呢|啊|already|stage|phase|now)+$"
)
# a phase named inside other words, in this order: about to go live (not live yet: steady work) before live
_PHASE_WORDS = (
    (lazy(r"(?:快|准备|即将|马上|就要|about to|soon to)\s*要?\s*(?:上线|部署|go live|launch|deploy)"), Phase.STABLE),
    (lazy(r"上线|部署|生产|线上|后期|量产|production|prod\b|deploy|\blive\b"), Phase.DEPLOYMENT),
    (
        lazy(
            r"探索|开始|起步|早期|初期|研发|实验|试验|poc|原型|预研|调研|prototyp|research|explor|early|experiment"
            r"|^试试?$|在试|试水|尝试|trying|trial|摸索|验证|demo|just start"
        ),
        Phase.EXPLORATION,
    ),
    (lazy(r"稳定|迭代|成熟|中期|stable|steady|matur"), Phase.STABLE),
)


_SHARING = (
    dict.fromkeys(("mig",), Sharing.MIG)
    | dict.fromkeys(("vnpu", "ascend vnpu", "npu virtualization", "昇腾虚拟化", "虚拟化实例"), Sharing.VNPU)
    | dict.fromkeys(("qgpu", "tencent qgpu"), Sharing.QGPU)
    | dict.fromkeys(("hami",), Sharing.HAMI)
    | dict.fromkeys(("time-slicing", "time slicing", "timeslicing", "time-sliced", "timeslice",
        "时间片", "时分复用"), Sharing.TIME_SLICING)
)  # fmt: skip


def parse_sharing(text: str) -> Sharing:
    """The kind of sharing a platform offers: mig, vnpu (昇腾虚拟化), qgpu, hami, time-slicing (时间片)."""
    norm = _prepare("sharing", text)
    if norm in _SHARING:
        return _SHARING[norm]
    raise ParseError("sharing", text, ACCEPTED["sharing"])


ACCEPTED["sharing"] = ["mig", "vnpu", "qgpu", "hami", "time-slicing", "时间片"]


def parse_gpu(text: str) -> str:
    norm = _prepare("gpu", text) if isinstance(text, str) and text.strip() else ""
    try:
        return canonical_gpu(norm)
    except UnknownGPU as exc:
        either = _two_gpus(norm)
        if either is not None:  # "H800或者A800", "A100 or H100": the advice names one, so which is asked
            raise ParseError("gpu", text, list(either), "which_gpu", {"gpus": " / ".join(either)}) from None
        raise ParseError("gpu", text, exc.known, "gpu_maker" if exc.maker else "unknown_gpu") from None


def _two_gpus(norm: str) -> tuple[str, ...] | None:
    """The cards an answer names as alternatives ("H800或者A800", "A100 or H100"); None unless two or more."""
    named = gpus_in(re.split(r"\s*(?:或者|或是|或|还是|和|与|跟|/|,|，|、|\bor\b|\band\b)\s*", norm))
    return tuple(named) if len(named) > 1 else None


ACCEPTED["gpu"] = ["A100-80GB", "H100", "H800", "4090", "L40S"]


_SIZE_WORDS = {"千亿": "1000亿", "百亿": "100亿", "万亿": "10000亿", "百亿级": "100亿", "千亿级": "1000亿"}
_SIZE_INSIDE = lazy(rf"(?<![\d.])(?P<n>{_NUM})(?P<unit>b|bn|billion|亿)(?![a-z])")


def parse_model_size(text: str) -> float:
    """Model size in billions of parameters: '7b', '13B', '72 billion', '70亿'."""
    spaced = _prepare("model_size", text)
    norm = spaced.replace(" ", "")
    norm = _SIZE_WORDS.get(norm.removesuffix("参数").removesuffix("的模型").removesuffix("模型"), norm)  # 千亿
    match = re.fullmatch(rf"(?P<n>{_NUM})(?P<unit>b|billion|bn|亿|m|million)?(?:params|parameters|参数)?", norm)
    if match is None:  # "13B的模型", "qwen2-7b", "llama3 70B": the one size said among the words
        sizes = list(_SIZE_INSIDE.finditer(spaced))
        match = sizes[0] if len(sizes) == 1 else None
    if not match or not match.group("unit"):
        raise ParseError("model_size", text, ACCEPTED["model_size"])
    value = float(match.group("n"))
    value = {"亿": value / 10, "m": value / 1000, "million": value / 1000}.get(match.group("unit"), value)
    if not 0 < value <= 10_000:
        raise ParseError("model_size", text, ACCEPTED["model_size"], "size_not_positive")
    return value


HIGH_QPS_LINE = 100.0  # the bundled policy's inference.high_qps: where a stated interval must not straddle
# 每秒150个: 个 alone counts them; 100万次调用: 次 and what is counted
_QPS_UNIT = r"qps|rps|req/s|reqs?|requests?|queries|calls?|请求|查询|调用|次(?:调用|请求|查询)?|个"
_QPS_WORDS = lazy(
    r"^(?:peak(?:s| is| of| at)?|峰值|高峰期?|最高|最大|qps峰值|峰值qps|qps|at peak|每秒|[一1]秒)\s*"
    r"(?:qps|每秒|[一1]秒)?\s*"
    r"|^(?:也就|就|才|大概|能到|会到|可以到|可达|最多能到)\s*"  # 峰值也就几十, 高峰一秒一两百, 能到上千
    r"|\s*(?:at (?:the )?peak|at peak times|峰值|高峰期?|峰时|per second|a second|每秒|/秒|/\s*s(?:ec)?)$"
)
_P99_UNIT = r"ms|毫秒|milliseconds?|millis|msecs?|s|秒|seconds?"
_P99_WORDS = lazy(
    r"^(?:p99|p99延迟|p99 latency|99分位(?:延迟)?|99线|尾延迟|tail latency|latency|延迟|目标"
    r"|首字延迟|首token延迟|首字|ttft|time to first token|响应时间|response time)?\s*"
    r"(?:最好|希望|尽量|ideally|preferably)?\s*"
    r"(?:要|需要|必须|should be|must be|needs to be|target|is)?\s*(?:在|控制在)?\s*|\s*(?:at p99|p99)$"
)
_YEARLY_UNIT = r"h|hrs?|hours?|gpu[- ]?hours?|gpu[- ]?hrs?|card[- ]hours?|小时|卡时|gpu小时|机时"
_A_YEAR = lazy(
    r"^(?:1年|每年|一年|全年|a year|per year|yearly|annually)\s*|\s*(?:a year|per year|/\s*year|/yr|每年|一年)$"
)


def _figure(question: str, text: str, words: Lazy, unit: str, seconds: bool = False) -> Amount:
    """A figure stated with the quantity grammar (rules/quantity.py), the question's words around it removed (all
    of them: "50 requests a second at peak" ends in two)."""
    norm, bare = _prepare(question, text), ""
    while bare != norm:
        bare, norm = norm, words.sub("", norm).strip()
    read = read_amount(norm, unit)
    if read is None:
        raise ParseError(question, text, accepted_for(question))
    amount, found = read
    if seconds and found is not None and found.startswith(("s", "秒")):
        amount = amount.scaled(1000.0)
    if amount.planned <= 0:
        raise ParseError(question, text, accepted_for(question), "not_positive")
    return amount


# a count said over a minute, an hour or a day ("一" before it is a figure to _prepare: 1分钟)
_PER_MINUTE = lazy(r"每分钟|(?<![\d.])[一1]分钟|/\s*min(?:ute)?\b|per minute|a minute|\brpm\b|\bqpm\b")
_PER_HOUR = lazy(r"每个?小时|(?<![\d.])[一1]个?小时|/\s*h(?:our|r)?\b|per hour|an hour|hourly")
_PER_DAY = lazy(r"每天|(?<![\d.])[一1]天|每日|日均|/\s*day\b|per day|a day|daily")


def _qps_figure(text: str) -> Amount:
    """The requests a second an answer states; a count a minute ("每分钟600次", "600 per minute", "600 rpm") is
    divided into seconds (it was refused)."""
    norm = _prepare("qps", text)
    if _PER_MINUTE.search(norm):
        return _figure("qps", _PER_MINUTE.sub(" ", norm), _QPS_WORDS, _QPS_UNIT).scaled(1 / 60)
    if _PER_HOUR.search(norm):  # 每小时3万次: an hour's count, a second's average over it
        return _figure("qps", _PER_HOUR.sub(" ", norm), _QPS_WORDS, _QPS_UNIT).scaled(1 / 3600)
    if _PER_DAY.search(norm):  # 每天100万次调用: a day's average says nothing of its peak, which is asked
        try:
            daily = _figure("qps", _PER_DAY.sub(" ", norm), _QPS_WORDS, _QPS_UNIT)
        except ParseError:
            daily = None
        if daily is not None:
            each = daily.planned / 86400
            average: dict[str, str | float] = {"average": f"{each:,.0f}" if each >= 10 else f"{each:.2g}"}
            raise ParseError("qps", text, ACCEPTED["qps"], "qps_a_day", average)
    return _figure("qps", text, _QPS_WORDS, _QPS_UNIT)


def stated_qps(text: str) -> Amount | None:
    """The interval a QPS answer states (for the echo and qps_below); None when it states none. "at most 300" and
    "up to 300" name the peak: 300."""
    try:
        amount = _qps_figure(text)
    except ParseError:
        return None
    return amount.at_most_is_the_peak()


def parse_qps(text: str) -> float:
    """Peak requests a second: '300', '300 qps', 'peak around 150 qps', '峰值一百五十左右', '每秒150个请求', '1.5k',
    'about 300 at peak', '150-200' (its upper end), '一百出头' (100-120), '不到100' (below 100: qps_below says so),
    '上千' (above 1,000), '每分钟600次' (10).
    An interval across the high line (不到200, 80-120) is refused naming it."""
    amount = _qps_figure(text).at_most_is_the_peak()
    if amount.side(HIGH_QPS_LINE, at_line_is_above=True) is None:
        params: dict[str, str | float] = {"said": text.strip(), "line": f"{HIGH_QPS_LINE:g} QPS"}
        raise ParseError("qps", text, ACCEPTED["qps"], "ambiguous_bound", params)
    return amount.planned


def qps_below(text: str) -> bool:
    """Is the peak QPS said as an upper bound ("不到100", "under 100")? Then it is below that figure."""
    amount = stated_qps(text)
    return amount is not None and amount.below_only


def p99_bounded(text: str) -> bool:
    """A P99 target said as a bound ('<50ms', '小于50ms', 'under 50 ms', '50ms以内'): the target is below the number,
    as the article's rule puts it (「P99延迟要求小于50ms」)."""
    try:
        return _figure("p99", _seconds_said(text), _P99_WORDS, _P99_UNIT, seconds=True).below_only
    except ParseError:
        return False


P99_LINE_MS = 50.0  # the bundled policy's inference.p99_ms_below: the line "as fast as possible" is asked against
P99_LAX_MS = 1000.0  # a service with no latency target (不敏感): read as a second or more, far past any strict line
_P99_LAX = lazy(
    r"^(?:延迟|latency|p99)?\s*(?:不敏感|不太敏感|不在乎|不太在乎|不在意|不太在意|无所谓|没要求|没有要求|没什么要求|宽松|要求不高"
    r"|not (?:latency[- ])?sensitive|no (?:latency )?(?:requirement|target)s?|(?:doesn'?t|does not) (?:really )?matter"
    r"(?: much)?|not (?:very |that )?important"
    r"|(?:i )?don'?t care|relaxed|not critical|慢点也行|慢一点也没关系|几秒也行)\s*(?:延迟)?[。.!！]?$",
    re.IGNORECASE,
)
_P99_ASAP = lazy(
    r"^(?:p99\s*|latency\s*|p99\s*延迟|延迟)?\s*(?:要|需要)?\s*"
    r"(?:越快越好|越低越好|越小越好|尽量快|尽量低|越短越好|as (?:fast|low) as possible|the (?:faster|lower) the better"
    r"|asap|fast as possible)[。.!！]?$",
    re.IGNORECASE,
)


def p99_lax(text: str) -> bool:
    """A service said to have no latency target ("不敏感", "没要求", "not latency sensitive"): read as P99_LAX_MS."""
    return _P99_LAX.fullmatch(text.strip()) is not None


def parse_p99(text: str) -> float:
    """P99 latency target in milliseconds: '40ms', '40', '0.04s', 'p99 under 30ms', '99分位要在20毫秒以内'; none at
    all ('不敏感', 'no requirement') is a second or more (P99_LAX_MS); 'as fast as possible' is asked which side of
    the line it means (it names none)."""
    if p99_lax(text):
        return P99_LAX_MS
    if _P99_ASAP.fullmatch(text.strip()) is not None:
        raise ParseError("p99", text, ACCEPTED["p99"], "p99_asap", {"line": f"{P99_LINE_MS:g} ms"})
    try:
        return _figure("p99", _seconds_said(text), _P99_WORDS, _P99_UNIT, seconds=True).planned
    except ParseError as exc:  # what was typed is said back, not its rewording
        raise ParseError(exc.question, text, exc.accepted, exc.problem, exc.params) from None


def _seconds_said(text: str) -> str:
    """Seconds as said ("半秒", half a second; "一秒钟", "under a second", "sub-second"), in the unit the figure reader
    takes; what is said after the target ("is fine", "就行") left out."""
    said = _FINE_AFTER.sub("", text.strip())
    said = _SUB_SECOND.sub("under 1 s", _A_SECOND.sub(r"\g<1>1 s", said))
    return _HALF_SECOND.sub("0.5秒", said).replace("秒钟", "秒")


_HALF_SECOND = lazy(r"半\s*秒")
_A_SECOND = lazy(r"(^|\s)an?\s+second\b", re.IGNORECASE)  # "under a second": 1 s
_SUB_SECOND = lazy(r"^sub-?\s*second$|^below a second$", re.IGNORECASE)
_FINE_AFTER = lazy(
    r"\s*(?:is|would be|are)?\s*(?:fine|ok|okay|acceptable|enough|good)\.?$|\s*(?:就行|就可以|就好|即可|都行)了?$",
    re.IGNORECASE,
)


def parse_yearly_gpu_hours(text: str) -> float:
    """GPU-hours a year, for the rent-vs-buy hint: '1500', '3000h', '一年两千多小时' (2000, more than that),
    'about 2,400 GPU-hours a year'."""
    amount = _figure("yearly_gpu_hours", text, _A_YEAR, _YEARLY_UNIT)
    return amount.low if amount.low is not None and amount.low_open else amount.planned


_ALWAYS = lazy(
    r"^(?:24\s*[/x×*]\s*7|7\s*[/x×*]\s*24|always(?: on| running)?|all day|around the clock|"
    r"round the clock|non-?stop|24\s*(?:h|hours?)(?: a day| per day|/day)?|一直运行|一直在线|一直跑|"
    r"全天(?:候)?|全天运行|常驻|不间断|24\s*小时(?:运行|在线)?)$"
)
_A_DAY = lazy(r"^(?:每天|每日)\s*|\s*(?:a day|per day|/day|/d|daily|每天|一天)$")
_CARDS_UNIT = r"cards?|gpus?|张卡|块卡|张|卡|块"
_CARD_WORDS = lazy(r"^(?:需要|要|用)\s*|\s*(?:就够了?|就行)$")


_DAY_WORDS = (
    dict.fromkeys(("半天", "half a day", "half the day"), 12.0)
    | dict.fromkeys(
        ("business hours", "office hours", "working hours", "work hours", "工作时间", "上班时间", "办公时间"), 9.0
    )
    | dict.fromkeys(("白天", "daytime", "during the day", "in the daytime", "daytime only"), 12.0)
)  # 9-18, 8-20
_SPAN_APART = lazy(r"\s*(?:到|至|~|～|–|-|\bto\b|\buntil\b|\btill\b)\s*")
_NIGHT_OFF = lazy(  # "晚上基本没人": the night, said to be unused
    r"^(?:晚上|夜里|夜间|半夜|at night|nights?)\S*\s*(?:基本|几乎)?"
    r"(?:没人|没有人|不用|没什么人|关掉|空着|nobody|unused|off)"
)
_DAY_VERBS = lazy(r"(?:在用|用|跑|开着|在线|上班)$")


def _day_said(text: str) -> str:
    """A service's day as named, without what is said around it: "白天用，晚上基本没人" is 白天 (the night's words
    say the same), "白天用" is 白天."""
    said = _ONLY.sub("", text.strip().lower())  # 就白天用, only during the day
    if _NIGHT_OFF.match(said) and not re.search(r"[,，;；]", said):
        return "白天"  # "晚上不用", "晚上关掉": the night unused, so the day
    parts = re.split(r"[,，;；]\s*", said, maxsplit=1)
    first, rest = parts[0], parts[1] if len(parts) > 1 else ""
    if rest and _NIGHT_OFF.match(rest) is None:
        return said
    return _DAY_VERBS.sub("", first).strip()


_ONLY = lazy(r"^(?:就|只|只在|仅|only)\s*")


_HOUR_SAID = r"[\d一二三四五六七八九十]{1,3}"
_EARLY_LATE = lazy(rf"[早朝](?:上)?(?P<start>{_HOUR_SAID})(?:点)?晚(?:上)?(?P<end>{_HOUR_SAID})(?:点)?")


def clock_span_said(text: str) -> bool:
    """Whether a serving-hours answer is one clock to another (9-18, 9 to 5, 工作日 9点到18点): no range of hours, so
    no "upper end" of it is said back."""
    said = _WEEKDAYS_ONLY.sub("", _SERVING_LEAD.sub("", text.strip())).strip()
    return _clock_span(said) is not None


def _clock_span(text: str) -> float | None:
    """The hours from one clock to another (9点到18点, 9:00-21:00, 早上9点到晚上9点, 9am to 6pm; past midnight too;
    the 点 said once, 9-18点; 早9晚6 and 朝九晚六, 9 to 6 in the evening); a bare 9-18 whose end is past noon, as
    a team writes its service's hours (8-10 stays a range of hours); None when the text is no two clocks."""
    from rules.clock import clock_of

    said = text.strip().lower().removeprefix("每天").removeprefix("daily")
    if early_late := _EARLY_LATE.fullmatch(said):  # 早9晚6: nine in the morning to six in the evening
        said = f"早上{early_late['start']}点到晚上{early_late['end']}点"
    parts = _SPAN_APART.compiled.split(said, maxsplit=1)
    if len(parts) != 2:
        return None
    if parts[0].isdigit() and parts[1].isdigit():  # 9-18: clocks where the end can only be a 24-hour clock's
        start_h, end_h = int(parts[0]), int(parts[1])
        if 6 <= start_h <= 11 and 1 <= end_h < start_h:  # 9 to 5, 9-6: a morning to an afternoon, as said in English
            return float(end_h + 12 - start_h)
        return float(end_h - start_h) if start_h < end_h <= 24 and end_h > 12 else None
    start, end = clock_of(parts[0]), clock_of(parts[1])
    if start is None and end is not None and parts[0].isdigit() and parts[1].endswith("点"):  # 9-18点
        start = clock_of(parts[0] + "点")
    if start is None or end is None:
        return None
    minutes = (end.hour * 60 + end.minute - start.hour * 60 - start.minute) % (24 * 60)
    return minutes / 60 if minutes else None


_WEEKDAYS_ONLY = lazy(
    r"^(?:只有|只在|仅|就)?\s*(?:工作日|周一到周五|周一至周五|weekdays|on weekdays|workdays|business days)"
    r"\s*(?:的|,|，)?\s*"
    r"|\s*(?:,|，)?\s*(?:on weekdays|weekdays only|工作日)$",
    re.IGNORECASE,
)
WEEKDAYS_A_WEEK = 5 / 7  # a service up on weekdays only serves its day's hours five days in seven


def weekdays_only(text: str) -> bool:
    """A service said to serve on weekdays only ("工作日白天", "weekdays 9am to 6pm")."""
    return _WEEKDAYS_ONLY.search(text.strip()) is not None


# who needs it up, before how long (we need it up 24/7, it has to run around the clock), and "only" after it
_SERVING_LEAD = lazy(
    r"^(?:we need it|it needs to be|needs to be|it has to be|it must be|it's|it is|it'll be|keep it|we keep it)"
    r"\s+(?:up|running|on|online|available|served)?\s*|\s+only$",
    re.IGNORECASE,
)


def parse_serving_hours(text: str) -> float:
    """Hours a day an inference service serves: '24/7', 'always', '一直运行' (24), '8h a day', '每天12小时'; on
    weekdays only ('工作日白天', 'weekdays 9am to 6pm') its day's hours over the whole week (12 h five days in seven:
    8.6 a day), since a service is priced by the day."""
    text = _SERVING_LEAD.sub("", text.strip()) or text
    if weekdays_only(text):
        rest = _WEEKDAYS_ONLY.sub("", text.strip()).strip()
        if not rest:  # "工作日": which hours of them?
            raise ParseError("serving_hours", text, ACCEPTED["serving_hours"], "weekdays_hours")
        return parse_serving_hours(rest) * WEEKDAYS_A_WEEK
    if _ALWAYS.match(_prepare("serving_hours", text)):
        return 24.0
    day = _day_said(text)
    if day in _DAY_WORDS:  # 半天, business hours, 白天: the hours they span (the echo says so)
        return _DAY_WORDS[day]
    span = _clock_span(text)  # 9点到18点, 9:00-21:00: the hours between
    if span is not None:
        return span
    hours = _figure("serving_hours", text, _A_DAY, r"h|hrs?|hours?|小时|钟头").planned
    if hours > 24:
        raise ParseError("serving_hours", text, ACCEPTED["serving_hours"], "day_over_24h")
    return hours


_MACHINES = lazy(  # machines, then each one's cards: "两台8卡", "2x8", "2 nodes x 8 GPUs", "2台机器每台8卡"
    rf"^(?P<machines>{_NUM})\s*(?:(?:台机器|台|nodes?|machines?)\s*(?:x|×|\*|每台|each)?|x|×|\*)\s*"
    rf"(?P<each>{_NUM})\s*(?:卡|张卡|张|gpus?|cards?)?(?:\s*(?:each|per (?:node|machine)))?$"
)


_ONE_OR_TWO = {"单卡": 1, "一张卡": 1, "1张卡": 1, "双卡": 2, "两张卡": 2, "2张卡": 2, "single card": 1, "one card": 1}


def parse_cards(text: str) -> int:
    """Whole cards: '8', '8卡', '八张', '16 GPUs'; machines times their cards: '两台8卡', '2x8', '2 nodes x 8 GPUs'."""
    prepared = _prepare("cards", text)
    machines = _MACHINES.match(prepared)
    if machines is not None:
        text = f"{number(machines['machines']) * number(machines['each']):g}"
    elif prepared in _ONE_OR_TWO:  # 单卡, 双卡
        return _ONE_OR_TWO[prepared]
    else:
        from rules.gpus import counted_gpu

        named, counted = counted_gpu(prepared)  # 4张A100: the cards of a machine named with its GPU
        if counted is not None and known_gpu(named):
            text = str(counted)
    cards = _figure("cards", text, _CARD_WORDS, _CARDS_UNIT)
    if cards.exact is None or cards.exact != int(cards.exact):
        raise ParseError("cards", text, ACCEPTED["cards"])
    if cards.exact > 1024:
        raise ParseError("cards", text, ACCEPTED["cards"], "too_many_cards")
    return int(cards.exact)


_SCHEDULE_FORMS = [  # "4x14"; the forms said in words are colloquial.schedule_parts's
    lazy(rf"^(?P<h>{_NUM})\s*(?:h|hours?|小时)?\s*(?:x|\*|×)\s*(?P<d>{_NUM})\s*(?:d|days?|天)?$"),
    # "4h 14d", "4小时 14天", "4小时/天，14天": both units said, nothing between but a space or a comma
    lazy(rf"^(?P<h>{_NUM})\s*(?:h|hours?|小时)(?:\s*/\s*(?:d|day|天))?\s*[,，、]?\s*(?P<d>{_NUM})\s*(?:d|days?|天)$"),
]


_SEVEN_BY_24 = lazy(r"7\s*[x×*]\s*24")


def _schedule(text: str, hours: float, days: float) -> Schedule:
    if hours > 24:
        raise ParseError("schedule", text, ACCEPTED["schedule"], "day_over_24h")
    if hours <= 0 or days <= 0:
        raise ParseError("schedule", text, ACCEPTED["schedule"], "schedule_not_positive")
    if not MIN_DAYS <= days <= MAX_DAYS:
        raise ParseError("schedule", text, ACCEPTED["schedule"], "days_out_of_range")
    return Schedule(hours_per_day=hours, days=days)


def parse_schedule(text: str) -> Schedule:
    """Hours a day and days: '4x14', '4h x 14d', '4 hours a day for 14 days', '每天4小时，14天'."""
    norm = _prepare("schedule", text)
    if _SEVEN_BY_24.fullmatch(norm):  # 24/7 as Chinese says it, or 7 h a day for 24 days as 4x14 reads: asked
        raise ParseError("schedule", text, ACCEPTED["schedule"], "seven_by_24")
    found = next((m for m in (form.match(norm) for form in _SCHEDULE_FORMS) if m), None)
    if found is not None:
        return _schedule(text, float(found.group("h")), float(found.group("d")))
    parts = said.schedule_parts(norm)  # "3周每天6小时", "6h a day for 3 weeks", "weekdays, 8 hours"
    if parts is not None:
        return _schedule(text, *parts)
    whole = _RENTED_WHOLE.get(norm) or _RENTED_WHOLE.get(norm.replace(" ", ""))
    if whole is not None:  # "包月", "monthly": rented by the month, every hour of it
        return _schedule(text, 24.0, whole)
    raise ParseError("schedule", text, ACCEPTED["schedule"])


_PERIOD_ALONE = lazy(r"(?:\d+(?:\.\d+)?|an?|one)\s*个?\s*(?:天|日|周|星期|礼拜|月|days?|weeks?|months?)")


def parse_rental_schedule(text: str) -> Schedule:
    """A quote's schedule: parse_schedule's, or a period said alone (`一个月`, `10天`, `两周`, `a month`): the card
    rented for it, every hour of it, as 包月 and 跑3天 are. Only a quote reads it so: it prices renting, while the
    profile's schedule question asks the hours of use (there "一个月" says no hours a day, and is asked)."""
    try:
        return parse_schedule(text)
    except ParseError:
        if _PERIOD_ALONE.fullmatch(_prepare("schedule", text)) is None:
            raise
        return parse_schedule(f"连续跑 {text}")


# a card rented for a whole period, as platforms sell it (包月: a month's rental, used or not): every hour of it
_RENTED_WHOLE = {"包天": 1.0, "包周": 7.0, "包月": 30.0, "包年": 365.0, "整月": 30.0, "monthly": 30.0,
                 "by the month": 30.0, "a whole month": 30.0}  # fmt: skip


ACCEPTED["share"] = ["1/2", "0.5", "50%", "half", "quarter", "一半", "四分之一", "3g.40gb"]
_SHARE_WORDS = (
    dict.fromkeys(("half", "一半", "半卡"), 0.5)
    | dict.fromkeys(("quarter", "四分之一"), 0.25)
    | dict.fromkeys(("whole", "整卡"), 1.0)
    | dict.fromkeys(("三分之一",), 1 / 3)
)  # fmt: skip


def parse_share(text: str, gpu: str | None = None) -> float:
    """The slice of one card: '1/2', '0.5', '50%', 'half', '一半', or a MIG profile such as '3g.40gb'."""
    from rules.gpus import gpu_model  # local: the catalogue is only needed for MIG names

    norm = _prepare("share", text).replace(" ", "")
    value: float | None = _SHARE_WORDS.get(norm)
    if value is None and (match := re.fullmatch(r"(\d+)/(\d+)", norm)):
        value = int(match.group(1)) / int(match.group(2)) if int(match.group(2)) else 0.0
    elif value is None and (match := re.fullmatch(rf"({_NUM})(%?)", norm)):
        value = float(match.group(1)) / (100 if match.group(2) else 1)
    elif value is None and re.fullmatch(r"\dg\.\d+gb", norm):
        card = gpu_model(gpu) if gpu else None
        profile = next((p for p in card.mig if p.name == norm), None) if card else None
        if profile is None or card is None:
            raise ParseError("share", text, ACCEPTED["share"], "not_mig_profile")
        value = profile.memory_gb / card.memory_gb
    if value is None:
        raise ParseError("share", text, ACCEPTED["share"])
    if not 0 < value <= 1:
        raise ParseError("share", text, ACCEPTED["share"], "share_out_of_range")
    return value


_PRICE_FORMS = [
    lazy(r"(?P<n>.+?)(?:/|每|一)(?:a|an|per|每|一)?(?:个)?(?P<unit>[a-z]+|小时|时|天|日|月)"),  # 400/天, 400一天
    lazy(r"(?:每|一)(?:个)?(?P<unit>小时|天|日|月)(?P<n>.+)"),  # 每小时20元, 一天400
    lazy(r"(?P<unit>时|日|月)租(?P<n>.+)"),  # 月租11500
    lazy(r"包(?P<unit>天|月)(?P<n>.+)"),  # 包月11500
]
_A_ONE = lazy(r"(?<![零〇一二两三四五六七八九十百千万])一(?:个)?(?=小时|天|日|月)|一(?:个)?(?=(?:小时|天|日|月)$)")
_PRICE_UNITS = (
    dict.fromkeys(("h", "hr", "hour", "小时", "时"), "hour")
    | dict.fromkeys(("d", "day", "天", "日"), "day")
    | dict.fromkeys(("mo", "month", "月"), "month")
)  # fmt: skip


def parse_price(text: str) -> tuple[float, str]:
    """A rental price and what it is per: '400/day', '14/h', '11500/month', '400/天' -> (400.0, 'day'); as Chinese
    platforms and people say it too: '每小时20元', '20块一小时', '一天400', '月租11500', '包月11500'."""
    # "400一天": the 一 of a rate, before the numerals are read (it is no 1); after a numeral too where the unit ends
    # the price, since a price needs its "per": "两块五一小时" is 2.5 an hour, "一千一天" 1,000 a day (1,100 would
    # leave it without one), "一千一一天" 1,100
    per = _A_ONE.sub("每", text.strip())
    prepared = _prepare("price", per)
    if FIGURES_APART.search(prepared):  # "400 30/天" was 40,030 a day
        raise ParseError("price", text, ACCEPTED["price"])
    norm = prepared.replace(" ", "").replace("¥", "").replace("$", "")
    match = next((m for m in (p.fullmatch(norm) for p in _PRICE_FORMS) if m), None)
    amount = money_value(match.group("n")) if match else None  # 400, 400元, 1.5万, 两块五
    if match is None or amount is None or match.group("unit") not in _PRICE_UNITS:
        raise ParseError("price", text, ACCEPTED["price"])
    if amount <= 0:
        raise ParseError("price", text, ACCEPTED["price"], "not_positive")
    return amount, _PRICE_UNITS[match.group("unit")]
