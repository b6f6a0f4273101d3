"""Sharing as each platform sells it (issue 32, section 3), as pure rules: the smallest share of the kind asked
for that holds the memory peak, its memory and compute, and the warning that goes with software limits."""

from __future__ import annotations

import pytest

from rules.answers import build_profile, parse_answers
from rules.engine import evaluate
from rules.errors import ParseError
from rules.fit import FitKind, partition, shared_option
from rules.gpus import gpu_model
from rules.parsing import parse_sharing
from rules.policy import Policy

SHORT = {"duration": "3h", "model_parallel": "no", "frequency": "daily", "can_resume": "yes"}


@pytest.mark.parametrize(
    ("peak", "sharing", "memory", "compute"),
    [
        (17, "qgpu", 17, 25),  # 17 of 80 GB is 21.25%: compute in 5% steps
        (17.2, "qgpu", 18, 25),  # memory in whole GB, rounded up
        (1, "qgpu", 1, 10),  # at most 16 shares a card: never less than 1/16, rounded up to 5%
        (17, "hami", 17, 22),  # HAMi: cores in 1% steps
        (80, "qgpu", 80, 100),
    ],
)
def test_the_smallest_partition_that_holds_the_peak(peak: float, sharing: str, memory: float, compute: float) -> None:
    found = partition(gpu_model("A100-80GB"), peak, sharing)
    assert (found.kind, found.memory_gb, found.compute_pct, found.share) == (
        FitKind.PARTITION,
        memory,
        compute,
        compute / 100,
    )


def test_time_slicing_is_offered_even_on_a_mig_card_and_a_peak_above_the_card_has_no_share() -> None:
    sliced = shared_option(gpu_model("A100-80GB"), 17, 0.5, sharing="time-slicing")
    assert sliced is not None and (sliced.kind, sliced.share, sliced.sharing) == (
        FitKind.FRACTION,
        0.25,
        "time-slicing",
    )
    assert shared_option(gpu_model("A100-80GB"), 90, 0.5, sharing="qgpu") is None
    mig = shared_option(gpu_model("A100-80GB"), 17, 0.5)
    assert mig is not None and mig.mig_profile == "1g.20gb"  # the default: MIG where the card has it


def test_a_17_gb_peak_with_qgpu_is_a_17_gb_qgpu_share_with_the_isolation_warning(policy: Policy) -> None:
    decision = evaluate(build_profile(parse_answers(SHORT | {"memory": "17GB", "sharing": "qgpu"})), policy)
    assert decision.shared is not None
    assert (decision.shared.sharing, decision.shared.memory_gb, decision.shared.compute_pct) == ("qgpu", 17, 25)
    ids = [a.id for a in decision.advice]
    assert "isolation_qgpu" in ids and "timeslice_warning" in ids and "isolation_mig" not in ids


def test_mig_on_a_card_without_it_is_time_slicing_and_said(policy: Policy) -> None:
    decision = evaluate(build_profile(parse_answers(SHORT | {"memory": "6GB", "sharing": "mig", "gpu": "T4"})), policy)
    assert decision.shared is not None and decision.shared.sharing == "time-slicing"
    ids = [a.id for a in decision.advice]
    assert "sharing_no_mig" in ids and "isolation_time_slicing" in ids


@pytest.mark.parametrize("typed", ["qGPU", "HAMi", "time slicing", "时间片", "MIG"])
def test_the_kinds_as_people_write_them(typed: str) -> None:
    assert parse_sharing(typed).value in ("qgpu", "hami", "time-slicing", "mig")


def test_an_unknown_kind_is_refused_with_what_is_accepted() -> None:
    with pytest.raises(ParseError) as caught:
        parse_sharing("vgpu-magic")
    assert "qgpu" in caught.value.accepted and "时间片" in caught.value.accepted


@pytest.mark.parametrize(
    ("gpu", "peak", "template", "cores", "memory"),
    [
        ("910B3", 5, "vir05_1c_16g", 5, 16),  # the smallest template whose memory holds the peak
        ("910B3", 17, "vir10_3c_32g", 10, 32),
        ("910B2", 7, "vir03_1c_8g", 3, 8),  # 910B2: 24 AI Cores, three templates
        ("910B4", 9, "vir10_3c_16g", 10, 16),  # 910B4: 32 GB
        ("910B", 12, "vir05_1c_16g", 5, 16),  # the family without its variant: 910B3's templates
    ],
)
def test_the_smallest_vnpu_template_that_holds_the_peak(
    gpu: str, peak: float, template: str, cores: int, memory: float
) -> None:
    card = gpu_model(gpu)
    found = shared_option(card, peak, 0.5, sharing="vnpu")
    assert found is not None and card.ai_cores is not None
    assert (found.kind, found.template, found.ai_cores, found.memory_gb) == (FitKind.VNPU, template, cores, memory)
    assert found.share == round(cores / card.ai_cores, 4) and found.compute_pct == round(100 * cores / card.ai_cores, 1)
    assert shared_option(card, peak, 0.5) == found  # the card's own hardware isolation is the default


def test_above_the_largest_template_is_the_whole_card_and_above_the_card_none() -> None:
    card = gpu_model("910B3")
    whole = shared_option(card, 40, 0.5, sharing="vnpu")
    assert whole is not None and (whole.kind, whole.share) == (FitKind.WHOLE_CARD, 1.0)
    assert shared_option(card, 70, 0.5, sharing="vnpu") is None


def test_a_vnpu_share_is_said_isolated_in_hardware(policy: Policy) -> None:
    decision = evaluate(build_profile(parse_answers(SHORT | {"memory": "17GB", "gpu": "910B3"})), policy)
    assert decision.shared is not None and decision.shared.template == "vir10_3c_32g"
    ids = [a.id for a in decision.advice]
    assert "isolation_vnpu" in ids and "isolation_time_slicing" not in ids and "isolation_qgpu" not in ids


def test_vnpu_on_a_card_without_templates_is_time_slicing_and_said(policy: Policy) -> None:
    asked = SHORT | {"memory": "6GB", "sharing": "vnpu", "gpu": "A100-80GB"}
    decision = evaluate(build_profile(parse_answers(asked)), policy)
    assert decision.shared is not None and decision.shared.sharing == "time-slicing"
    assert "sharing_no_vnpu" in [a.id for a in decision.advice]


@pytest.mark.parametrize("typed", ["vNPU", "vnpu", "昇腾虚拟化", "Ascend vNPU"])
def test_vnpu_as_people_write_it(typed: str) -> None:
    assert parse_sharing(typed).value == "vnpu"
