from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.text import Lang
from bot.text.reasons import render, unanswered
from rules.answers import build_profile, parse_answers
from rules.decision import Choice, HitRule
from rules.engine import evaluate
from rules.errors import ParseError
from rules.gpus import gpu_model
from rules.policy import Policy
from rules.profile import TaskProfile

BASE = {"duration": "3h", "memory": "20/80", "model_parallel": "no", "frequency": "weekly", "can_resume": "yes"}


def decide(policy: Policy, **answers: str) -> Any:
    profile = build_profile(parse_answers(BASE | answers))
    return evaluate(profile, policy)


def hit_rules(decision: Any) -> list[str]:
    return [c.rule.value for c in decision.hits]


def test_no_hits_gives_shared(policy: Policy) -> None:
    decision = decide(policy)
    assert decision.choice is Choice.SHARED
    assert hit_rules(decision) == []


def test_eight_hours_is_not_a_long_run(policy: Policy) -> None:
    assert hit_rules(decide(policy, duration="8h")) == []


def test_just_over_eight_hours_is_a_long_run(policy: Policy) -> None:
    assert hit_rules(decide(policy, duration="8.5 hours")) == ["long_run"]


def test_more_than_eight_hours_counts_as_long(policy: Policy) -> None:
    assert hit_rules(decide(policy, duration="超过8小时")) == ["long_run"]
    assert hit_rules(decide(policy, duration=">8h")) == ["long_run"]


def test_sixty_four_of_eighty_is_not_tight(policy: Policy) -> None:
    assert hit_rules(decide(policy, memory="64 GB of 80")) == []


def test_sixty_five_of_eighty_is_tight(policy: Policy) -> None:
    assert hit_rules(decide(policy, memory="65/80")) == ["memory_tight"]


def test_eighty_percent_is_not_tight_but_81_is(policy: Policy) -> None:
    assert hit_rules(decide(policy, memory="80%")) == []
    assert hit_rules(decide(policy, memory="81%")) == ["memory_tight"]


def test_peak_without_card_size_uses_the_profile_gpu(policy: Policy) -> None:
    assert hit_rules(decide(policy, memory="70GB")) == ["memory_tight"]  # of the default 80 GB
    assert hit_rules(decide(policy, memory="70GB", gpu="H200")) == []  # 70 of 141 GB


def test_exactly_two_hits_gives_dedicated(policy: Policy) -> None:
    decision = decide(policy, duration="10h", can_resume="不能")
    assert decision.choice is Choice.DEDICATED
    assert hit_rules(decision) == ["long_run", "no_interruption"]


def test_one_hit_gives_shared(policy: Policy) -> None:
    decision = decide(policy, model_parallel="yes")
    assert decision.choice is Choice.SHARED
    assert hit_rules(decision) == ["model_parallel"]


def test_frequency_is_never_a_hit(policy: Policy) -> None:
    decision = decide(policy, frequency="daily", duration="10h")
    assert decision.choice is Choice.SHARED
    assert hit_rules(decision) == ["long_run"]


def test_all_four_hits(policy: Policy) -> None:
    decision = decide(policy, duration="2 days", memory="yes", model_parallel="需要", can_resume="no")
    assert decision.choice is Choice.DEDICATED
    assert set(hit_rules(decision)) == {r.value for r in HitRule}


def test_hit_carries_the_answer_and_threshold(policy: Policy) -> None:
    decision = decide(policy, memory="70 GB of 80")
    (hit,) = decision.hits
    assert hit.params == {"peak_gb": 70.0, "card_gb": 80.0, "pct": 87.5, "threshold_pct": 80}


def test_policy_threshold_changes_the_decision(policy: Policy) -> None:
    stricter = replace(policy, two_of_four=replace(policy.two_of_four, long_run_hours=12))
    assert hit_rules(decide(stricter, duration="10h")) == []


def test_missing_questions_are_reported(policy: Policy) -> None:
    profile = build_profile(parse_answers({"duration": "10h", "can_resume": "no"}))
    decision = evaluate(profile, policy)
    assert decision.choice is Choice.DEDICATED
    assert [q.value for q in decision.missing] == ["memory", "model_parallel", "frequency"]
    said = unanswered(decision.missing, Lang.ZH)  # as people name them: `memory, model_parallel` were the keys
    assert said == "未回答（按未命中计）: 显存峰值, 模型并行, 训练频率", said


def test_a_service_is_not_said_to_miss_the_training_questions(policy: Policy) -> None:
    """A service decided by its load, then by its memory (a 70B model needs two cards): it listed the run length,
    model parallelism, frequency and resuming as "not answered (counted as no hit)", none of which a service is
    asked."""
    profile = build_profile(parse_answers({"workload": "inference", "qps": "300", "p99_ms": "<50ms", "memory": "70B"}))
    decision = evaluate(profile, policy)
    assert decision.choice is Choice.DEDICATED and decision.missing == []


# --- scenarios (domain.md) ---------------------------------------------------------------------


def advice_ids(decision: Any) -> list[str]:
    return [a.id for a in decision.advice]


def test_pretraining_profile_is_dedicated_with_nvlink_advice(policy: Policy) -> None:
    decision = decide(
        policy,
        duration="3 weeks",
        memory="78/80",
        model_parallel="yes",
        frequency="daily",
        can_resume="yes",
        workload="pretrain",
        cards="8",
    )
    assert decision.choice is Choice.DEDICATED
    assert {"scenario_pretrain", "comm_model_parallel", "billing_dedicated_monthly"} <= set(advice_ids(decision))


def test_lora_7b_fits_a_quarter_slice(policy: Policy) -> None:
    decision = decide(policy, workload="lora", model_size_b="7b", memory="no")
    assert decision.choice is Choice.SHARED
    # 14.1 GB of frozen weights and adapters, 0.5 of adapter gradients and Adam state, 20% activations,
    # 1.5 GB overhead = 19.0 GB (the articles: "20 GB is enough"): 1g.20gb, a quarter card
    assert decision.memory_peak_gb == pytest.approx(19.0)
    assert decision.mig_profile == "1g.20gb"
    assert decision.share_fraction == pytest.approx(0.25)
    assert "scenario_lora" in advice_ids(decision)


def test_the_larger_of_answer_and_estimate_picks_the_slice(policy: Policy) -> None:
    decision = decide(policy, workload="lora", model_size_b="7b", memory="35GB")  # estimate 19 GB
    assert decision.mig_profile == "3g.40gb"
    assert decision.warnings == []  # both say "not tight": no disagreement


def test_hpo_is_shared(policy: Policy) -> None:
    decision = decide(policy, workload="hpo")
    assert decision.choice is Choice.SHARED
    assert "scenario_hpo" in advice_ids(decision)


def test_lora_answers_that_say_dedicated_are_flagged(policy: Policy) -> None:
    decision = decide(policy, workload="qlora", duration="10h", can_resume="no")
    assert decision.choice is Choice.DEDICATED
    assert "scenario_conflict" in advice_ids(decision)


def test_gpu_without_mig_is_shared_by_a_fraction(policy: Policy) -> None:
    decision = decide(policy, gpu="RTX 4090", memory="10GB")
    assert decision.mig_profile is None and decision.shared is not None
    assert (decision.shared.kind.value, decision.shared.share, decision.shared.memory_gb) == ("fraction", 0.5, 12)
    assert "isolation_fraction" in advice_ids(decision)


def test_gpu_without_mig_and_no_peak_assumes_the_default_share(policy: Policy) -> None:
    decision = decide(policy, gpu="RTX 4090", memory="no")
    assert "isolation_no_mig_sharing" in advice_ids(decision) and "isolation_bound" in advice_ids(decision)
    no_answer = {"gpu": "RTX 4090", "workload": "inference", "qps": "20", "p99_ms": "300"}  # no memory answer
    assert "isolation_no_mig" in advice_ids(evaluate(build_profile(parse_answers(no_answer)), policy))


def test_memory_hungry_shared_job_is_warned_off_time_slicing(policy: Policy) -> None:
    decision = decide(policy, memory="60/80")
    assert decision.choice is Choice.SHARED
    assert "timeslice_warning" in advice_ids(decision)
    # 60 GB fits no slice smaller than the whole card
    assert decision.share_fraction == 1.0
    assert "isolation_whole_card" in advice_ids(decision)


# --- inference --------------------------------------------------------------------------------


def inference(policy: Policy, qps: float, p99: float) -> Any:
    return evaluate(TaskProfile(workload="inference", qps=qps, p99_ms=p99), policy)


def test_high_qps_and_strict_p99_is_dedicated(policy: Policy) -> None:
    decision = inference(policy, 300, 40)
    assert decision.choice is Choice.DEDICATED
    assert decision.basis.value == "inference"
    assert decision.missing == []


def test_high_qps_with_loose_p99_is_shared(policy: Policy) -> None:
    assert inference(policy, 300, 50).choice is Choice.SHARED  # 50 ms is not below 50 ms


def test_low_qps_with_strict_p99_is_shared(policy: Policy) -> None:
    assert inference(policy, 99, 20).choice is Choice.SHARED
    assert inference(policy, 100, 20).choice is Choice.DEDICATED  # 100 is high


def test_inference_without_qps_falls_back_to_two_of_four(policy: Policy) -> None:
    decision = evaluate(TaskProfile(workload="inference"), policy)
    assert decision.basis.value == "two_of_four"
    assert "inference_needs_qps" in advice_ids(decision)


# --- phase, billing, rent vs buy ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "advice_id"),
    [
        ("exploration", "phase_exploration"),
        ("stable", "phase_stable"),
        ("deployment", "phase_deployment"),
        ("探索", "phase_exploration"),
        ("部署", "phase_deployment"),
    ],
)
def test_phase_advice(policy: Policy, phase: str, advice_id: str) -> None:
    assert advice_id in advice_ids(decide(policy, phase=phase))


def test_dedicated_and_daily_bills_by_month(policy: Policy) -> None:
    ids = advice_ids(decide(policy, duration="10h", can_resume="no", frequency="每天"))
    assert "billing_dedicated_monthly" in ids


def test_dedicated_and_rare_bills_by_hour(policy: Policy) -> None:
    ids = advice_ids(decide(policy, duration="10h", can_resume="no", frequency="3 times a week"))
    assert "billing_dedicated_hourly" in ids


def test_resumable_job_gets_spot_advice(policy: Policy) -> None:
    decision = decide(policy, checkpointing="yes")
    assert decision.spot_suitable
    assert "billing_spot" in advice_ids(decision)


def test_job_that_cannot_resume_is_told_to_checkpoint(policy: Policy) -> None:
    decision = decide(policy, can_resume="no")
    assert not decision.spot_suitable and decision.spot_reason == "cannot_resume"
    assert "spot_not.cannot_resume" in advice_ids(decision) and "billing_spot" not in advice_ids(decision)


def test_rent_vs_buy_at_2000_hours_a_year_is_rent(policy: Policy) -> None:
    # seed 004: "年使用时长在2000小时以内" includes 2,000
    assert "rent_not_buy" in advice_ids(decide(policy, yearly_gpu_hours="2000"))
    assert "consider_buying" in advice_ids(decide(policy, yearly_gpu_hours="2001"))


def test_rent_vs_buy_compares_each_cards_hours_with_the_threshold(policy: Policy) -> None:
    """Issue 33.1.3: 4 cards 3 h a day every day were "about 4,368 GPU-hours, above 2,000": 1,092 a card."""
    decision = decide(policy, duration="3h", frequency="daily", cards="4")
    rent = next(a for a in decision.advice if a.id == "rent_not_buy")
    assert (rent.params["hours"], rent.params["per_card"], rent.params["cards"]) == (4368.0, 1092.0, 4)


def test_yearly_hours_come_from_run_length_and_frequency(policy: Policy) -> None:
    decision = decide(policy, duration="3h", frequency="3 times a week")
    assert decision.yearly_gpu_hours == 3 * 3 * 52
    rent = next(a for a in decision.advice if a.id == "rent_not_buy")
    assert rent.params["hours"] == 468


def test_data_parallel_on_several_cards_is_fine_on_pcie(policy: Policy) -> None:
    assert "comm_data_parallel" in advice_ids(decide(policy, cards="4"))


def test_evaluate_is_deterministic(policy: Policy) -> None:
    assert decide(policy, duration="10h") == decide(policy, duration="10h")


@pytest.mark.parametrize(
    ("duration", "frequency", "cards", "expected"),
    [
        ("2 weeks", "daily", "1", 8760.0),  # was 122,304: a run longer than a day, daily, is the card all year
        ("2 weeks", "daily", "2", 17520.0),
        ("3 weeks", "weekly", "17", 17 * 8760.0),  # was 445,536
        ("4h", "daily", "1", 4 * 7 * 52.0),  # short runs are unchanged
    ],
)
def test_yearly_gpu_hours_never_exceed_the_hours_a_card_has(
    policy: Policy, duration: str, frequency: str, cards: str, expected: float
) -> None:
    answers = {
        "duration": duration,
        "memory": "40/80",
        "model_parallel": "no",
        "frequency": frequency,
        "can_resume": "yes",
        "cards": cards,
    }
    decision = evaluate(build_profile(parse_answers(answers)), policy)
    assert decision.yearly_gpu_hours == expected
    assert decision.yearly_gpu_hours <= decision.cards * 8760


@pytest.mark.parametrize(
    ("spelling", "canonical", "memory_gb"),
    [
        ("Ascend 910B", "Ascend-910B-64GB", 64),
        ("910B", "Ascend-910B-64GB", 64),
        ("Cambricon MLU370-X8", "MLU370-X8-48GB", 48),
        ("Hygon DCU Z100", "DCU-Z100-32GB", 32),
    ],
)
def test_domestic_accelerators_are_gpus_with_their_memory(spelling: str, canonical: str, memory_gb: float) -> None:
    assert gpu_model(spelling).name == canonical and gpu_model(spelling).memory_gb == memory_gb


def test_the_domestic_check_is_said_only_for_domestic_accelerators(policy: Policy) -> None:
    """Issue 17.7: the CUDA check was said on every daily dedicated job, A100 and H100 included."""
    answers = {"duration": "10h", "memory": "40GB", "model_parallel": "no", "frequency": "daily", "can_resume": "no"}
    for gpu in ("A100-80GB", "H100"):
        ids = advice_ids(evaluate(build_profile(parse_answers(answers | {"gpu": gpu})), policy))
        assert "domestic_cuda_check" not in ids and "domestic_accelerator" not in ids
    ascend = evaluate(build_profile(parse_answers(answers | {"gpu": "Ascend 910B"})), policy)
    assert ascend.choice is Choice.DEDICATED and ascend.gpu == "Ascend-910B-64GB"
    assert {"domestic_cuda_check", "domestic_accelerator"} <= set(advice_ids(ascend))
    port = next(a for a in ascend.advice if a.id == "domestic_accelerator")
    assert "CANN" in str(port.params["stack"])


def test_more_cards_than_a_node_holds_is_multi_node_training(policy: Policy) -> None:
    """Issue 17.8: 'keep the cards in one node on NVLink/SXM' was said for 17 and 64 cards."""
    answers = {
        "duration": "10h",
        "memory": "1300GB",
        "model_parallel": "yes",
        "frequency": "daily",
        "can_resume": "yes",
    }
    needed = evaluate(build_profile(parse_answers(answers)), policy)
    assert needed.cards == 17
    assert "comm_multi_node" in advice_ids(needed) and "comm_model_parallel" not in advice_ids(needed)
    asked = evaluate(build_profile(parse_answers(answers | {"cards": "64"})), policy)
    beyond = next(a for a in asked.advice if a.id == "cards_beyond_memory")
    assert asked.cards == 64 and beyond.params == {"asked": 64, "needed": 17}
    one_node = evaluate(build_profile(parse_answers(answers | {"memory": "300GB"})), policy)
    assert one_node.cards == 4 and "comm_model_parallel" in advice_ids(one_node)
    assert "comm_multi_node" not in advice_ids(one_node)


def test_service_sentences_fit_a_service_and_its_concurrency(policy: Policy) -> None:
    """Issue 17.9: 'a low-concurrency service can share a card' was said at 300 QPS, 'no spot until the
    job can resume from a checkpoint' to a service, and 'costs below' with no costs below."""

    def service(qps: str, p99: str) -> Any:
        return evaluate(build_profile(parse_answers({"workload": "inference", "qps": qps, "p99_ms": p99})), policy)

    busy, quiet = service("300", "200"), service("20", "200")
    assert "billing_service_shared_busy" in advice_ids(busy) and "billing_service_shared" not in advice_ids(busy)
    assert "billing_service_shared" in advice_ids(quiet)
    for decision in (busy, quiet):
        assert decision.spot_reason == "service" and "spot_not.service" in advice_ids(decision)
        assert "spot_not.resume_unknown" not in advice_ids(decision)
        texts = [render(a, Lang.EN) + render(a, Lang.ZH) for a in decision.advice]
        assert not any("costs below" in text or "下方费用" in text for text in texts)
    assert service("300", "40").spot_reason == "latency_critical"


@pytest.mark.parametrize(
    ("answer", "cards", "expected"),
    [("yes", "1", 2), ("yes, 4 cards", "1", 4), ("需要，8卡", "1", 8), ("4", "1", 4), ("yes, 4 cards", "8", 8)],
)
def test_model_parallelism_means_two_cards_or_the_count_it_names(
    policy: Policy, answer: str, cards: str, expected: int
) -> None:
    """Issue 33.1.1: `--model-parallel yes` was priced as one card; the question is "2张以上卡做模型并行"."""
    decision = decide(policy, model_parallel=answer, cards=cards)
    assert decision.cards == expected
    disagree = [a for a in decision.advice if a.id == "model_parallel_cards_disagree"]
    assert bool(disagree) == (answer == "yes, 4 cards" and cards == "8")  # --cards 8 against 4 named: said


def test_a_no_that_names_cards_is_refused_as_ambiguous() -> None:
    from rules.parsing import parse_model_parallel

    with pytest.raises(ParseError):
        parse_model_parallel("no, 4 cards")
    assert parse_model_parallel("不需要") is False and parse_model_parallel("需要8卡") is True
