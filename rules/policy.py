"""The policy: every threshold of the rules, as plain frozen dataclasses, validated on load.

The bounds are Annotated on each field; pydantic checks them (and the cross-field rules in each
__post_init__) when a policy file is read. The bundled policy is validated once and kept in the
user's cache (cache.py), so a start reads it without building a schema."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from annotated_types import Ge, Gt, Le, Lt

from rules.errors import PolicyError

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError


Fraction = Annotated[float, Gt(0), Le(1)]  # of a card, a price, a share: (0, 1]
Share = Annotated[float, Ge(0), Lt(1)]  # a discount or a saving: [0, 1)
Positive = Annotated[float, Gt(0)]


class _Section:  # a plain base, not a dataclass itself: each dataclass costs a millisecond of every start
    __pydantic_config__: ClassVar[dict[str, str]] = {"extra": "forbid"}  # a misspelt threshold is an error


@dataclass(frozen=True, kw_only=True)
class TwoOfFour(_Section):
    long_run_hours: Positive
    short_run_hours: Positive
    memory_tight_fraction: Fraction
    hits_for_dedicated: Annotated[int, Ge(1), Le(4)]

    def __post_init__(self) -> None:
        if self.short_run_hours > self.long_run_hours:
            raise ValueError("short_run_hours must not exceed long_run_hours")


@dataclass(frozen=True, kw_only=True)
class Frequency(_Section):
    high_min_runs_per_week: Positive


@dataclass(frozen=True, kw_only=True)
class Inference(_Section):
    high_qps: Positive
    p99_ms_below: Positive
    low_qps: Positive = 50  # below this peak QPS a service is "low-concurrency" (product default)


class _Range(_Section):
    __dataclass_fields__: ClassVar[dict[str, Any]]  # each subclass is a dataclass

    def __post_init__(self) -> None:
        for low in [f.name for f in fields(self) if f.name.endswith("_min")]:
            high = low[: -len("_min")] + "_max"
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"{low} must not exceed {high}")


@dataclass(frozen=True, kw_only=True)
class Shared(_Range):
    efficiency_min: Fraction
    efficiency_max: Fraction
    market_price_fraction_min: Fraction
    market_price_fraction_max: Fraction
    default_share: Fraction = 0.5  # the slice quoted when no memory peak picks one


@dataclass(frozen=True, kw_only=True)
class Spot(_Range):
    price_fraction_min: Fraction
    price_fraction_max: Fraction
    checkpoint_savings_min: Share
    checkpoint_savings_max: Share


@dataclass(frozen=True, kw_only=True)
class RentVsBuy(_Section):
    gpu_hours_per_year: Positive


@dataclass(frozen=True, kw_only=True)
class Regions(_Range):
    inland_discount_min: Share
    inland_discount_max: Share


@dataclass(frozen=True, kw_only=True)
class MemoryEstimates(_Section):
    full_finetune_bytes_per_param: Positive
    lora_bytes_per_param: Positive
    qlora_bytes_per_param: Positive
    activation_overhead: Annotated[float, Ge(0)]
    adapter_fraction: Annotated[float, Ge(0), Le(1)] = 0.005  # LoRA/QLoRA trainable share of the parameters
    overhead_gb: Annotated[float, Ge(0), Le(64)] = 1.5  # CUDA context, workspaces, allocator slack


@dataclass(frozen=True, kw_only=True)
class Idle(_Section):
    """When a rented instance counts as idle (reminders): measured, never guessed."""

    window_minutes: Annotated[float, Gt(0), Le(24 * 60)] = 60
    utilisation_max_pct: Annotated[float, Ge(0), Lt(100)] = 5
    memory_held_fraction: Fraction = 0.1
    max_gap_minutes: Positive = 10
    storage_stale_days: Positive = 14
    storage_keep_days: Positive = 30


@dataclass(frozen=True, kw_only=True)
class Capture(_Section):
    """Reading a probe's capture into answers (the articles' step 2)."""

    busy_pct: Annotated[float, Gt(0), Le(100)] = 80  # "utilisation steadily above 80%"
    high_share: Fraction = 0.8  # high continuity: this share of samples at or above it
    gap_pct: Annotated[float, Ge(0), Lt(100)] = 5  # at or below this, a sample is part of an idle gap
    run_end_quiet_s: Positive = 60  # quiet this long after the last busy sample: the run ended


def _thresholds() -> tuple[float, ...]:
    return (50.0, 80.0, 100.0)


@dataclass(frozen=True, kw_only=True)
class Budget(_Section):
    """Budget alerts: the shares of a project's monthly budget whose crossing tells its channels."""

    thresholds_pct: tuple[Annotated[float, Gt(0), Le(1000)], ...] = field(default_factory=_thresholds)

    def __post_init__(self) -> None:
        if not self.thresholds_pct or list(self.thresholds_pct) != sorted(set(self.thresholds_pct)):
            raise ValueError("thresholds_pct must be one or more different percentages, lowest first")


def _weight_bytes() -> dict[str, float]:
    return {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}


@dataclass(frozen=True, kw_only=True)
class Serving(_Section):
    """Serving memory (rules/serving.py): defaults for what an answer leaves out."""

    default_quant: str = "bf16"
    default_context: Annotated[int, Ge(1), Le(10_000_000)] = 4096  # tokens a request holds
    default_concurrency: Annotated[int, Ge(1), Le(100_000)] = 8  # requests in flight at once
    kv_bytes_per_value: Positive = 2  # bf16 KV cache
    overhead_gb: Annotated[float, Ge(0), Le(64)] = 1.5  # CUDA context, activations of one batch, allocator slack
    weight_bytes: dict[str, Positive] = field(default_factory=_weight_bytes)  # bytes per weight by quantisation

    def __post_init__(self) -> None:
        if self.default_quant not in self.weight_bytes:
            raise ValueError(f"default_quant {self.default_quant!r} is not one of weight_bytes")


@dataclass(frozen=True, kw_only=True)
class Communication(_Section):
    """How cards talk: one node holds this many (NVIDIA HGX/DGX nodes: 8 GPUs on NVLink/NVSwitch)."""

    cards_per_node: Annotated[int, Ge(1), Le(64)] = 8


def _runway_alerts() -> tuple[float, ...]:
    return (48.0, 12.0)


@dataclass(frozen=True, kw_only=True)
class Metering(_Section):
    """When the meter runs (rules/power.py, rules/metering.py): how long an agent's or a scan's word that an
    instance is on holds once they fall silent, and the runways of a prepaid balance whose crossing tells its
    channels."""

    agent_silent_minutes: Annotated[float, Gt(0), Le(24 * 60)] = 15
    scan_silent_hours: Annotated[float, Gt(0), Le(7 * 24)] = 3
    runway_alert_hours: tuple[Annotated[float, Gt(0), Le(24 * 90)], ...] = field(default_factory=_runway_alerts)


@dataclass(frozen=True, kw_only=True)
class Policy(_Section):
    version: Annotated[int, Ge(1), Le(1)]
    two_of_four: TwoOfFour
    frequency: Frequency
    inference: Inference
    shared: Shared
    spot: Spot
    rent_vs_buy: RentVsBuy
    regions: Regions
    memory_estimates: MemoryEstimates
    idle: Idle = field(default_factory=Idle)
    capture: Capture = field(default_factory=Capture)
    communication: Communication = field(default_factory=Communication)
    serving: Serving = field(default_factory=Serving)
    budget: Budget = field(default_factory=Budget)
    metering: Metering = field(default_factory=Metering)


BUNDLED = "policy.yaml"


def bundled_file() -> Path:
    """The bundled policy file, beside this module (the package is installed as files; importlib.resources
    would cost every start 4-5 ms of imports)."""
    return Path(__file__).with_name(BUNDLED)


@cache
def _policies() -> TypeAdapter[Policy]:
    """pydantic at the edge: the policy's schema, built only when a policy file is validated."""
    from pydantic import TypeAdapter

    return TypeAdapter(Policy)


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        message = "Extra inputs are not permitted" if item["type"] == "unexpected_keyword_argument" else item["msg"]
        lines.append(f"{where}: {message}")
    return "; ".join(lines)


def policy_json(policy: Policy) -> dict[str, Any]:
    """The policy as plain data (what `gpu-advise policy show` prints)."""
    data: dict[str, Any] = _policies().dump_python(policy, mode="json")
    return data


def _read(text: str, origin: str) -> dict[str, Any]:
    import yaml  # only where a policy file is read: a start from the cache needs no YAML

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml when present
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
    from pydantic import ValidationError

    try:
        return _policies().validate_python(data)
    except ValidationError as exc:
        raise PolicyError(f"{origin}: {_describe(exc)}") from exc


def load_policy(path: Path | None = None) -> Policy:
    """The bundled policy, with the thresholds the file at `path` changes (it may hold only those)."""
    bundled = bundled_file().read_text("utf-8")
    if path is None:
        return parse_policy(bundled, BUNDLED)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise PolicyError(f"{path}: cannot read the policy file: {exc.strerror or exc}") from exc
    return parse_policy(text, str(path), base=_read(bundled, BUNDLED))
