"""A memory question asked in words (`7B LoRA 需要什么卡`, `70B推理要多大显存`, `how much memory for qwen2.5-72b`,
`7B 全参微调 4090放得下吗`): the model's estimated peak, as the recommendation's memory lines say it, and what holds
it (the card named, else how many of each size); `advise` for the whole decision. Each was an unknown sub-command.
A model said without which training (`7B 微调`) is asked which, as the memory question asks it."""

from __future__ import annotations

import re

from bot.app.invocation import Invocation
from bot.chat.message import plain
from bot.text import Lang, t
from bot.text.errors import parse_error_text
from bot.text.reasons import render
from rules.answers import WHICH_TRAINING, answer_in_context
from rules.errors import ParseError
from rules.fit import cards_needed, shared_option
from rules.gpus import gpu_at, gpu_model, gpu_words, gpus_in
from rules.isolation import model_estimate, smallest
from rules.patterns import lazy
from rules.profile import MemoryAnswer

_ASKED = lazy(
    r"(?:需要|要|该|得)?(?:用|租)?什么(?:样的)?(?:显)?卡|(?:需要|要)?多(?:大|少)(?:的)?显存|显存(?:要|需要|得)?(?:多大|多少)"
    r"|(?:需要|要)?几张(?:卡)?|(?:放|装|跑)得下(?:吗|么)?|能(?:放|装|跑)(?:得)?下(?:吗|么)?|显存够(?:不够|吗|用吗)"
    r"|how much (?:gpu )?(?:memory|vram)(?: (?:do|does|would|will) (?:i|we|it) need)?"
    r"|what (?:gpus?|cards?) (?:do|would|should|will) (?:i|we) need|which (?:gpus?|cards?) (?:for|to)"
    r"|how many gpus|(?:does|will|would|can) it fit(?: on| in)?|fits? on"
    r"|what (?:should|would) (?:i|we) (?:rent|use)|what do (?:i|we) need to rent|该租什么(?:卡)?|租什么卡",
    re.IGNORECASE,
)
# a model one means to run, said without a question (我要部署一个70B的模型, we want to train a 7B model): its
# estimate, as asked; the job's word (部署, 微调) stays for the model's reading
_MEANS_TO = lazy(
    r"^(?:我|我们)?(?:要|想|打算|准备|计划)(?=\s*(?:部署|上线|跑|训练|微调|推理))"
    r"|^(?:we|i) (?:want|plan|need|are going) to(?= (?:serve|deploy|run|train|fine-tune))",
    re.IGNORECASE,
)
_AROUND = lazy(  # the question's own words around the model
    r"请问|我想|我们|我|打算|需要|要|跑|运行|用来|大模型|模型|的|一个|一下|大概|呢|吗|？|\?|,|，"
    r"|(?<![a-z])(?:a|an|the|i|we|to|for|do|does|on|in|if|with|model|want|wants|would|like|need|plan|going)(?![a-z])",
    re.IGNORECASE,
)
# a few cards of each size, from a gaming card to the largest (an Ascend for the domestic teams)
SIZES = ("RTX4090-24GB", "L40S-48GB", "Ascend-910B-64GB", "A100-80GB", "H20-96GB", "H200-141GB")
MOST_CARDS = 8  # one node: more are not offered


def asked(text: str) -> tuple[MemoryAnswer | ParseError, str | None] | None:
    """The model a memory question names and the card it names, if any; the answer's error where it names a
    model but not which training (`7B 微调`); None where `text` asks no such thing."""
    if _ASKED.search(text) is None and _MEANS_TO.match(text) is None:
        return None
    words = gpu_words(_MEANS_TO.compiled.sub(" ", _ASKED.compiled.sub(" ", text)).split())
    at = gpu_at(words)
    named = gpus_in(words[at[0] : at[1]]) if at is not None else []
    gpu = named[0] if named else None  # a maker alone (`ascend`) names no card: the sizes, as with none
    rest = words[: at[0]] + words[at[1] :] if at is not None else words
    model = " ".join(_AROUND.compiled.sub(" ", " ".join(rest)).split())
    if not model:
        return None
    try:
        answer = answer_in_context("memory", model, {})
    except ParseError as exc:
        return (exc, gpu) if exc.problem in (*WHICH_TRAINING, "which_model_job") else None
    return (answer, gpu) if isinstance(answer, MemoryAnswer) and answer.model_size_b is not None else None


def said_of_memory(inv: Invocation, text: str) -> bool:
    """Whether `text` asks what memory a model needs (and so was answered)."""
    found = asked(text)
    if found is None:
        return False
    answer, gpu = found
    lang = inv.lang
    if isinstance(answer, ParseError):  # `7B 微调 需要什么卡`: LoRA or full? asked
        inv.answer(plain(parse_error_text(answer, lang, "chat"), lang))
        return True
    estimate = model_estimate(answer, inv.deps.policy)
    if estimate is None:
        return False
    said, peak = estimate
    lines = [render(said, lang, "asked"), *_holding(peak, gpu, inv.deps.policy.shared.default_share, lang)]
    inv.answer(plain("\n".join([*lines, t("memory_asked.advise", lang)]), lang))
    return True


def _holding(peak: float, gpu: str | None, default_share: float, lang: Lang) -> list[str]:
    """What holds `peak`: the card named (one, a slice of it, or how many); else how many of each size."""
    if gpu is not None:
        card = gpu_model(gpu)
        if peak <= card.memory_gb:  # one holds it: the smallest slice of it that does, or the whole card
            return [render(a, lang, "chat") for a in smallest(card, shared_option(card, peak, default_share), 1)]
        return [render(a, lang, "chat") for a in smallest(card, None, cards_needed(card, peak))]
    counted = [(cards_needed(gpu_model(name), peak), name) for name in SIZES]
    held = [f"{name} × {count}" for count, name in counted if count <= MOST_CARDS]
    if not held:
        return [t("memory_asked.none", lang, peak=round(peak), most=MOST_CARDS)]
    if all(count == 1 for count, _ in counted):  # one of each: the names alone
        held, key = list(SIZES), "memory_asked.cards"
    else:
        key = "memory_asked.cards_split"
    return [t(key, lang, cards="、".join(held) if lang is Lang.ZH else ", ".join(held))]
