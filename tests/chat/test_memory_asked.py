"""`7B LoRA 需要什么卡`, `70B推理要多大显存`, `how much memory for qwen2.5-7b` were unknown sub-commands: a team's
first question. The answer is the model's estimated peak, as the recommendation says it, and what holds it."""

from __future__ import annotations

from pathlib import Path

from bot.app.memory_asked import asked
from rules.answers import answer_in_context
from rules.isolation import model_estimate
from rules.policy import load_policy
from tests.chat.test_both_platforms import driving


def _peak(said: str) -> str:
    estimate = model_estimate(answer_in_context("memory", said, {}), load_policy())
    assert estimate is not None
    return f"{estimate[1]:,g} GB"


def test_a_models_memory_asked_is_its_estimate_and_the_cards_that_hold_it(tmp_path: Path) -> None:
    with driving("wecom", tmp_path) as chat:
        lora = chat.command("7B LoRA 需要什么卡")
        assert f"按模型估算的显存（7B，LoRA）：约 {_peak('7B LoRA')}" in lora, lora
        assert "一张卡就放得下：RTX4090-24GB、L40S-48GB" in lora and "发 `advise`" in lora
        served = chat.command("70B推理要多大显存")
        assert "Llama-3.1-70B（bf16）同时服务" in served and _peak("70B 推理") in served, served
        assert "A100-80GB × 2" in served and "RTX4090-24GB × 7" in served  # 8 cards at most: all listed
        named = chat.command("7B 全参微调 4090放得下吗")  # the card named: how many of it
        assert "6 张 RTX4090-24GB" in named and _peak("7B 全参微调") in named, named
        slice_ = chat.command("7B LoRA A100 放得下吗")  # one holds it: the smallest slice of it
        assert "A100-80GB 的" in slice_ and "切片" in slice_, slice_
        which = chat.command("7B 微调 需要什么卡")  # which training: asked, no estimate guessed
        assert "是全参微调还是 LoRA" in which and "估算" not in which, which
        huge = chat.command("405B 全参微调 需要什么卡")
        assert "超过任何卡 8 张的总显存" in huge, huge
        assert "没读懂“A100需要什么卡”" in chat.command("A100需要什么卡")  # no model: not a memory question
    with driving("slack", tmp_path / "en") as chat:
        said = chat.command("how much memory for qwen2.5-7b")
        assert "Serving memory of Qwen2.5-7B (bf16)" in said and "One card holds it: RTX4090-24GB" in said, said
        # a family and size (it opened a profile: `llama 70B` was no model known)
        said = chat.command("how much memory does llama 70B need for inference")
        assert "Serving memory of Llama-3.1-70B (bf16)" in said, said


def test_only_a_model_asked_about_is_read_as_one() -> None:
    assert asked("谁的机器闲着") is None and asked("A100多少钱") is None and asked("需要什么卡") is None
    found = asked("qwen2.5-72b 部署 需要几张卡")
    assert found is not None and found[1] is None and getattr(found[0], "served_model", None) == "Qwen2.5-72B"
    card = asked("13B 全参微调 A100 放得下吗")
    assert card is not None and card[1] == "A100-80GB"
    maker = asked("7B LoRA ascend 放得下吗")  # a maker alone names no card (it raised IndexError)
    assert maker is not None and maker[1] is None
    meant = asked("我要部署一个70B的模型")  # said as a plan, no question: was not understood
    assert meant is not None and getattr(meant[0], "served_model", None) == "Llama-3.1-70B"
    assert asked("我想微调一个7B模型") is not None and asked("我要跑一下") is None  # LoRA or full, asked back
    assert asked("我要租卡") is None and asked("4090大概多少显存") is None
    served = asked("we want to serve a 70B model")  # serve, deploy before a size: serving (asked back which job)
    assert served is not None and getattr(served[0], "served_model", None) == "Llama-3.1-70B"
    deployed = asked("I need to deploy a 13B model")
    assert deployed is not None and getattr(deployed[0], "method", None) is not None
