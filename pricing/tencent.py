"""Tencent Cloud's own prices for CVM GPU instance types, by its API 3.0: DescribeZoneInstanceConfigInfos gives each
zone's pay-as-you-go price of a type (Price.UnitPrice, CNY an hour, the first tier; UnitPriceSecondStep past 96 h
and UnitPriceThirdStep past 360 h are cheaper) and whether it is in stock (Status SELL or SOLD_OUT), and GpuCount,
the cards a type maps to (below 1: a vGPU share).

The API does not say which card a type carries, so each type is configured with its GPU
(GPU_ADVISOR_TENCENT_PRICE_TYPES=GN7.2XLARGE32=T4,...); one without is left out, said in the source's note. The
region's price is its cheapest zone in stock (else the cheapest). `ask(region, action, params)` makes the call
(the bot builds it on the official SDK, signed with the account's keys) and raises AskError with one line."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from pricing.aliyun import Ask, AskError, Skipped
from pricing.errors import SourceError, TransientSourceError
from pricing.records import Currency, PriceRecord, PricingModel, RegionClass, Sharing, Unit
from rules.errors import UnknownGPU
from rules.gpus import canonical_gpu

PROVIDER = "tencent"
ACTION = "DescribeZoneInstanceConfigInfos"
TIER1 = ("ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-shenzhen-fsi", "ap-shanghai-fsi")
BATCH = 10  # instance types a filter carries


def types_of(setting: str) -> dict[str, str | None]:
    """`GN7.2XLARGE32=T4,GNV4.4XLARGE48` as {type: its GPU, or None when not named}."""
    out: dict[str, str | None] = {}
    for entry in (e.strip() for e in setting.split(",")):
        if entry:
            kind, _, gpu = entry.partition("=")
            out[kind.strip()] = gpu.strip() or None
    return out


def fetch(
    ask: Ask, regions: tuple[str, ...], types: dict[str, str | None], now: datetime, skipped: Skipped, where: str
) -> Iterator[PriceRecord]:
    """On-demand records an hour for `types` in `regions`."""
    skipped.lines.clear()
    named: dict[str, str] = {}
    for kind, gpu in types.items():
        try:
            named[kind] = canonical_gpu(gpu) if gpu else ""
        except UnknownGPU:
            skipped.lines.append(f"{kind}: {gpu} is not a GPU the catalogue knows")
            continue
        if not gpu:
            skipped.lines.append(f"{kind}: name its GPU ({kind}=T4): Tencent Cloud's price API does not say it")
    priced = {k: g for k, g in named.items() if g}
    calls = failures = 0
    for region in regions:
        kinds = sorted(priced)
        for start in range(0, len(kinds), BATCH):
            calls += 1
            rows = _quotas(ask, region, kinds[start : start + BATCH], skipped)
            if rows is None:
                failures += 1
                continue
            yield from _records(region, rows, priced, now, skipped, where)
    if calls and failures == calls:
        raise SourceError(f"Tencent Cloud priced none of {len(priced)} instance types: {skipped.note()}")


def _quotas(ask: Ask, region: str, kinds: list[str], skipped: Skipped) -> list[dict[str, Any]] | None:
    filters = [
        {"Name": "instance-type", "Values": kinds},
        {"Name": "instance-charge-type", "Values": ["POSTPAID_BY_HOUR"]},
    ]
    try:
        return list(ask(region, ACTION, {"Filters": filters}).get("InstanceTypeQuotaSet") or [])
    except AskError as exc:
        if exc.transient:
            raise TransientSourceError(str(exc)) from None
        skipped.lines.append(f"{', '.join(kinds)} in {region}: {exc}")
        return None


def _records(
    region: str, rows: list[dict[str, Any]], gpus: dict[str, str], now: datetime, skipped: Skipped, where: str
) -> Iterator[PriceRecord]:
    def rank(row: dict[str, Any]) -> tuple[bool, float]:
        return row.get("Status") != "SELL", float(row["Price"]["UnitPrice"])  # in stock first, then the cheapest

    best: dict[str, dict[str, Any]] = {}
    for row in rows:
        kind = str(row.get("InstanceType") or "")
        if kind in gpus and (row.get("Price") or {}).get("UnitPrice") is not None:
            best[kind] = min(best.get(kind, row), row, key=rank)
    for kind in gpus:
        if kind not in best:
            skipped.lines.append(f"{kind} in {region}: not sold there by the hour")
    for kind, row in best.items():
        count = float(row.get("GpuCount") or row.get("Gpu") or 1)
        price = row["Price"]
        tiers = [f"¥{price[k]:g}" for k in ("UnitPriceSecondStep", "UnitPriceThirdStep") if price.get(k)]
        basis = "pay-as-you-go list price, first tier" + (f" (past 96 h / 360 h: {' / '.join(tiers)})" if tiers else "")
        if row.get("Status") != "SELL":
            basis += "; sold out in every zone when read"
        try:
            yield PriceRecord(
                source=PROVIDER,
                provider=PROVIDER,
                region=region,
                region_class=RegionClass.TIER1 if region in TIER1 else RegionClass.CLOUD,
                instance_type=kind,
                gpu=gpus[kind],
                gpu_count=count,
                sharing=Sharing.VGPU if count < 1 else Sharing.DEDICATED,
                pricing_model=PricingModel.ON_DEMAND,
                amount=float(price["UnitPrice"]),
                currency=Currency.CNY,
                unit=Unit.HOUR,
                fetched_at=now,
                provenance=f"Tencent Cloud {ACTION} ({where}), zone {row.get('Zone')}",
                basis=basis,
                amount_after_96h=float(price["UnitPriceSecondStep"]) if price.get("UnitPriceSecondStep") else None,
                amount_after_360h=float(price["UnitPriceThirdStep"]) if price.get("UnitPriceThirdStep") else None,
            )
        except (ValidationError, ValueError) as exc:
            skipped.lines.append(f"{kind} in {region}: {str(exc).splitlines()[0]}")
