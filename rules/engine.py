"""The decision engine: evaluate(profile, policy) -> Decision. Pure and deterministic."""

from __future__ import annotations

from rules.decision import Advice, Basis, Check, Choice, Decision, HitRule, Param, Topic
from rules.gpus import GPUModel, gpu_model, smallest_mig_profile
from rules.memory import estimate_training_gb
from rules.policy import Policy
from rules.profile import DurationBucket, FrequencyLevel, Phase, TaskProfile, Workload

_TRAINING = {Workload.PRETRAIN, Workload.FULL_FINETUNE, Workload.LORA, Workload.QLORA}


def _advice(topic: Topic, rule_id: str, **params: Param) -> Advice:
    return Advice(topic=topic, id=rule_id, params=params)


def _check_duration(profile: TaskProfile, policy: Policy) -> Check | None:
    answer = profile.duration
    if answer is None:
        return None
    limit = policy.two_of_four.long_run_hours
    if answer.hours is not None:
        fired = answer.hours > limit or (answer.above and answer.hours >= limit)
        return Check(rule=HitRule.LONG_RUN, fired=fired, id="long_run_above" if answer.above else "long_run_hours",
                     params={"hours": answer.hours, "threshold": limit})
    return Check(rule=HitRule.LONG_RUN, fired=answer.bucket is DurationBucket.LONG, id="long_run_bucket",
                 params={"bucket": str(answer.bucket), "threshold": limit})


def _memory_peak(profile: TaskProfile, card: GPUModel) -> tuple[float | None, float]:
    """(peak GB if known, card GB the answer refers to)."""
    answer = profile.memory
    card_gb = (answer.card_gb if answer and answer.card_gb else None) or card.memory_gb
    if answer is None:
        return None, card_gb
    if answer.peak_gb is not None:
        return answer.peak_gb, card_gb
    if answer.fraction is not None:
        return round(answer.fraction * card_gb, 2), card_gb
    return None, card_gb


def _check_memory(profile: TaskProfile, policy: Policy, card: GPUModel) -> Check | None:
    answer = profile.memory
    if answer is None:
        return None
    limit = policy.two_of_four.memory_tight_fraction
    peak, card_gb = _memory_peak(profile, card)
    if peak is None:
        return Check(rule=HitRule.MEMORY_TIGHT, fired=bool(answer.tight), id="memory_tight_answer",
                     params={"tight": bool(answer.tight), "threshold_pct": round(limit * 100)})
    share = answer.fraction if answer.fraction is not None else peak / card_gb
    return Check(rule=HitRule.MEMORY_TIGHT, fired=share > limit, id="memory_tight_share",
                 params={"peak_gb": round(peak, 2), "card_gb": card_gb, "pct": round(share * 100, 1),
                         "threshold_pct": round(limit * 100)})


def _checks(profile: TaskProfile, policy: Policy, card: GPUModel) -> list[Check]:
    checks = [_check_duration(profile, policy), _check_memory(profile, policy, card)]
    if profile.model_parallel is not None:
        checks.append(Check(rule=HitRule.MODEL_PARALLEL, fired=profile.model_parallel,
                            id="model_parallel", params={"answer": profile.model_parallel}))
    if profile.can_resume is not None:
        checks.append(Check(rule=HitRule.NO_INTERRUPTION, fired=not profile.can_resume,
                            id="no_interruption", params={"can_resume": profile.can_resume}))
    return [c for c in checks if c is not None]


def _inference_choice(profile: TaskProfile, policy: Policy) -> tuple[Choice, Advice] | None:
    if profile.workload is not Workload.INFERENCE or profile.qps is None or profile.p99_ms is None:
        return None
    rule = policy.inference
    high = profile.qps >= rule.high_qps
    strict = profile.p99_ms < rule.p99_ms_below
    choice = Choice.DEDICATED if high and strict else Choice.SHARED
    return choice, _advice(Topic.DECISION, f"inference_{choice.value}", qps=profile.qps, p99_ms=profile.p99_ms,
                           high_qps=rule.high_qps, p99_below=rule.p99_ms_below, qps_high=high, p99_strict=strict)


def _scenario(profile: TaskProfile, choice: Choice) -> list[Advice]:
    workload = profile.workload
    out: list[Advice] = []
    if workload in (Workload.PRETRAIN, Workload.FULL_FINETUNE):
        out.append(_advice(Topic.SCENARIO, "scenario_pretrain"))
        if choice is Choice.SHARED:
            out.append(_advice(Topic.SCENARIO, "scenario_conflict", workload=workload.value, expected="dedicated"))
    elif workload in (Workload.LORA, Workload.QLORA):
        out.append(_advice(Topic.SCENARIO, "scenario_lora", workload=workload.value))
        if choice is Choice.DEDICATED:
            out.append(_advice(Topic.SCENARIO, "scenario_conflict", workload=workload.value, expected="shared"))
    elif workload is Workload.HPO:
        out.append(_advice(Topic.SCENARIO, "scenario_hpo"))
    elif workload is Workload.DEBUG:
        out.append(_advice(Topic.SCENARIO, "scenario_debug"))
    elif workload is Workload.INFERENCE and (profile.qps is None or profile.p99_ms is None):
        out.append(_advice(Topic.SCENARIO, "inference_needs_qps"))
    return out


def _phase(profile: TaskProfile) -> list[Advice]:
    if profile.phase is Phase.EXPLORATION:
        return [_advice(Topic.PHASE, "phase_exploration")]
    if profile.phase is Phase.STABLE:
        return [_advice(Topic.PHASE, "phase_stable")]
    if profile.phase is Phase.DEPLOYMENT:
        return [_advice(Topic.PHASE, "phase_deployment", inference=profile.workload is Workload.INFERENCE)]
    return []


def _frequency_high(profile: TaskProfile, policy: Policy) -> bool | None:
    answer = profile.frequency
    if answer is None:
        return None
    if answer.level is not None:
        return answer.level is FrequencyLevel.HIGH
    return (answer.runs_per_week or 0) >= policy.frequency.high_min_runs_per_week


def _billing(profile: TaskProfile, policy: Policy, choice: Choice) -> tuple[list[Advice], bool]:
    out: list[Advice] = []
    high = _frequency_high(profile, policy)
    runs = profile.frequency.runs_per_week if profile.frequency else None
    if choice is Choice.DEDICATED:
        if high is True:
            out.append(_advice(Topic.BILLING, "billing_dedicated_monthly", runs_per_week=runs))
        elif high is False:
            out.append(_advice(Topic.BILLING, "billing_dedicated_hourly", runs_per_week=runs))
    else:
        out.append(_advice(Topic.BILLING, "billing_shared_hourly"))
    spot = profile.can_resume is True and profile.checkpointing is not False
    spot = spot or (profile.checkpointing is True and profile.can_resume is not False)
    if spot and profile.workload is not Workload.INFERENCE:
        out.append(_advice(Topic.BILLING, "billing_spot",
                           low_pct=round(policy.spot.price_fraction_min * 100),
                           high_pct=round(policy.spot.price_fraction_max * 100),
                           save_low_pct=round(policy.spot.checkpoint_savings_min * 100),
                           save_high_pct=round(policy.spot.checkpoint_savings_max * 100)))
    elif profile.checkpointing is False or profile.can_resume is False:
        out.append(_advice(Topic.BILLING, "checkpoint_first"))
    out.append(_advice(Topic.BILLING, "release_when_done"))
    return out, spot and profile.workload is not Workload.INFERENCE


def _isolation(
    choice: Choice, card: GPUModel, peak: float | None, tight: bool, default_share: float
) -> tuple[list[Advice], str | None, float]:
    """Advice on how to share, the MIG profile that fits, and the share of a card to quote."""
    if choice is Choice.DEDICATED:
        return [], None, 1.0
    out: list[Advice] = []
    profile_name, fraction = None, default_share
    if not card.mig:
        out.append(_advice(Topic.ISOLATION, "isolation_no_mig", gpu=card.name,
                           share_pct=round(default_share * 100)))
    elif peak is None:
        out.append(_advice(Topic.ISOLATION, "isolation_unknown_peak", gpu=card.name,
                           share_pct=round(default_share * 100)))
    else:
        fit = smallest_mig_profile(card, peak)
        if fit is None or fit.compute_slices == 7:
            out.append(_advice(Topic.ISOLATION, "isolation_whole_card", gpu=card.name, peak_gb=peak))
            fraction = 1.0
        else:
            profile_name = fit.name
            fraction = fit.memory_gb / card.memory_gb
            out.append(_advice(Topic.ISOLATION, "isolation_mig", gpu=card.name, profile=fit.name,
                               peak_gb=peak, slice_gb=fit.memory_gb, max_count=fit.max_count))
    if tight or (peak is not None and peak / card.memory_gb > 0.5):
        out.append(_advice(Topic.ISOLATION, "timeslice_warning"))
    return out, profile_name, fraction


def _communication(profile: TaskProfile) -> list[Advice]:
    if profile.model_parallel:
        return [_advice(Topic.COMMUNICATION, "comm_model_parallel")]
    if profile.model_parallel is False and profile.cards > 1:
        return [_advice(Topic.COMMUNICATION, "comm_data_parallel", cards=profile.cards)]
    return []


def _costs(profile: TaskProfile, policy: Policy) -> list[Advice]:
    out: list[Advice] = []
    if profile.yearly_gpu_hours is not None:
        limit = policy.rent_vs_buy.gpu_hours_per_year
        rule_id = "rent_not_buy" if profile.yearly_gpu_hours < limit else "consider_buying"
        out.append(_advice(Topic.COST, rule_id, hours=profile.yearly_gpu_hours, threshold=limit))
    if profile.workload is not Workload.INFERENCE:
        regions = policy.regions
        out.append(_advice(Topic.COST, "region_inland", low_pct=round(regions.inland_discount_min * 100),
                           high_pct=round(regions.inland_discount_max * 100)))
    return out


def evaluate(profile: TaskProfile, policy: Policy) -> Decision:
    """Decide dedicated vs shared for `profile` under `policy`, with every reason that fired."""
    card = gpu_model(profile.gpu)
    checks = _checks(profile, policy, card)
    needed = policy.two_of_four.hits_for_dedicated
    advice: list[Advice] = []

    inference = _inference_choice(profile, policy)
    if inference is not None:
        choice, why = inference
        basis = Basis.INFERENCE
        advice.append(why)
    else:
        hits = sum(c.fired for c in checks)
        choice = Choice.DEDICATED if hits >= needed else Choice.SHARED
        basis = Basis.TWO_OF_FOUR
        advice.append(_advice(Topic.DECISION, f"two_of_four_{choice.value}", hits=hits, needed=needed))
    missing = [] if basis is Basis.INFERENCE else profile.missing()

    peak, _ = _memory_peak(profile, card)
    if peak is None and profile.model_size_b and profile.workload in _TRAINING:
        peak = estimate_training_gb(profile.model_size_b, profile.workload, policy.memory_estimates)
        if peak is not None:
            advice.append(_advice(Topic.MEMORY, "memory_estimate", model_size_b=profile.model_size_b,
                                  workload=str(profile.workload), peak_gb=peak, card_gb=card.memory_gb))

    advice += _scenario(profile, choice)
    advice += _phase(profile)
    billing, spot = _billing(profile, policy, choice)
    advice += billing
    tight = any(c.fired for c in checks if c.rule is HitRule.MEMORY_TIGHT)
    isolation, mig_profile, fraction = _isolation(choice, card, peak, tight, policy.shared.default_share)
    advice += isolation
    advice += _communication(profile)
    advice += _costs(profile, policy)

    return Decision(choice=choice, basis=basis, checks=checks, hits_needed=needed, missing=missing,
                    advice=advice, gpu=card.name, memory_peak_gb=peak, mig_profile=mig_profile,
                    share_fraction=fraction, spot_suitable=spot)
