"""Answers that contradict each other are flagged beside the decision, in both languages, not silently combined."""

from __future__ import annotations

from bot.text import Lang
from bot.text.reasons import render
from rules.answers import build_profile, parse_answers
from rules.engine import evaluate
from rules.policy import load_policy

POLICY = load_policy()


def _warnings(**answers: str) -> dict[str, str]:
    decision = evaluate(build_profile(parse_answers(answers)), POLICY)
    return {w.id: render(w, Lang.ZH) + " | " + render(w, Lang.EN) for w in decision.warnings}


FIVE = {"memory": "no", "model_parallel": "no", "frequency": "daily"}


def test_a_long_run_that_cannot_stop_on_a_short_day_is_flagged() -> None:
    found = _warnings(duration="48h", can_resume="no", schedule="8x10", **FIVE)
    assert "run_longer_than_schedule_day" in found
    assert (
        "48 h run that cannot be interrupted does not fit a schedule of 8 h a day"
        in found["run_longer_than_schedule_day"]
    )
    assert "单次 48 小时且不能中断" in found["run_longer_than_schedule_day"]
    # the same run that resumes from a checkpoint, or a schedule as long as the run: nothing to flag
    assert "run_longer_than_schedule_day" not in _warnings(duration="48h", can_resume="yes", schedule="8x10", **FIVE)
    assert "run_longer_than_schedule_day" not in _warnings(duration="6h", can_resume="no", schedule="8x10", **FIVE)


def test_a_memory_answer_about_another_card_and_a_peak_above_it_are_flagged() -> None:
    base = {"duration": "3h", "model_parallel": "no", "frequency": "daily", "can_resume": "yes"}
    found = _warnings(memory="24G的卡用了20G", gpu="A100-80GB", **base)
    assert "card of 24 GB, but the advice is for the A100-80GB (80 GB)" in found["memory_answer_other_card"]
    assert "memory_answer_other_card" not in _warnings(memory="80G的卡用了70G", **base)
    above = _warnings(memory="200/80", **base)
    assert "A peak of 200 GB is more than the 80 GB card" in above["memory_peak_above_named_card"]


def test_more_cards_asked_than_the_memory_needs_say_both_numbers_and_whole_nodes() -> None:
    answers = {"workload": "full-finetune", "duration": "2d", "memory": "70B 全参微调", "model_parallel": "yes"}
    decision = evaluate(
        build_profile(parse_answers({**answers, "frequency": "daily", "can_resume": "yes", "cards": "64"})), POLICY
    )
    said = {a.id: render(a, Lang.EN) for a in decision.advice}
    assert decision.cards == 64  # what was asked for is rented
    assert "it needs 17 cards with model parallelism" in said["memory_exceeds_card"]
    assert "17 cards; at 8 cards a node that is 3 nodes, 24 cards" in said["memory_cards_whole_nodes"]
    assert "You asked for 64 cards; the memory peak needs 17" in said["cards_beyond_memory"]
    assert "17 × A100-80GB" in said["memory_from_model_cards"]


def test_runs_that_add_up_to_more_than_a_day_are_flagged() -> None:
    """Issue 51: 10-hour runs two to three times a day are 20-30 hours a day (read at the upper end, 30)."""
    found = _warnings(duration="10h", frequency="一天两三次", memory="no", model_parallel="no", can_resume="yes")
    said = found["runs_longer_than_a_day"]
    assert "3 runs a day of 10 h each is 30 hours a day" in said and "每天 3 次、每次 10 小时，合计每天 30 小时" in said
    assert "runs_longer_than_a_day" not in _warnings(duration="10h", frequency="twice a day", **FIVE_BUT_FREQUENCY)


FIVE_BUT_FREQUENCY = {"memory": "no", "model_parallel": "no", "can_resume": "yes"}


def test_the_yearly_gpu_hours_follow_the_schedule_given() -> None:
    """Issue 51: 8,760 a year was shown beside a 10 h a day x 14 days quote; the schedule is 140 hours a card."""
    answers = {"duration": "10h", "frequency": "daily", "schedule": "10x14", **FIVE_BUT_FREQUENCY}
    decision = evaluate(build_profile(parse_answers(answers)), POLICY)
    cost = {a.id: a.params for a in decision.advice}
    assert cost["rent_not_buy"]["hours"] == 140
    without = evaluate(build_profile(parse_answers({k: v for k, v in answers.items() if k != "schedule"})), POLICY)
    assert {a.id: a.params for a in without.advice}["consider_buying"]["hours"] == 3640  # 10 h x 7 x 52
