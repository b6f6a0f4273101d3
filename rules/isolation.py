"""How to share, given what holds the memory: the advice that goes with the shared option (fit.py),
and the verdict when no shared option holds the peak. The header, this advice and the quote all read
the same SharedOption, so they cannot disagree."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.decision import Advice, Param, Topic
from rules.fit import FitKind, SharedOption, bigger_card, bigger_card_slice, cards_needed
from rules.gpus import GPUModel
from rules.memory import MemoryNeed, served
from rules.policy import Policy
from rules.profile import TaskProfile

if TYPE_CHECKING:  # loaded by the answers that name a model (rules/memory.py)
    from rules.profile import MemoryAnswer
    from rules.serving import Architecture, ServingBreakdown


def _advice(topic: Topic, rule_id: str, **params: Param) -> Advice:
    return Advice(topic=topic, id=rule_id, params=params)


def isolation_advice(option: SharedOption, card: GPUModel, need: MemoryNeed, policy: Policy) -> list[Advice]:
    """What the shared option is and how it isolates; the OOM warning for memory-hungry jobs."""
    peak = need.peak_gb
    share_pct = round(policy.shared.default_share * 100)
    out: list[Advice] = []
    if option.kind in (FitKind.SLICE, FitKind.VNPU):  # carved out in hardware: a MIG slice, an Ascend vNPU
        out.append(_hardware_slice(option, card, peak))
    elif option.kind is FitKind.PARTITION:  # software limits, not hardware: the time-slicing warning always
        return _partition(option, card, peak)
    elif option.kind is FitKind.FRACTION:
        said = "isolation_time_slicing" if option.sharing == "time-slicing" else "isolation_fraction"
        share_pct = round(option.share * 100)
        out.append(
            _advice(Topic.ISOLATION, said, gpu=card.name, share_pct=share_pct, slice_gb=option.memory_gb, peak_gb=peak)
        )
    elif option.kind is FitKind.WHOLE_CARD:
        if peak is not None:
            out.append(_advice(Topic.ISOLATION, "isolation_whole_card", gpu=card.name, peak_gb=peak))
        else:
            out.append(
                _advice(
                    Topic.ISOLATION,
                    "isolation_whole_card_tight",
                    gpu=card.name,
                    threshold_pct=round(policy.two_of_four.memory_tight_fraction * 100),
                )
            )
        # a bare "yes" (above 80%, no figure) may be up to the whole card: only that bound is guaranteed
        held = card.memory_gb if need.peak_gb is None else (need.hold_gb or card.memory_gb)
        other = bigger_card_slice(card, held)
        if other is not None:
            out.append(
                _advice(
                    Topic.ISOLATION,
                    "isolation_bigger_slice",
                    gpu=other[0].name,
                    profile=other[1].name,
                    slice_gb=other[1].memory_gb,
                )
            )
    elif option.bound_gb is not None:  # "not above 80%": the peak may be anything up to the bound
        out.append(
            _advice(
                Topic.ISOLATION,
                "isolation_bound",
                gpu=card.name,
                bound_gb=option.bound_gb,
                slice_gb=option.memory_gb,
                profile=option.mig_profile or f"{round(option.share * 100)}%",
            )
        )
        if not card.mig:
            out.append(_advice(Topic.ISOLATION, "isolation_no_mig_sharing", gpu=card.name))
    elif card.mig:
        out.append(_advice(Topic.ISOLATION, "isolation_unknown_peak", gpu=card.name, share_pct=share_pct))
    else:
        out.append(_advice(Topic.ISOLATION, "isolation_no_mig", gpu=card.name, share_pct=share_pct))
    hungry = need.answered_tight or need.estimate_tight or (need.hold_gb or 0) > card.memory_gb / 2
    unknown = need.hold_gb is None  # no figure: the footprint may not be small
    out.append(
        _advice(
            Topic.ISOLATION, "timeslice_warning" if hungry else "timeslice_unknown_peak" if unknown else "timeslice_fit"
        )
    )
    out.append(_advice(Topic.ISOLATION, "isolation_confirm"))
    return out


def _hardware_slice(option: SharedOption, card: GPUModel, peak: float | None) -> Advice:
    """A MIG slice or an Ascend vNPU: what it holds; both are isolated by the card itself."""
    if option.kind is FitKind.VNPU:
        return _advice(
            Topic.ISOLATION,
            "isolation_vnpu",
            gpu=card.name,
            template=option.template,
            ai_cores=option.ai_cores,
            total_cores=card.ai_cores,
            slice_gb=option.memory_gb,
            peak_gb=peak,
        )
    profile = next(p for p in card.mig if p.name == option.mig_profile)
    return _advice(
        Topic.ISOLATION,
        "isolation_mig",
        gpu=card.name,
        profile=profile.name,
        peak_gb=peak,
        slice_gb=profile.memory_gb,
        max_count=profile.max_count,
    )


def _partition(option: SharedOption, card: GPUModel, peak: float | None) -> list[Advice]:
    """A qGPU or HAMi share: its memory and compute, and that nothing isolates it in hardware."""
    said = _advice(
        Topic.ISOLATION,
        f"isolation_{option.sharing}",
        gpu=card.name,
        slice_gb=option.memory_gb,
        compute_pct=option.compute_pct,
        peak_gb=peak,
    )
    return [said, _advice(Topic.ISOLATION, "timeslice_warning"), _advice(Topic.ISOLATION, "isolation_confirm")]


def beyond_one_card(
    card: GPUModel, need: MemoryNeed, profile: TaskProfile, per_node: int = 8
) -> tuple[int, list[Advice]]:
    """(cards rented: the peak's count or more if asked, the verdict) when no single card holds the peak. The
    verdict names the count the memory needs, and, past one node, the whole nodes that count takes."""
    hold = need.hold_gb or card.memory_gb
    needed = cards_needed(card, hold)
    cards = max(profile.cards, needed)
    out = [
        _advice(
            Topic.DECISION, "memory_exceeds_card", peak_gb=hold, gpu=card.name, card_gb=card.memory_gb, cards=needed
        )
    ]
    if needed > per_node and needed % per_node:
        nodes = -(-needed // per_node)
        params: dict[str, Param] = {"cards": needed, "per_node": per_node, "nodes": nodes, "whole": nodes * per_node}
        out.append(_advice(Topic.DECISION, "memory_cards_whole_nodes", **params))
    alone = bigger_card(card, hold)
    if alone is not None:
        out.append(_advice(Topic.DECISION, "memory_bigger_card", gpu=alone.name, card_gb=alone.memory_gb))
    return cards, out


def memory_warnings(profile: TaskProfile, card: GPUModel, need: MemoryNeed) -> list[Advice]:
    """The model-size estimate beside the answer: shown when it disagrees (the larger figure is used)."""
    if need.estimate_gb is None:
        return []
    params: dict[str, Param] = {
        "model_size_b": profile.model_size_b,
        "workload": str(profile.workload),
        "estimate_gb": need.estimate_gb,
        "card_gb": card.memory_gb,
    }
    if need.disagrees:
        rule = "memory_estimate_above_answer" if need.estimate_tight else "memory_estimate_below_answer"
        return [_advice(Topic.WARNING, rule, **params)]
    return [_advice(Topic.MEMORY, "memory_estimate", **params)]


def model_memory_advice(
    profile: TaskProfile,
    card: GPUModel,
    policy: Policy,
    shared: SharedOption | None,
    cards: int,
    rented: SharedOption | bool | None = True,
    needed: int | None = None,
) -> list[Advice]:
    """An answer naming the model ("7B LoRA"): the estimate's parts, and what holds it (the smallest shared
    option, or the cards the memory needs: `needed`, else the card count the header shows). `rented`: the shared
    option the decision rents (None: it rents dedicated cards; True: `shared`); a served model's capacity is that
    of what is rented."""
    answer = profile.memory
    if answer is None or answer.model_size_b is None:
        return []
    serving = served(answer, policy)
    if serving is not None:
        out = [_serving_advice(*serving)]
        option = shared if rented is True else (rented or None)
        holds = serving_room(serving, card, policy, option, cards)
        smaller = shared is not None and shared.kind is not FitKind.WHOLE_CARD  # a slice holds it, not only a card
        if option is None and smaller:  # dedicated, though a slice would hold it: say each for what it is
            said = _advice(
                Topic.MEMORY,
                "memory_serving_concurrency_dedicated",
                requests=holds,
                context=serving[1].context,
                cards=cards,
                gpu=card.name,
            )
        else:
            said = _advice(Topic.MEMORY, "memory_serving_concurrency", requests=holds, context=serving[1].context)
        return out + smallest(card, shared, needed or cards) + [said]
    estimate = model_estimate(answer, policy)
    if estimate is None:
        return []
    return [estimate[0], *smallest(card, shared, needed or cards)]


def model_estimate(answer: MemoryAnswer, policy: Policy) -> tuple[Advice, float] | None:
    """The peak an answer naming a model estimates ("7B LoRA": its training parts; "qwen2.5-72b", "70B 推理": its
    serving memory), with the advice saying how it adds up; None where no rule estimates it."""
    serving = served(answer, policy)
    if serving is not None:
        return _serving_advice(*serving), serving[1].total_gb
    from rules.memory_model import breakdown

    if answer.model_size_b is None:
        return None
    parts = breakdown(answer.model_size_b, answer.method, policy.memory_estimates)
    if parts is None:
        return None
    said = _advice(
        Topic.MEMORY,
        "memory_from_model",
        model_size_b=answer.model_size_b,
        method=str(answer.method),
        total_gb=parts.total_gb,
        weights_gb=parts.weights_gb,
        gradients_gb=parts.gradients_gb,
        optimizer_gb=parts.optimizer_gb,
        activations_gb=parts.activations_gb,
        overhead_gb=parts.overhead_gb,
    )
    return said, parts.total_gb


def _serving_advice(model: Architecture, parts: ServingBreakdown) -> Advice:
    return _advice(
        Topic.MEMORY,
        "memory_serving_assumed" if parts.assumed_model else "memory_serving",
        model=parts.model,
        quant=parts.quant,
        context=parts.context,
        concurrency=parts.concurrency,
        total_gb=parts.total_gb,
        weights_gb=parts.weights_gb,
        kv_cache_gb=parts.kv_cache_gb,
        kv_kib_per_token=parts.kv_kib_per_token,
        overhead_gb=parts.overhead_gb,
        layers=model.layers,
        kv_heads=model.kv_heads,
        head_dim=model.head_dim,
        kv_bytes=parts.kv_bytes,
    )


def serving_room(
    serving: tuple[Architecture, ServingBreakdown],
    card: GPUModel,
    policy: Policy,
    shared: SharedOption | None,
    cards: int,
) -> int:
    """The most requests of the answer's context the option the header names holds."""
    from rules.serving import max_concurrency

    memory = shared.memory_gb if shared is not None else cards * card.memory_gb
    return max_concurrency(serving[1], serving[0], memory, policy.serving)


def smallest(card: GPUModel, shared: SharedOption | None, cards: int) -> list[Advice]:
    """What holds the estimate: the same shared option or card count the header shows."""
    out: list[Advice] = []
    if shared is None:
        out.append(_advice(Topic.MEMORY, "memory_from_model_cards", cards=cards, gpu=card.name, card_gb=card.memory_gb))
    elif shared.kind is FitKind.SLICE:
        out.append(
            _advice(
                Topic.MEMORY,
                "memory_from_model_slice",
                gpu=card.name,
                profile=shared.mig_profile,
                slice_gb=shared.memory_gb,
            )
        )
    elif shared.kind is FitKind.PARTITION:
        out.append(
            _advice(
                Topic.MEMORY,
                "memory_from_model_partition",
                gpu=card.name,
                sharing=str(shared.sharing),
                compute_pct=shared.compute_pct,
                slice_gb=shared.memory_gb,
            )
        )
    elif shared.kind is FitKind.FRACTION:
        out.append(
            _advice(
                Topic.MEMORY,
                "memory_from_model_fraction",
                gpu=card.name,
                share_pct=round(shared.share * 100),
                slice_gb=shared.memory_gb,
            )
        )
    else:
        out.append(_advice(Topic.MEMORY, "memory_from_model_card", gpu=card.name, card_gb=card.memory_gb))
    return out
