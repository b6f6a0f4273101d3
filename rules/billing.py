"""How to pay: billing, spot, rent vs buy, regions and platforms (both seed articles; domain.md).

An inference service runs all day: it is billed as a service, never told to release its instance
when "the job ends", and never put on spot when its latency matters. Spot is offered only to jobs
that can resume from a checkpoint.
"""

from __future__ import annotations

from rules.decision import Advice, Basis, Choice, Param, Topic
from rules.gpus import gpu_model
from rules.policy import Policy
from rules.profile import DurationBucket, FrequencyLevel, TaskProfile, Workload

WEEKS_A_YEAR = 52
HOURS_A_WEEK = 7 * 24
HOURS_A_YEAR = 8760  # a card runs at most this many hours a year
_LONG_BATCH = {Workload.PRETRAIN, Workload.FULL_FINETUNE}


def _advice(topic: Topic, rule_id: str, **params: Param) -> Advice:
    return Advice(topic=topic, id=rule_id, params=params)


def spot_fit(profile: TaskProfile, choice: Choice, basis: Basis) -> tuple[bool, str | None]:
    """(spot suits the job, why not): never for a latency-critical service, never for a service's
    serving instances (a reclaimed one drops requests), never for a job that cannot resume."""
    if profile.workload is Workload.INFERENCE:
        return False, "latency_critical" if basis is Basis.INFERENCE and choice is Choice.DEDICATED else "service"
    if profile.can_resume is False or profile.checkpointing is False:
        return False, "cannot_resume"
    if profile.can_resume is None and profile.checkpointing is None:
        return False, "resume_unknown"
    return True, None


def frequency_high(profile: TaskProfile, policy: Policy) -> bool | None:
    answer = profile.frequency
    if answer is None:
        return None
    if answer.level is not None:
        return answer.level is FrequencyLevel.HIGH
    return (answer.runs_per_week or 0) >= policy.frequency.high_min_runs_per_week


def _spot_advice(policy: Policy, spot_ok: bool, reason: str | None) -> list[Advice]:
    if spot_ok:
        return [
            _advice(
                Topic.BILLING,
                "billing_spot",
                low_pct=round(policy.spot.price_fraction_min * 100),
                high_pct=round(policy.spot.price_fraction_max * 100),
                save_low_pct=round(policy.spot.checkpoint_savings_min * 100),
                save_high_pct=round(policy.spot.checkpoint_savings_max * 100),
            )
        ]
    return [_advice(Topic.BILLING, f"spot_not.{reason}")] if reason else []


def _service_billing(profile: TaskProfile, policy: Policy, choice: Choice) -> list[Advice]:
    if choice is Choice.DEDICATED:
        return [_advice(Topic.BILLING, "billing_service_dedicated")]
    busy = profile.qps is not None and not profile.qps_below and profile.qps >= policy.inference.low_qps
    if busy:  # busy, but its latency target is loose
        return [_advice(Topic.BILLING, "billing_service_shared_busy", qps=profile.qps, p99_ms=profile.p99_said())]
    return [_advice(Topic.BILLING, "billing_service_shared")]


def _batch_billing(profile: TaskProfile, policy: Policy, choice: Choice) -> list[Advice]:
    out: list[Advice] = []
    high = frequency_high(profile, policy)
    runs = profile.frequency.runs_per_week if profile.frequency else None
    if choice is Choice.DEDICATED:
        if high is True:
            out.append(_advice(Topic.BILLING, "billing_dedicated_monthly", runs_per_week=runs))
            if gpu_model(profile.gpu).domestic:  # seed 004: test a small batch before a month of domestic cards
                out.append(_advice(Topic.BILLING, "domestic_cuda_check", gpu=profile.gpu))
        elif high is False:
            out.append(_advice(Topic.BILLING, "billing_dedicated_hourly", runs_per_week=runs))
        return out
    out.append(_advice(Topic.BILLING, "billing_shared_hourly"))
    hours = profile.duration.hours if profile.duration else None
    short = (hours is not None and hours <= 2) or (
        profile.duration is not None and profile.duration.bucket is DurationBucket.SHORT
    )
    if runs is not None and runs >= 14 and short:
        out.append(_advice(Topic.BILLING, "shared_suits_gaps", runs_per_week=runs))
    out.append(_advice(Topic.BILLING, "shared_offpeak"))
    return out


def billing_advice(profile: TaskProfile, policy: Policy, choice: Choice, spot: tuple[bool, str | None]) -> list[Advice]:
    if profile.workload is Workload.INFERENCE:
        return _service_billing(profile, policy, choice) + _spot_advice(policy, *spot)
    out = _batch_billing(profile, policy, choice) + _spot_advice(policy, *spot)
    out.append(_advice(Topic.BILLING, "release_when_done"))
    return out


def yearly_gpu_hours(profile: TaskProfile, cards: int) -> float | None:
    """GPU-hours a year: as answered; else the schedule given (hours a day x its days, at most a year's); else one
    run's hours x runs a week x 52 weeks x cards. A run longer than the time between runs is continuous use: a card
    gives at most 8,760 hours a year."""
    if profile.yearly_gpu_hours is not None:
        return profile.yearly_gpu_hours
    if profile.schedule is not None:  # "10 h a day for 14 days": 140 hours a card, not a year of daily runs
        days = min(profile.schedule.days, HOURS_A_YEAR / 24)
        return round(min(profile.schedule.hours_per_day * days, HOURS_A_YEAR) * cards, 1)
    hours = profile.duration.hours if profile.duration else None
    runs = profile.frequency.runs_per_week if profile.frequency else None
    if hours is None or runs is None:
        return None
    busy_a_week = hours * runs
    per_card = HOURS_A_YEAR if busy_a_week >= HOURS_A_WEEK else min(busy_a_week * WEEKS_A_YEAR, HOURS_A_YEAR)
    return round(per_card * cards, 1)


def cost_advice(profile: TaskProfile, policy: Policy, cards: int) -> list[Advice]:
    out: list[Advice] = []
    yearly = yearly_gpu_hours(profile, cards)
    if yearly is not None:
        limit = policy.rent_vs_buy.gpu_hours_per_year
        # "年使用时长在2000小时以内": the use of one card you would own (each card bought costs its own)
        per_card = round(yearly / max(cards, 1), 1)
        rule = "rent_not_buy" if per_card <= limit else "consider_buying"  # "2,000 hours or less": rent
        out.append(_advice(Topic.COST, rule, hours=yearly, per_card=per_card, cards=cards, threshold=limit))
    if profile.workload is Workload.INFERENCE:
        return out
    long_run = profile.duration is not None and (
        profile.duration.bucket is DurationBucket.LONG
        or (profile.duration.hours or 0) > policy.two_of_four.long_run_hours
    )
    if long_run or profile.workload in _LONG_BATCH:
        regions = policy.regions
        out.append(
            _advice(
                Topic.COST,
                "region_inland",
                low_pct=round(regions.inland_discount_min * 100),
                high_pct=round(regions.inland_discount_max * 100),
            )
        )
    out.append(_advice(Topic.COST, "compare_platforms"))
    return out
