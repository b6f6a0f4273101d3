"""Kubernetes through what teams already run: DCGM exporter series in their Prometheus that carry
`exported_namespace` and `exported_pod` (the pod a GPU is given to) and match no tracked instance become
items `k8s:NAMESPACE/POD`: the GPU model from `modelName`, the cards from the series, activity from the same
series. Notify only: nothing in a cluster is ever stopped. A pod with no series for an idle window is
released "by the cloud"."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bot.state.discovered import Discovered
from bot.state.rentals import NAME, Rentals
from rules.gpus import card_model
from rules.samples import Sample

NS, POD = "exported_namespace", "exported_pod"


@dataclass(frozen=True)
class PodFiling:
    team: str
    channel: str
    price_of: Callable[[str, int], tuple[float | None, str, str]]  # (GPU, cards) -> price, unit, currency


def pods(
    util: list[dict[str, Any]],
    used: list[dict[str, Any]],
    free: list[dict[str, Any]],
    tracked: Callable[[dict[str, str]], bool],
) -> dict[str, dict[str, Any]]:
    """Per pod key (`k8s:ns/pod`): its GPU model and samples, from series no tracked instance claims."""
    points: dict[tuple[str, int, float], dict[str, float]] = defaultdict(dict)
    models: dict[str, str] = {}
    for name, series in (("util", util), ("used", used), ("free", free)):
        for one in series:
            labels = one.get("metric") or {}
            gpu_label = str(labels.get("gpu", "0"))
            if not labels.get(NS) or not labels.get(POD) or tracked(labels) or not gpu_label.isdigit():
                continue
            key = f"k8s:{labels[NS]}/{labels[POD]}"
            models.setdefault(key, str(labels.get("modelName", "unknown")))
            for stamp, value in one.get("values") or []:
                points[(key, int(labels.get("gpu", "0")), float(stamp))][name] = float(value)
    out: dict[str, dict[str, Any]] = {key: {"model": model, "samples": []} for key, model in models.items()}
    for (key, gpu, stamp), reading in sorted(points.items(), key=lambda kv: kv[0][2]):
        if "util" in reading and "used" in reading:
            total = reading["used"] + reading.get("free", 0.0)
            out[key]["samples"].append(
                Sample(
                    datetime.fromtimestamp(stamp, UTC), gpu, reading["util"], reading["used"], total or reading["used"]
                )
            )
    return out


def keep(
    rentals: Rentals, found: dict[str, dict[str, Any]], filing: PodFiling, now: datetime, gone_after: timedelta
) -> int:
    """Make or update each pod's item and keep its samples; release pods not seen for `gone_after`.
    Returns how many samples were new."""
    known = {str(i.provider_id): i for i in rentals.instances(filing.team) if (i.provider_id or "").startswith("k8s:")}
    kept = 0
    for key, pod in found.items():
        inst = known.get(key)
        cards = len({s.gpu for s in pod["samples"]}) or 1
        if inst is None:
            gpu = card_model(pod["model"]) or pod["model"].removeprefix("NVIDIA ")[:32]
            price, unit, currency = filing.price_of(gpu, cards)
            inst = Discovered(rentals.store).add_pod(
                filing.team, key, _name(key), gpu, cards, filing.channel, (price, unit, currency), now
            )
        elif inst.released_at is not None:
            continue
        kept += rentals.add_samples(inst.id, pod["samples"], [None] * len(pod["samples"]))
    for key, item in known.items():
        quiet_for_long = item.started_at < now - gone_after and not rentals.recent([item.id], now - gone_after)[item.id]
        if key not in found and item.released_at is None and quiet_for_long:
            rentals.release_by(item.id, now, "cloud")
    return kept


def _name(key: str) -> str:
    """`namespace.pod` when it is a usable name, else the pod's own name."""
    namespace, pod = key.removeprefix("k8s:").split("/", 1)
    for wanted in (f"{namespace}.{pod}", pod):
        if NAME.fullmatch(wanted):
            return wanted
    return pod[:64]
