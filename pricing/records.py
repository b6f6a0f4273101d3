"""One price: what is sold (GPU, count, sharing), how it is billed, and where the figure came from."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.gpus import canonical_gpu, gpu_model


class Sharing(StrEnum):
    DEDICATED = "dedicated"
    MIG = "mig"
    VGPU = "vgpu"
    TIME_SLICED = "time-sliced"


class PricingModel(StrEnum):
    ON_DEMAND = "on-demand"
    SPOT = "spot"
    DAILY = "daily"
    MONTHLY = "monthly"
    RESERVED = "reserved"


class Unit(StrEnum):
    HOUR = "hour"
    DAY = "day"
    MONTH = "month"


class Currency(StrEnum):
    CNY = "CNY"
    USD = "USD"


class RegionClass(StrEnum):
    TIER1 = "tier1"  # Beijing, Shanghai, Shenzhen, ...
    INLAND = "inland"  # Inner Mongolia, Guizhou, ... data centres
    CLOUD = "cloud"  # a public cloud region outside China
    ANY = "any"  # a reference price with no region


HOURS_PER_UNIT = {Unit.HOUR: 1.0, Unit.DAY: 24.0, Unit.MONTH: 24.0 * 30}

# Per-GPU-hour bounds that no real price leaves: outside them a row is a unit or decimal mistake.
SANE_PER_GPU_HOUR = {Currency.USD: (0.01, 150.0), Currency.CNY: (0.05, 1000.0)}


class PriceRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = Field(min_length=1)
    provider: str = Field(min_length=1)
    region: str = "any"
    region_class: RegionClass = RegionClass.ANY
    instance_type: str = Field(min_length=1)
    gpu: str
    gpu_count: float = Field(gt=0, le=1024)  # fractional for slices: 0.5 is half a card
    gpu_memory_gb: float | None = Field(default=None, gt=0)
    sharing: Sharing = Sharing.DEDICATED
    mig_profile: str | None = None
    pricing_model: PricingModel
    amount: float = Field(gt=0)
    currency: Currency
    unit: Unit
    fetched_at: datetime
    effective_date: date | None = None
    provenance: str = Field(min_length=1)  # URL or file
    basis: str = ""  # e.g. "2024 public quote"
    flags: str = ""
    # cheaper tiers of an hourly price for one instance's continuous use (Tencent Cloud's 阶梯计费: past 96 h and past
    # 360 h), in the same currency and unit; None: one price for every hour
    amount_after_96h: float | None = Field(default=None, gt=0)
    amount_after_360h: float | None = Field(default=None, gt=0)

    @field_validator("gpu")
    @classmethod
    def _canonical(cls, value: str) -> str:
        return canonical_gpu(value)

    @model_validator(mode="after")
    def _consistent(self) -> PriceRecord:
        if self.gpu_memory_gb is None:
            card = gpu_model(self.gpu).memory_gb
            object.__setattr__(self, "gpu_memory_gb", round(card * self.gpu_count, 2))
        if self.sharing is Sharing.DEDICATED and self.gpu_count != int(self.gpu_count):
            raise ValueError("a dedicated price must be for whole cards; use sharing mig, vgpu or time-sliced")
        if self.sharing is not Sharing.DEDICATED and self.gpu_count > 1:
            raise ValueError("a shared slice is at most one card (gpu_count <= 1)")
        low, high = SANE_PER_GPU_HOUR[self.currency]
        per = self.per_gpu_hour
        if not low <= per <= high:
            raise ValueError(f"{per:.4g} {self.currency} per GPU-hour is outside the sane range {low}-{high}")
        return self

    @property
    def per_gpu_hour(self) -> float:
        return self.amount / HOURS_PER_UNIT[self.unit] / self.gpu_count

    @property
    def per_hour(self) -> float:
        """The price of the whole offer (all its cards or its slice) for one hour."""
        return self.amount / HOURS_PER_UNIT[self.unit]


class ExtraKind(StrEnum):
    STORAGE = "storage"  # per GB-month kept
    EGRESS = "egress"  # per GB sent out


EXTRA_UNITS = {ExtraKind.STORAGE: "gb-month", ExtraKind.EGRESS: "gb"}


class ExtraPrice(BaseModel):
    """What a run costs beside its cards: storage by the GB-month, traffic out by the GB.

    A rate-card or feed row with `kind` storage or egress (and `unit` gb-month or gb) is one of these;
    its GPU columns stay empty."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source: str = Field(min_length=1)
    kind: ExtraKind
    provider: str = Field(min_length=1)
    region: str = "any"
    amount: float = Field(gt=0, le=1000)
    currency: Currency
    unit: str
    effective_date: date | None = None
    basis: str = ""
    provenance: str = Field(min_length=1)
    fetched_at: datetime

    @model_validator(mode="after")
    def _unit_fits_kind(self) -> ExtraPrice:
        if self.unit != EXTRA_UNITS[self.kind]:
            raise ValueError(f"a {self.kind.value} price is per {EXTRA_UNITS[self.kind]}")
        return self
