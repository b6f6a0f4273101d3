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
