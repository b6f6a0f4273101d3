"""Samples from a team's own Prometheus, for teams that already run NVIDIA's DCGM exporter, or the domestic
cards' exporters: Huawei's npu-exporter (Ascend), Cambricon's mlu-exporter, Hygon's dcu-exporter.

Every few minutes `serve` asks Prometheus's HTTP API (`GET /api/v1/query_range`) for
`DCGM_FI_DEV_GPU_UTIL` (percent), `DCGM_FI_DEV_FB_USED` and `DCGM_FI_DEV_FB_FREE` (MiB; total is
used + free) over the last minutes, and keeps them as if the instance's agent had sent them. A
series belongs to the tracked instance whose name equals its `GPU_ADVISOR_PROMETHEUS_LABEL` label
(default `Hostname`, which the exporter sets); its `gpu` label is the GPU index. Series of names
not tracked, or tracked in more than one team, are left alone. The domestic exporters (EXPORTERS), read
the same way and judged by the same idle rule:
- npu-exporter: `npu_chip_info_utilization` (percent), `npu_chip_info_hbm_used_memory` and
  `npu_chip_info_hbm_total_memory` (MB), the card in its `id` label;
- mlu-exporter (its default prefix `mlu`): `mlu_utilization` (percent), `mlu_memory_used` and `mlu_memory_total`
  (bytes, the physical memory), the card in `mlu`, the host in `node` where the label above is absent;
- dcu-exporter: `dcu_utilizationrate` (percent), `dcu_usedmemory_bytes` and `dcu_memorycap_bytes`, the card in
  `minor_number`.
A metric nobody exports is an empty answer, as Prometheus gives it.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from bot.deps import Deps
from bot.discover import k8s
from bot.discover.k8s import PodFiling
from bot.price_book import http_client
from bot.state.rentals import Instance, Rentals
from rules.samples import Sample

UTIL, USED, FREE = "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE"


@dataclass(frozen=True)
class Exporter:
    """A domestic card exporter's three series: utilisation (%), memory used and total (in `unit_mib` MiB a
    unit), and the labels its card index and host may be in (the configured host label is tried first)."""

    util: str
    used: str
    total: str
    index: tuple[str, ...]
    hosts: tuple[str, ...] = ()
    unit_mib: float = 1.0


EXPORTERS = (
    Exporter("npu_chip_info_utilization", "npu_chip_info_hbm_used_memory", "npu_chip_info_hbm_total_memory", ("id",)),
    Exporter("mlu_utilization", "mlu_memory_used", "mlu_memory_total", ("mlu",), ("node",), 1 / 1048576),
    Exporter(
        "dcu_utilizationrate",
        "dcu_usedmemory_bytes",
        "dcu_memorycap_bytes",
        ("minor_number", "monitor_number"),
        unit_mib=1 / 1048576,
    ),
)
log = logging.getLogger(__name__)


class PrometheusError(RuntimeError):
    """Prometheus could not be asked, or answered with an error: what and why."""


@dataclass(frozen=True)
class Pulled:
    kept: int  # samples new to the database
    series: int  # series that matched a tracked instance
    skipped: int  # series of names not tracked (or ambiguous)


def query_range(
    client: httpx.Client, base_url: str, query: str, start: datetime, end: datetime, step_s: int
) -> list[dict[str, Any]]:
    """One query_range call; the matrix's series (`metric` labels, `values` [[unix time, "value"], ...])."""
    params = {"query": query, "start": f"{start.timestamp():.3f}", "end": f"{end.timestamp():.3f}", "step": str(step_s)}
    try:
        response = client.get(base_url.rstrip("/") + "/api/v1/query_range", params=params)
        body = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise PrometheusError(f"{query}: {type(exc).__name__}: {exc}") from None
    if body.get("status") != "success":
        raise PrometheusError(f"{query}: HTTP {response.status_code}, {body.get('errorType')}: {body.get('error')}")
    data = body.get("data") or {}
    if data.get("resultType") != "matrix":
        raise PrometheusError(f"{query}: expected a matrix, got {data.get('resultType')}")
    return list(data.get("result") or [])


def _by_point(
    series: list[dict[str, Any]], hosts: tuple[str, ...], index: tuple[str, ...] = ("gpu",), scale: float = 1.0
) -> dict[tuple[str, int, float], float]:
    """Each point of `series` by (host, card, time): the host from the first of `hosts` a series has, the card
    from the first of `index` (0 when it has none), the value times `scale`."""
    out: dict[tuple[str, int, float], float] = {}
    for one in series:
        metric = one.get("metric") or {}
        name = next((metric[h] for h in hosts if h in metric), None)
        gpu = next((metric[i] for i in index if i in metric), "0")
        if name is None or not str(gpu).isdigit():
            continue
        for stamp, value in one.get("values") or []:
            out[(str(name), int(gpu), float(stamp))] = float(value) * scale
    return out


def pull(
    rentals: Rentals,
    client: httpx.Client,
    base_url: str,
    *,
    label: str,
    now: datetime,
    minutes: float = 10,
    step_s: int = 60,
    busy_above_pct: float = 5.0,
    pods: PodFiling | None = None,
) -> Pulled:
    """Fetch the last `minutes` of DCGM series and keep those of tracked, running instances; with `pods`, the
    series of Kubernetes pods no tracked instance claims become items of their own (bot/discover/k8s.py)."""
    start = now - timedelta(minutes=minutes)
    raw = [query_range(client, base_url, q, start, now, step_s) for q in (UTIL, USED, FREE)]
    util, used, free = (_by_point(series, (label,)) for series in raw)
    owners: dict[str, list[Instance]] = defaultdict(list)
    for team in rentals.teams():
        for inst in rentals.instances(team, active_only=True):
            if inst.source != "k8s":
                owners[inst.name].append(inst)
    if pods is not None:
        claimed = lambda labels: len(owners.get(str(labels.get(label)), [])) == 1  # noqa: E731 (a tracked instance's)
        in_pods = k8s.pods(raw[0], raw[1], raw[2], tracked=claimed)
        k8s.keep(rentals, in_pods, pods, now, timedelta(minutes=60))
    readings = {key: (pct, used[key], used[key] + free.get(key, 0.0)) for key, pct in util.items() if key in used}
    for exporter in EXPORTERS:
        readings |= _exporter_readings(exporter, client, base_url, label, start, now, step_s)
    found: dict[int, list[Sample]] = defaultdict(list)
    series, skipped = set(), {(name, gpu) for name, gpu, _ in util}
    for (name, gpu, stamp), (pct, mem_used, total) in readings.items():
        matches = owners.get(name, [])
        if len(matches) != 1:
            skipped.add((name, gpu))
            continue
        series.add((name, gpu))
        found[matches[0].id].append(Sample(datetime.fromtimestamp(stamp, UTC), gpu, pct, mem_used, total or mem_used))
    kept = sum(
        rentals.add_samples(inst_id, samples, [None] * len(samples), busy_above_pct=busy_above_pct)
        for inst_id, samples in found.items()
    )
    return Pulled(kept, len(series), len(skipped - series))


def _exporter_readings(
    exporter: Exporter, client: httpx.Client, base_url: str, label: str, start: datetime, end: datetime, step_s: int
) -> dict[tuple[str, int, float], tuple[float, float, float]]:
    """A domestic exporter's series as (utilisation, memory used, memory total in MiB) per host, card and point."""
    hosts = (label, *exporter.hosts)
    util, used, total = (
        _by_point(
            query_range(client, base_url, query, start, end, step_s),
            hosts,
            exporter.index,
            1.0 if query == exporter.util else exporter.unit_mib,
        )
        for query in (exporter.util, exporter.used, exporter.total)
    )
    return {key: (pct, used[key], total.get(key, used[key])) for key, pct in util.items() if key in used}


def pod_filing(deps: Deps, rentals: Rentals) -> PodFiling | None:
    """Where Kubernetes pods' items go: GPU_ADVISOR_DISCOVER_TEAM, else the one team with rentals (none
    when that is not clear), in GPU_ADVISOR_DISCOVER_CHANNEL."""
    from bot.fields.rentals import price_from_cache

    teams = rentals.teams()
    team = deps.settings.discovery.discover_team or (teams[0] if len(teams) == 1 else None)
    if team is None:
        return None

    def price_of(gpu: str, cards: int) -> tuple[float | None, str, str]:
        found = price_from_cache(deps.gpu_offers(gpu), cards, None)
        return (found.amount, found.unit, found.currency) if found else (None, "hour", deps.settings.files.currency)

    return PodFiling(team, deps.settings.discovery.discover_channel or "", price_of)


def pull_prometheus(deps: Deps, url: str, every_minutes: float) -> None:
    """The scheduler's Prometheus job: the last two intervals (a repeat is kept once); failures are logged."""
    rentals = Rentals(deps.store)
    try:
        with http_client(deps.settings) as client:
            done = pull(
                rentals,
                client,
                url,
                label=deps.settings.samples.prometheus_label,
                now=deps.now(),
                minutes=2 * every_minutes,
                busy_above_pct=deps.policy.idle.utilisation_max_pct,
                pods=pod_filing(deps, rentals),
            )
    except PrometheusError as exc:
        log.warning("Prometheus pull failed: %s", exc)
        return
    log.info(
        "Prometheus: %d new samples from %d series (%d series of untracked names)", done.kept, done.series, done.skipped
    )
