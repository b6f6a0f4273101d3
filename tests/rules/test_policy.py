from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from rules.errors import PolicyError
from rules.policy import load_policy, parse_policy


def bundled() -> dict[str, object]:
    return yaml.safe_load((Path(__file__).parents[2] / "rules" / "policy.yaml").read_text("utf-8"))


def test_bundled_policy_has_the_domain_thresholds() -> None:
    policy = load_policy()
    assert policy.two_of_four.long_run_hours == 8
    assert policy.two_of_four.memory_tight_fraction == 0.8
    assert policy.two_of_four.hits_for_dedicated == 2
    assert (policy.inference.high_qps, policy.inference.p99_ms_below) == (100, 50)
    assert (policy.shared.efficiency_min, policy.shared.efficiency_max) == (0.7, 0.8)
    assert policy.rent_vs_buy.gpu_hours_per_year == 2000


def test_team_policy_file_is_used(tmp_path: Path) -> None:
    data = bundled()
    data["two_of_four"]["long_run_hours"] = 12  # type: ignore[index]
    path = tmp_path / "team.yaml"
    path.write_text(yaml.safe_dump(data))
    assert load_policy(path).two_of_four.long_run_hours == 12


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("two_of_four", "hits_for_dedicated", 7),
            "two_of_four.hits_for_dedicated: Input should be less than or equal to 4",
        ),
        (
            ("two_of_four", "memory_tight_fraction", "lots"),
            "two_of_four.memory_tight_fraction: Input should be a valid number",
        ),
        (("shared", "efficiency_min", 0.9), "efficiency_min must not exceed efficiency_max"),
        (("inference", "typo_field", 1), "inference.typo_field: Extra inputs are not permitted"),
    ],
)
def test_bad_policy_names_the_field(tmp_path: Path, change: tuple[str, str, object], message: str) -> None:
    data = bundled()
    section, field, value = change
    data[section][field] = value  # type: ignore[index]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(PolicyError) as caught:
        load_policy(path)
    assert str(path) in str(caught.value)
    assert message in str(caught.value)


def test_missing_section_is_named() -> None:
    data = bundled()
    del data["spot"]
    with pytest.raises(PolicyError, match="spot: Field required"):
        parse_policy(yaml.safe_dump(data), "team.yaml")


def test_not_yaml() -> None:
    with pytest.raises(PolicyError, match="not valid YAML"):
        parse_policy("two_of_four: [unclosed", "x.yaml")


def test_not_a_mapping() -> None:
    with pytest.raises(PolicyError, match="expected a mapping"):
        parse_policy("- 1\n- 2\n", "x.yaml")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read the policy file"):
        load_policy(tmp_path / "nope.yaml")


def test_a_team_file_may_hold_only_what_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "team.yaml"
    path.write_text("two_of_four:\n  long_run_hours: 12\ninference:\n  high_qps: 500\n")
    policy = load_policy(path)
    assert policy.two_of_four.long_run_hours == 12 and policy.inference.high_qps == 500
    assert policy.two_of_four.memory_tight_fraction == 0.8 and policy.spot.price_fraction_min == 0.2  # bundled


def test_a_partial_file_is_still_checked(tmp_path: Path) -> None:
    path = tmp_path / "team.yaml"
    path.write_text("two_of_four:\n  long_run_hourz: 12\n")
    with pytest.raises(PolicyError, match=r"two_of_four\.long_run_hourz: Extra inputs are not permitted"):
        load_policy(path)
