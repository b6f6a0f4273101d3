"""EC2 instance types that carry GPUs: the GPU model (the catalogue's name), count and memory, and an On-Demand
reference price with its source and date (data/aws_gpu_instances.csv), and EBS volume prices per GB-month.

The prices are references for when the price cache has none for the GPU: us-east-1, Linux, as AWS published
them on the dates given; a team's own prices (rate card, the price cache) win."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DATA = Path(__file__).parent / "data" / "aws_gpu_instances.csv"

# EBS per GB-month, us-east-1 (AWS's Amazon EBS pricing page, 2024): what an unattached volume keeps costing.
VOLUME_USD_GB_MONTH = {
    "gp3": 0.08,
    "gp2": 0.10,
    "io1": 0.125,
    "io2": 0.125,
    "st1": 0.045,
    "sc1": 0.015,
    "standard": 0.05,
}
VOLUME_SOURCE = "AWS Amazon EBS pricing, us-east-1, 2024"


@dataclass(frozen=True)
class GpuType:
    instance_type: str
    gpu: str
    gpus: int
    gpu_memory_gb: float
    usd_per_hour: float | None  # None: no public On-Demand price
    as_of: str
    source: str


@cache
def gpu_types() -> dict[str, GpuType]:
    with DATA.open(encoding="utf-8", newline="") as handle:
        return {
            row["instance_type"]: GpuType(
                row["instance_type"],
                row["gpu"],
                int(row["gpus"]),
                float(row["gpu_memory_gb"]),
                float(row["usd_per_hour"]) if row["usd_per_hour"] else None,
                row["as_of"],
                row["source"],
            )
            for row in csv.DictReader(handle)
        }
