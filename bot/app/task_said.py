"""A job described in one message, its answers a clause each (`我想微调一个qwen2.5 7b，用lora，大概跑3个小时`, `7B LoRA,
3小时, 能中断`, `we want to fine-tune a 7B model with LoRA, about 10 hours, runs daily`): the profile starts with
those kept, said back, and asks the rest; with every answer a decision needs, the recommendation at once. It was
"not understood", and inside a profile only the open question's answer was kept. Two of the decision's answers make
a description (rules/clauses.py CORE): one alone is a question of its own (`7B LoRA 需要什么卡`, `H100 跑一周`)."""

from __future__ import annotations

from bot.app import answers
from bot.app.invocation import Invocation
from bot.chat.message import plain
from bot.text import t
from rules.clauses import CORE, answers_in


def said_of_task(inv: Invocation, text: str) -> bool:
    """Whether `text` describes a job (and so its profile was started, or the recommendation given)."""
    found = answers_in(text)
    if len(CORE & found.keys()) < 2:
        return False
    convo = answers.sentence_profile(inv, found)
    if convo.note:
        inv.answer(plain(t("slack.moved_to_dm", inv.lang), inv.lang))
    return True
