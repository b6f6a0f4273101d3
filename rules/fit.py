"""What holds a memory peak: the smallest shared option of a card, a bigger card's slice, or several cards.

Shared options, smallest first (domain.md): a MIG slice smaller than the card (A100 80 GB: 1g.10gb
up to 4g.40gb; H200 141 GB: up to 4g.71gb); on an Ascend 910B, a vNPU template (910B3: vir05_1c_16g,
vir10_3c_32g); on a card without either, a time-sliced or vGPU fraction
(1/4, 1/2); else the whole card rented by the hour on a shared platform. A peak above one card
holds on no shared option: it needs several cards (model parallelism) or a bigger card.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from rules.gpus import CATALOGUE, GPUModel, MigProfile, VnpuTemplate, smallest_mig_profile

FRACTIONS = (0.25, 0.5)  # vGPU / time-sliced fractions sold for cards without MIG


class FitKind(StrEnum):
    SLICE = "slice"  # a MIG slice smaller than the card
    VNPU = "vnpu"  # an Ascend vNPU template: AI Cores and memory carved out by the driver
    FRACTION = "fraction"  # a vGPU or time-sliced fraction of a card without MIG
    PARTITION = "partition"  # qGPU or HAMi: memory and compute limits set in software
    WHOLE_CARD = "whole_card"  # no smaller slice holds the peak: a whole card, by the hour, on a shared platform
    ASSUMED = "assumed"  # no peak known: the policy's default slice


@dataclass(frozen=True, kw_only=True)
class SharedOption:
    """The shared option to quote: which card, which part of it, and the memory it gives."""

    kind: FitKind
    gpu: str
    share: float  # of one card
    memory_gb: float
    mig_profile: str | None = None
    bound_gb: float | None = None  # ASSUMED under "not above 80%": the peak may be up to this, so the slice
    # holds it only if it stays under memory_gb (else a whole card)
    sharing: str | None = None  # mig, vnpu, qgpu, hami, time-slicing: how it is shared (None: the card's default)
    compute_pct: float | None = None  # the compute share a partition gets (qGPU in 5% steps, HAMi in 1%, vNPU
    # its AI Cores of the card's)
    template: str | None = None  # the vNPU template (vir05_1c_16g)
    ai_cores: int | None = None  # the vNPU template's AI Cores


# Tencent qGPU (its TKE documentation): memory in 1 GB steps, compute in 5% steps, at most 16 a card.
QGPU_COMPUTE_STEP_PCT, QGPU_MAX_PER_CARD = 5, 16
# HAMi on Kubernetes (its docs): memory in MiB (here whole GB), cores in 1% steps.
HAMI_COMPUTE_STEP_PCT = 1


def partition(card: GPUModel, peak_gb: float, sharing: str) -> SharedOption:
    """The smallest qGPU or HAMi share that holds `peak_gb`: its memory rounded up to a whole GB, its compute
    the same fraction of the card rounded up to the platform's step (qGPU: at least 1/16 of a card)."""
    memory = float(min(max(math.ceil(peak_gb), 1), card.memory_gb))
    fraction = memory / card.memory_gb
    if sharing == "qgpu":
        fraction = max(fraction, 1 / QGPU_MAX_PER_CARD)
        step = QGPU_COMPUTE_STEP_PCT
    else:
        step = HAMI_COMPUTE_STEP_PCT
    compute = float(min(math.ceil(round(fraction * 100, 6) / step) * step, 100))
    return SharedOption(
        kind=FitKind.PARTITION,
        gpu=card.name,
        share=round(compute / 100, 4),
        memory_gb=memory,
        sharing=sharing,
        compute_pct=compute,
    )


def _mig_at(card: GPUModel, share: float) -> str | None:
    return next(
        (p.name for p in card.mig if p.memory_gb == round(card.memory_gb * share, 1) and p.compute_slices < 7), None
    )


def shared_option(
    card: GPUModel,
    peak_gb: float | None,
    default_share: float,
    bound_gb: float | None = None,
    sharing: str | None = None,
) -> SharedOption | None:
    """The smallest shared option of `card` that holds `peak_gb`; None when the peak is above the card.
    With no figure, the policy's default slice, assumed (`bound_gb`: what a bare "no" allows). `sharing`: the
    kind the platform offers (mig, qgpu, hami, time-slicing); MIG on a card without it is time-slicing."""
    if sharing == "vnpu" and card.vnpu and peak_gb is not None:
        return _vnpu(card, peak_gb) if peak_gb <= card.memory_gb else None
    if sharing in ("qgpu", "hami") and peak_gb is not None:
        return partition(card, peak_gb, sharing) if peak_gb <= card.memory_gb else None
    if sharing == "time-slicing" and peak_gb is not None and peak_gb <= card.memory_gb:
        return _fraction(card, peak_gb, sharing) or _whole(card)
    if peak_gb is None:
        memory = round(card.memory_gb * default_share, 1)
        return SharedOption(
            kind=FitKind.ASSUMED,
            gpu=card.name,
            share=default_share,
            memory_gb=memory,
            mig_profile=_mig_at(card, default_share),
            bound_gb=bound_gb if bound_gb is not None and bound_gb > memory else None,
        )
    if peak_gb > card.memory_gb:
        return None
    if card.mig:
        fit = smallest_mig_profile(card, peak_gb)
        if fit is not None and fit.memory_gb < card.memory_gb:
            return SharedOption(
                kind=FitKind.SLICE,
                gpu=card.name,
                share=round(fit.memory_gb / card.memory_gb, 4),
                memory_gb=fit.memory_gb,
                mig_profile=fit.name,
            )
    elif card.vnpu:  # hardware isolation where the card has it: its vNPU templates, else the whole card
        return _vnpu(card, peak_gb)
    elif (fraction := _fraction(card, peak_gb)) is not None:
        return fraction
    return _whole(card)


def _vnpu(card: GPUModel, peak_gb: float) -> SharedOption:
    """The smallest vNPU template of `card` whose memory holds `peak_gb`; the whole card above the largest."""
    template: VnpuTemplate | None = next((v for v in card.vnpu if v.memory_gb >= peak_gb), None)
    if template is None or card.ai_cores is None:
        return _whole(card)
    share = round(template.ai_cores / card.ai_cores, 4)
    return SharedOption(
        kind=FitKind.VNPU,
        gpu=card.name,
        share=share,
        memory_gb=template.memory_gb,
        sharing="vnpu",
        compute_pct=round(share * 100, 1),
        template=template.name,
        ai_cores=template.ai_cores,
    )


def _fraction(card: GPUModel, peak_gb: float, sharing: str | None = None) -> SharedOption | None:
    """The smallest time-sliced or vGPU fraction of `card` (FRACTIONS) that holds `peak_gb`, if one does."""
    share = next((f for f in FRACTIONS if f * card.memory_gb >= peak_gb), None)
    if share is None:
        return None
    memory = round(card.memory_gb * share, 1)
    return SharedOption(kind=FitKind.FRACTION, gpu=card.name, share=share, memory_gb=memory, sharing=sharing)


def _whole(card: GPUModel) -> SharedOption:
    return SharedOption(kind=FitKind.WHOLE_CARD, gpu=card.name, share=1.0, memory_gb=card.memory_gb)


def bigger_card_slice(card: GPUModel, peak_gb: float) -> tuple[GPUModel, MigProfile] | None:
    """A slice smaller than a whole card, of a card with more memory than `card`, that holds the peak
    (a 70 GB peak: H200 3g.71gb); the one with the least memory."""
    found = [
        (other, fit)
        for other in CATALOGUE.values()
        if other.memory_gb > card.memory_gb
        if (fit := smallest_mig_profile(other, peak_gb)) is not None and fit.memory_gb < other.memory_gb
    ]
    return min(found, key=lambda pair: (pair[1].memory_gb, pair[0].memory_gb)) if found else None


def cards_needed(card: GPUModel, peak_gb: float) -> int:
    """How many of `card` a peak spreads over (model parallelism) when one card does not hold it."""
    return max(1, math.ceil(peak_gb / card.memory_gb))


def bigger_card(card: GPUModel, peak_gb: float) -> GPUModel | None:
    """The card with the least memory above `card`'s that holds the whole peak alone, if any."""
    found = [m for m in CATALOGUE.values() if m.memory_gb >= peak_gb and m.memory_gb > card.memory_gb]
    return min(found, key=lambda m: m.memory_gb) if found else None
