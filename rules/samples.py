"""One GPU sample: what an agent's heartbeat, a Prometheus series and a probe's capture all are, read by
both the idle rule (idle.py) and capture analysis (capture.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Sample:
    at: datetime
    gpu: int
    utilization_pct: float
    memory_used_mib: float
    memory_total_mib: float
