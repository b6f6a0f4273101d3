"""Alibaba Cloud's own prices for ECS GPU instance types, by its OpenAPI: DescribeInstanceTypes says what GPUs a
type carries (GPUSpec, GPUAmount), DescribePrice its pay-as-you-go price an hour (TradePrice, in the account's
currency) in each region, DescribeSpotPriceHistory its latest spot price there (the cheapest zone's).

This module knows the API's actions and answers, not its transport: `ask(region, action, params)` makes the call
(the bot builds it on the official SDK, signed with the account's keys) and raises AskError with one line when it
fails. A type a region does not sell is left out, said in the source's note; a failure of every call is the
source's error (the cache keeps its last good prices)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from pricing.errors import SourceError, TransientSourceError
from pricing.records import Currency, PriceRecord, PricingModel, RegionClass, Unit
from rules.errors import UnknownGPU
from rules.gpus import canonical_gpu

PROVIDER = "aliyun"
ACTION = {PricingModel.ON_DEMAND: "DescribePrice", PricingModel.SPOT: "DescribeSpotPriceHistory"}
TIER1 = ("cn-beijing", "cn-shanghai", "cn-shenzhen", "cn-hangzhou", "cn-guangzhou")
INLAND = ("cn-wulanchabu", "cn-zhangjiakou", "cn-huhehaote", "cn-heyuan", "cn-chengdu")


class AskError(Exception):
    """A call that failed, in one line; `transient` when throttled or unreachable (worth a retry later)."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


Ask = Callable[[str, str, dict[str, Any]], dict[str, Any]]


@dataclass
class Skipped:
    """What a load left out, for the source's note."""

    lines: list[str] = field(default_factory=list)

    def note(self) -> str | None:
        return (
            "; ".join(self.lines[:10]) + (f"; and {len(self.lines) - 10} more" if len(self.lines) > 10 else "") or None
        )


def region_class(region: str) -> RegionClass:
    if region in TIER1:
        return RegionClass.TIER1
    if region in INLAND:
        return RegionClass.INLAND
    return RegionClass.CLOUD if not region.startswith("cn-") else RegionClass.ANY


def gpu_of(raw: dict[str, Any]) -> tuple[str, int] | None:
    """(catalogue GPU, cards) of a DescribeInstanceTypes entry; None for a type without GPUs or one the
    catalogue does not know."""
    count = int(raw.get("GPUAmount") or 0)
    spec = str(raw.get("GPUSpec") or "").strip()
    if count <= 0 or not spec:
        return None
    try:
        return canonical_gpu(spec), count
    except UnknownGPU:
        return None


def fetch(
    ask: Ask, regions: Iterable[str], types: Iterable[str], now: datetime, skipped: Skipped, where: str
) -> Iterator[PriceRecord]:
    """Price records for `types` in `regions`: on-demand by the hour, and spot where a spot price is known."""
    regions, types = list(regions), sorted(set(types))
    skipped.lines.clear()
    if not regions or not types:
        return
    kinds = _types(ask, regions[0], types, skipped)
    failures, calls = 0, 0
    for region in regions:
        for instance_type, (gpu, cards) in kinds.items():
            for model, amount, currency in _prices(ask, region, instance_type, skipped):
                calls += 1
                if amount is None:
                    failures += 1
                    continue
                try:
                    yield PriceRecord(
                        source=PROVIDER,
                        provider=PROVIDER,
                        region=region,
                        region_class=region_class(region),
                        instance_type=instance_type,
                        gpu=gpu,
                        gpu_count=cards,
                        pricing_model=model,
                        amount=amount,
                        currency=Currency(currency),
                        unit=Unit.HOUR,
                        fetched_at=now,
                        provenance=f"Alibaba Cloud {ACTION[model]} ({where})",
                        basis="pay-as-you-go list price" if model is PricingModel.ON_DEMAND else "latest spot price",
                    )
                except (ValidationError, ValueError) as exc:  # an amount outside the sane range, ...
                    skipped.lines.append(f"{instance_type} in {region}: {str(exc).splitlines()[0]}")
    if calls and failures == calls:
        raise SourceError(f"Alibaba Cloud priced none of {len(kinds)} instance types: {skipped.note()}")


def _types(ask: Ask, region: str, types: list[str], skipped: Skipped) -> dict[str, tuple[str, int]]:
    """Each type's GPUs, by DescribeInstanceTypes (ten types a call)."""
    out: dict[str, tuple[str, int]] = {}
    for start in range(0, len(types), 10):
        batch = types[start : start + 10]
        params = {f"InstanceTypes.{n + 1}": name for n, name in enumerate(batch)}
        body = _ask(ask, region, "DescribeInstanceTypes", params)
        for raw in (body.get("InstanceTypes") or {}).get("InstanceType") or []:
            found = gpu_of(raw)
            if found is None:
                skipped.lines.append(f"{raw.get('InstanceTypeId')}: no GPU the catalogue knows")
            else:
                out[str(raw.get("InstanceTypeId"))] = found
    for name in types:
        if name not in out and not any(line.startswith(f"{name}:") for line in skipped.lines):
            skipped.lines.append(f"{name}: not an instance type Alibaba Cloud knows")
    return out


def _prices(
    ask: Ask, region: str, instance_type: str, skipped: Skipped
) -> Iterator[tuple[PricingModel, float | None, str]]:
    try:
        body = ask(
            region,
            "DescribePrice",
            {"RegionId": region, "ResourceType": "instance", "InstanceType": instance_type, "PriceUnit": "Hour"},
        )
        price = (body.get("PriceInfo") or {}).get("Price") or {}
        yield PricingModel.ON_DEMAND, float(price["TradePrice"]), str(price.get("Currency") or "CNY")
    except AskError as exc:
        if exc.transient:
            raise TransientSourceError(str(exc)) from None
        skipped.lines.append(f"{instance_type} in {region}: {exc}")
        yield PricingModel.ON_DEMAND, None, "CNY"
        return
    except (KeyError, TypeError, ValueError):
        skipped.lines.append(f"{instance_type} in {region}: DescribePrice answered without a TradePrice")
        yield PricingModel.ON_DEMAND, None, "CNY"
        return
    try:
        history = ask(
            region,
            "DescribeSpotPriceHistory",
            {"RegionId": region, "NetworkType": "vpc", "InstanceType": instance_type},
        )
    except AskError as exc:
        skipped.lines.append(f"{instance_type} spot in {region}: {exc}")
        return
    points = (history.get("SpotPrices") or {}).get("SpotPriceType") or []
    latest: dict[str, tuple[str, float]] = {}
    for point in points:
        zone, at = str(point.get("ZoneId")), str(point.get("Timestamp"))
        if zone not in latest or at > latest[zone][0]:
            latest[zone] = (at, float(point["SpotPrice"]))
    if latest:
        yield PricingModel.SPOT, min(p for _, p in latest.values()), str(history.get("Currency") or "CNY")


def _ask(ask: Ask, region: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
    try:
        return ask(region, action, {"RegionId": region, **params})
    except AskError as exc:
        if exc.transient:
            raise TransientSourceError(str(exc)) from None
        raise SourceError(f"Alibaba Cloud {action}: {exc}") from None
