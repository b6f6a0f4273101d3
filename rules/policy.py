"""The policy: every threshold of the rules, as data, validated on load."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Self

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rules.errors import PolicyError

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: 5x faster start-up


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TwoOfFour(_Section):
    long_run_hours: float = Field(gt=0)
    short_run_hours: float = Field(gt=0)
    memory_tight_fraction: float = Field(gt=0, le=1)
    hits_for_dedicated: int = Field(ge=1, le=4)

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.short_run_hours > self.long_run_hours:
            raise ValueError("short_run_hours must not exceed long_run_hours")
        return self


class Frequency(_Section):
    high_min_runs_per_week: float = Field(gt=0)


class Inference(_Section):
    high_qps: float = Field(gt=0)
    p99_ms_below: float = Field(gt=0)


class _Range(_Section):
    @model_validator(mode="after")
    def _ordered(self) -> Self:
        names = [n for n in type(self).model_fields if n.endswith("_min")]
        for low in names:
            high = low[: -len("_min")] + "_max"
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} must not exceed {high}")
        return self


class Shared(_Range):
    efficiency_min: float = Field(gt=0, le=1)
    efficiency_max: float = Field(gt=0, le=1)
    market_price_fraction_min: float = Field(gt=0, le=1)
    market_price_fraction_max: float = Field(gt=0, le=1)
    default_share: float = Field(default=0.5, gt=0, le=1)  # the slice quoted when no memory peak picks one


class Spot(_Range):
    price_fraction_min: float = Field(gt=0, le=1)
    price_fraction_max: float = Field(gt=0, le=1)
    checkpoint_savings_min: float = Field(ge=0, lt=1)
    checkpoint_savings_max: float = Field(ge=0, lt=1)


class RentVsBuy(_Section):
    gpu_hours_per_year: float = Field(gt=0)


class Regions(_Range):
    inland_discount_min: float = Field(ge=0, lt=1)
    inland_discount_max: float = Field(ge=0, lt=1)


class MemoryEstimates(_Section):
    full_finetune_bytes_per_param: float = Field(gt=0)
    lora_bytes_per_param: float = Field(gt=0)
    qlora_bytes_per_param: float = Field(gt=0)
    activation_overhead: float = Field(ge=0)
    adapter_fraction: float = Field(default=0.005, ge=0, le=1)  # LoRA/QLoRA trainable share of the parameters
    overhead_gb: float = Field(default=1.5, ge=0, le=64)  # CUDA context, workspaces, allocator slack


class Idle(_Section):
    """When a rented instance counts as idle (reminders): measured, never guessed."""

    window_minutes: float = Field(default=60, gt=0, le=24 * 60)
    utilisation_max_pct: float = Field(default=5, ge=0, lt=100)
    memory_held_fraction: float = Field(default=0.1, gt=0, le=1)
    max_gap_minutes: float = Field(default=10, gt=0)
    storage_stale_days: float = Field(default=14, gt=0)
    storage_keep_days: float = Field(default=30, gt=0)


class Capture(_Section):
    """Reading a probe's capture into answers (the articles' step 2)."""

    busy_pct: float = Field(default=80, gt=0, le=100)  # "utilisation steadily above 80%"
    high_share: float = Field(default=0.8, gt=0, le=1)  # high continuity: this share of samples at or above it
    gap_pct: float = Field(default=5, ge=0, lt=100)  # at or below this, a sample is part of an idle gap
    run_end_quiet_s: float = Field(default=60, gt=0)  # quiet this long after the last busy sample: the run ended


class Policy(_Section):
    version: int = Field(ge=1, le=1)
    two_of_four: TwoOfFour
    frequency: Frequency
    inference: Inference
    shared: Shared
    spot: Spot
    rent_vs_buy: RentVsBuy
    regions: Regions
    memory_estimates: MemoryEstimates
    idle: Idle = Field(default_factory=Idle)
    capture: Capture = Field(default_factory=Capture)


BUNDLED = "policy.yaml"


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        lines.append(f"{where}: {item['msg']}")
    return "; ".join(lines)


def _read(text: str, origin: str) -> dict[str, Any]:
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise PolicyError(f"{origin}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise PolicyError(f"{origin}: expected a mapping of sections at the top level")
    return data


def _on_top_of(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """`base` with each section's values replaced by those `changes` gives (a section given as a mapping
    is merged key by key; anything else replaces, and validation says if it is wrong)."""
    merged = dict(base)
    for section, values in changes.items():
        old = merged.get(section)
        merged[section] = {**old, **values} if isinstance(old, dict) and isinstance(values, dict) else values
    return merged


def parse_policy(text: str, origin: str, base: dict[str, Any] | None = None) -> Policy:
    """Validate policy YAML (on top of `base`, when given). Errors name `origin`, the field path and the problem."""
    data = _read(text, origin)
    if base is not None:
        data = _on_top_of(base, data)
    try:
        return Policy.model_validate(data)
    except ValidationError as exc:
        raise PolicyError(f"{origin}: {_describe(exc)}") from exc


def load_policy(path: Path | None = None) -> Policy:
    """The bundled policy, with the thresholds the file at `path` changes (it may hold only those)."""
    bundled = resources.files("rules").joinpath(BUNDLED).read_text("utf-8")
    if path is None:
        return parse_policy(bundled, BUNDLED)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read the policy file: {exc.strerror or exc}") from exc
    return parse_policy(text, str(path), base=_read(bundled, BUNDLED))
