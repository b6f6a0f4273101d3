"""The decision engine: evaluate(profile, policy) -> Decision. Pure and deterministic."""

from __future__ import annotations

from dataclasses import replace

from rules.billing import billing_advice, cost_advice, spot_fit, yearly_gpu_hours
from rules.contradictions import contradictions
from rules.decision import Advice, Basis, Check, Choice, Decision, HitRule, Param, Topic
from rules.fit import cards_needed, shared_option
from rules.gpus import GPUModel, gpu_model
from rules.isolation import (
    beyond_one_card,
    isolation_advice,
    memory_warnings,
    model_memory_advice,
    serving_room,
)
from rules.memory import MemoryNeed, answered_peak_gb, memory_need, over_line, served
from rules.policy import Policy
from rules.profile import DurationBucket, Phase, TaskProfile, Workload


def _advice(topic: Topic, rule_id: str, **params: Param) -> Advice:
    return Advice(topic=topic, id=rule_id, params=params)


def _check_duration(profile: TaskProfile, policy: Policy) -> Check | None:
    answer = profile.duration
    if answer is None:
        return None
    limit = policy.two_of_four.long_run_hours
    if answer.hours is not None:
        fired = answer.hours > limit or (answer.above and answer.hours >= limit)
        return Check(
            rule=HitRule.LONG_RUN,
            fired=fired,
            id="long_run_above" if answer.above else "long_run_hours",
            params={"hours": answer.hours, "threshold": limit},
        )
    return Check(
        rule=HitRule.LONG_RUN,
        fired=answer.bucket is DurationBucket.LONG,
        id="long_run_bucket",
        params={"bucket": str(answer.bucket), "threshold": limit},
    )


def _check_memory(profile: TaskProfile, policy: Policy, card: GPUModel, need: MemoryNeed) -> Check | None:
    answer = profile.memory
    if answer is None:
        return None
    limit = policy.two_of_four.memory_tight_fraction
    peak, card_gb = answered_peak_gb(profile, card, policy)
    if need.estimate_tight and not need.answered_tight and need.estimate_gb is not None:
        # the model estimate puts the peak above the line the answer stayed under: it counts, and says so
        pct = round(need.estimate_gb / card.memory_gb * 100)
        return Check(
            rule=HitRule.MEMORY_TIGHT,
            fired=True,
            id="memory_tight_estimated",
            params={
                "peak_gb": round(need.estimate_gb, 1),
                "card_gb": card.memory_gb,
                "pct": pct,
                "threshold_pct": round(limit * 100),
            },
        )
    if peak is None:
        return Check(
            rule=HitRule.MEMORY_TIGHT,
            fired=bool(answer.tight),
            id="memory_tight_answer",
            params={"tight": bool(answer.tight), "threshold_pct": round(limit * 100)},
        )
    share = answer.fraction if answer.fraction is not None else peak / card_gb
    peak_said, pct_said = _as_stated(answer.low_gb, answer.bound, peak, card_gb, share)
    return Check(
        rule=HitRule.MEMORY_TIGHT,
        fired=over_line(share, limit, answer.bound),
        id="memory_tight_share",
        params={"peak_gb": peak_said, "card_gb": card_gb, "pct": pct_said, "threshold_pct": round(limit * 100)},
    )


def _as_stated(
    low_gb: float | None, bound: str | None, peak: float, card_gb: float, share: float
) -> tuple[Param, Param]:
    """The peak and its share of the card as the answer stated them: "70–80" (七十多G), ">64", "<64", or the figure."""
    pct = round(share * 100, 1)
    if low_gb is not None:
        return f"{low_gb:g}–{peak:g}", f"{round(low_gb / card_gb * 100, 1):g}–{pct:g}"
    if bound is not None:
        sign = ">" if bound == "above" else "<"
        return f"{sign}{round(peak, 2):g}", f"{sign}{pct:g}"
    return round(peak, 2), pct


def _check_model_parallel(profile: TaskProfile, peak_cards: int) -> Check | None:
    """The answer, unless the peak needs more than one card: then the model is split across cards
    (model parallelism) whatever was answered, and a "no" is said not to hold."""
    if peak_cards > 1 and profile.model_parallel is not True:
        rule_id = "model_parallel_peak_answer_no" if profile.model_parallel is False else "model_parallel_peak"
        return Check(rule=HitRule.MODEL_PARALLEL, fired=True, id=rule_id, params={"cards": peak_cards})
    if profile.model_parallel is None:
        return None
    return Check(
        rule=HitRule.MODEL_PARALLEL,
        fired=profile.model_parallel,
        id="model_parallel",
        params={"answer": profile.model_parallel},
    )


def _checks(profile: TaskProfile, policy: Policy, card: GPUModel, need: MemoryNeed, peak_cards: int) -> list[Check]:
    checks = [
        _check_duration(profile, policy),
        _check_memory(profile, policy, card, need),
        _check_model_parallel(profile, peak_cards),
    ]
    if profile.can_resume is not None:
        checks.append(
            Check(
                rule=HitRule.NO_INTERRUPTION,
                fired=not profile.can_resume,
                id="no_interruption",
                params={"can_resume": profile.can_resume},
            )
        )
    return [c for c in checks if c is not None]


def _inference_choice(profile: TaskProfile, policy: Policy) -> tuple[Choice, Advice] | None:
    if profile.workload is not Workload.INFERENCE or profile.qps is None or profile.p99_ms is None:
        return None
    rule = policy.inference
    # "不到100" (below 100) is not at 100: high only when even the bound's figure is past the line
    high = profile.qps > rule.high_qps if profile.qps_below else profile.qps >= rule.high_qps
    # a target below 50 ms is strict; one said as "<50ms" (below 50) is too, as the article's own words put it
    strict = profile.p99_ms < rule.p99_ms_below or (profile.p99_bounded and profile.p99_ms <= rule.p99_ms_below)
    choice = Choice.DEDICATED if high and strict else Choice.SHARED
    return choice, _advice(
        Topic.DECISION,
        f"inference_{choice.value}",
        qps=f"<{profile.qps:g}" if profile.qps_below else profile.qps,
        p99_ms=profile.p99_said(),
        high_qps=rule.high_qps,
        p99_below=rule.p99_ms_below,
        qps_high=high,
        p99_strict=strict,
    )


def _scenario(profile: TaskProfile, policy: Policy, choice: Choice, card: GPUModel) -> list[Advice]:
    workload = profile.workload
    out: list[Advice] = []
    if card.stack is not None:  # a domestic accelerator: CUDA code needs porting to its stack
        out.append(_advice(Topic.SCENARIO, "domestic_accelerator", gpu=card.name, stack=card.stack))
        if workload is Workload.INFERENCE:  # a serving engine built on CUDA kernels: its port, not the model's
            out.append(_advice(Topic.SCENARIO, "domestic_inference_engine", gpu=card.name))
    if workload in (Workload.PRETRAIN, Workload.FULL_FINETUNE):
        out.append(_advice(Topic.SCENARIO, "scenario_pretrain"))
        if choice is Choice.SHARED:
            out.append(_advice(Topic.SCENARIO, "scenario_conflict", workload=workload.value, expected="dedicated"))
    elif workload in (Workload.LORA, Workload.QLORA):
        # the market's range for a slice's price (seed 000: 30-50%); a quote replaces it with its own ratio
        out.append(
            _advice(
                Topic.SCENARIO,
                "scenario_lora",
                workload=workload.value,
                low_pct=round(policy.shared.market_price_fraction_min * 100),
                high_pct=round(policy.shared.market_price_fraction_max * 100),
            )
        )
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


def _communication(profile: TaskProfile, policy: Policy, cards: int, peak_cards: int | None) -> list[Advice]:
    """How the cards talk: one node on NVLink, or several nodes (more cards than a node holds) with
    InfiniBand/RoCE between them; and cards asked for beyond what the memory needs."""
    out = []
    per_node = policy.communication.cards_per_node
    split = profile.model_parallel or cards > profile.cards or (peak_cards or 1) > 1
    if cards > per_node and (split or profile.model_parallel is False):
        out.append(
            _advice(Topic.COMMUNICATION, "comm_multi_node", cards=cards, per_node=per_node, nodes=-(-cards // per_node))
        )
    elif split:
        out.append(_advice(Topic.COMMUNICATION, "comm_model_parallel"))
    elif profile.model_parallel is False and cards > 1:
        out.append(_advice(Topic.COMMUNICATION, "comm_data_parallel", cards=cards))
    if peak_cards is not None and profile.cards > peak_cards:
        out.append(_advice(Topic.COMMUNICATION, "cards_beyond_memory", asked=profile.cards, needed=peak_cards))
    if out:
        out.append(_advice(Topic.COMMUNICATION, "comm_benchmark"))
    return out


def _choose(profile: TaskProfile, policy: Policy, checks: list[Check]) -> tuple[Choice, Basis, Advice]:
    """The inference rule when it applies, else two of four."""
    inference = _inference_choice(profile, policy)
    if inference is not None:
        return inference[0], Basis.INFERENCE, inference[1]
    hits, needed = sum(c.fired for c in checks), policy.two_of_four.hits_for_dedicated
    choice = Choice.DEDICATED if hits >= needed else Choice.SHARED
    return choice, Basis.TWO_OF_FOUR, _advice(Topic.DECISION, f"two_of_four_{choice.value}", hits=hits, needed=needed)


def _split_cards(profile: TaskProfile) -> tuple[int, list[Advice]]:
    """The cards a model-parallel job needs: the count its answer named, else at least 2 ("需要2张以上卡做模型并行");
    `--cards` that disagrees is said, and the larger wins (as for memory)."""
    if profile.model_parallel is not True:
        return profile.cards, []
    named = profile.model_parallel_cards
    cards = max(profile.cards, named or 2)
    if named is not None and profile.cards > 1 and profile.cards != named:
        return cards, [_advice(Topic.DECISION, "model_parallel_cards_disagree", named=named, cards=profile.cards)]
    return cards, []


def evaluate(profile: TaskProfile, policy: Policy) -> Decision:
    """Decide dedicated vs shared for `profile` under `policy`, with every reason that fired.

    The rule's choice stands while some shared option holds the memory peak; a peak above one card
    makes it dedicated (several cards, or a bigger one), whatever the rule said."""
    card = gpu_model(profile.gpu)
    need = memory_need(profile, card, policy)
    offered = str(profile.sharing) if profile.sharing is not None else None
    # asked for MIG, or vNPU, on a card without it: time-slicing, said
    no_mig = (offered == "mig" and not card.mig) or (offered == "vnpu" and not card.vnpu)
    sharing = "time-slicing" if no_mig else offered
    shared = shared_option(card, need.hold_gb, policy.shared.default_share, need.bound_gb, sharing)
    peak_cards = 1 if shared is not None else cards_needed(card, need.hold_gb or card.memory_gb)
    checks = _checks(profile, policy, card, need, peak_cards)
    choice, basis, why = _choose(profile, policy, checks)
    advice = [why]
    cards, split_advice = _split_cards(profile)
    advice += split_advice
    if shared is None:
        per_node = policy.communication.cards_per_node
        cards, verdict = beyond_one_card(card, need, replace(profile, cards=cards), per_node)
        if choice is Choice.SHARED:  # say what the rule found, not what it would have chosen
            advice = [replace(why, id=f"{basis.value}_overruled")]
        choice, basis, advice = Choice.DEDICATED, Basis.MEMORY, advice + verdict
    advice += memory_warnings(profile, card, need)
    advice += contradictions(profile, card)
    rented = shared if choice is Choice.SHARED else None  # what the decision rents: its capacity is said
    advice += model_memory_advice(profile, card, policy, shared, cards, rented, None if shared else peak_cards)
    advice += _scenario(profile, policy, choice, card)
    advice += _phase(profile)
    spot = spot_fit(profile, choice, basis)
    advice += billing_advice(profile, policy, choice, spot)
    if choice is Choice.SHARED and shared is not None:
        if no_mig:
            said = "sharing_no_vnpu" if offered == "vnpu" else "sharing_no_mig"
            advice.append(_advice(Topic.ISOLATION, said, gpu=card.name))
        advice += isolation_advice(shared, card, need, policy)
    advice += _communication(profile, policy, cards, peak_cards if need.hold_gb is not None else None)
    advice += cost_advice(profile, policy, cards)
    # a service is decided by its load (QPS, P99), even where its memory then rules: the five are not asked of it
    missing = [] if basis is Basis.INFERENCE or _inference_choice(profile, policy) is not None else profile.missing()
    serving = served(profile.memory, policy)
    holds = serving_room(serving, card, policy, rented, cards) if serving is not None else None
    return Decision(
        choice=choice,
        basis=basis,
        checks=checks,
        hits_needed=policy.two_of_four.hits_for_dedicated,
        missing=missing,
        advice=advice,
        gpu=card.name,
        memory_peak_gb=need.peak_gb,
        mig_profile=shared.mig_profile if shared else None,
        share_fraction=shared.share if shared else 1.0,
        spot_suitable=spot[0],
        spot_reason=spot[1],
        shared=shared,
        cards=cards,
        yearly_gpu_hours=yearly_gpu_hours(profile, cards),
        max_concurrent_requests=holds,
    )
