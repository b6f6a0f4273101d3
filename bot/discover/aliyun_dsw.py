"""Alibaba Cloud's PAI-DSW notebook instances with accelerators, with the official SDK (alibabacloud-pai-dsw20220101,
REST-style, signed ACS3 as the other products; the same credentials and endpoint as ECS): ListInstances
(AcceleratorType GPU, page by page), the idle-shutdown rule each one has (IdleInstanceCuller: stopped by DSW after
MaxIdleTimeInMinutes below its GPU threshold), GetInstanceMetrics (GpuCoreUsage and GpuMemoryUsage in %, per pod)
and StopInstance, then the instance read again.

A notebook's card is its ECS type's (EcsSpec, told by ECS's DescribeInstanceTypes: GPUSpec, GPUAmount) or, where
the resources were requested (a subscription's quota), RequestedResource's GPU and GPUType. DSW bills by its own
price list, not ECS's: the item is priced only from rows the price cache has for provider aliyun-dsw, else its
cost is unknown. Keys aliyun-dsw:dsw-…; owner, channel and project from the same tags as ECS."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from bot.discover.aliyun import Aliyun
from bot.discover.cloud import (
    CloudError,
    Paging,
    Stopped,
    free_once_stopped,
    gpu_named,
    scan_regions,
    settled,
    utc_time,
)
from bot.state.discovered import IDLE_TAG, IDLE_THRESHOLD_TAG, Found, Scan  # its own idle-shutdown rule, kept with it
from pricing.aliyun import gpu_of
from rules.errors import UnknownGPU
from rules.gpus import gpu_model
from rules.samples import Sample

PAGE = 100
STATES = {
    "Running": "running",
    "Stopped": "stopped",
    "Stopping": "stopping",
    "Starting": "pending",
    "Creating": "pending",
    "Queuing": "pending",
    "Recovering": "pending",
    "Saving": "running",
    "Failed": "stopped",
    "Deleting": "terminated",
}


class AliyunDsw(Aliyun):
    name = "aliyun-dsw"
    metrics = "dsw"  # DSW's own instance metrics

    def scan(self) -> Scan:
        return scan_regions(self.name, self.regions, self._notebooks)

    def _notebooks(self, region: str) -> Iterator[Found]:
        from alibabacloud_pai_dsw20220101 import models

        page = 1
        paging = Paging("Alibaba Cloud", f"PAI-DSW ListInstances in {region}")
        while True:
            request = models.ListInstancesRequest(accelerator_type="GPU", page_number=page, page_size=PAGE)
            body = self.call("dsw", region, "list_instances", request)
            rows = body.get("Instances") or []
            paging.rows(rows)
            for raw in rows:
                yield notebook_found(raw, region, self._card(region, raw))
            if not rows or page * PAGE >= int(body.get("TotalCount") or 0):
                return
            page += 1

    def _card(self, region: str, raw: dict[str, Any]) -> tuple[str | None, int]:
        """The notebook's GPU model and count: its ECS type's (asked once a type), else what it requested."""
        spec = str(raw.get("EcsSpec") or "")
        typed = gpu_of(self.instance_type(region, spec)) if spec.startswith("ecs.") else None
        if typed is not None:
            return typed
        asked = raw.get("RequestedResource") or {}
        count = int(float(asked.get("GPU") or 0) or 1)
        return gpu_named(str(asked.get("GPUType") or "").strip()), count

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """DSW's GpuCoreUsage and GpuMemoryUsage (%), one-minute points, as samples of card 0 (DSW gives them per
        pod, not per card); the memory in MiB from the card's size in the catalogue (the notebook read again)."""
        out: dict[str, list[Sample]] = {}
        for instance_id in instance_ids:
            points: dict[datetime, dict[str, float]] = defaultdict(dict)
            for metric in ("GpuCoreUsage", "GpuMemoryUsage"):
                for at, value in self._series(region, instance_id, metric, since, until):
                    points[at][metric] = value
            total = self._card_mib(region, instance_id)
            out[instance_id] = [
                Sample(at, 0, got["GpuCoreUsage"], round(total * got.get("GpuMemoryUsage", 0.0) / 100, 1), total)
                for at, got in sorted(points.items())
                if "GpuCoreUsage" in got
            ]
        return out

    def _card_mib(self, region: str, instance_id: str) -> float:
        """One card's memory of the notebook, in MiB (1 when its card is not in the catalogue: the samples then
        keep the memory as a share)."""
        gpu, _ = self._card(region, self._read(region, instance_id))
        try:
            return gpu_model(gpu).memory_gb * 1024 if gpu else 1.0
        except UnknownGPU:
            return 1.0

    def _series(
        self, region: str, instance_id: str, metric: str, since: datetime, until: datetime
    ) -> Iterator[tuple[datetime, float]]:
        from alibabacloud_pai_dsw20220101 import models

        request = models.GetInstanceMetricsRequest(
            metric_type=metric,
            start_time=since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            end_time=until.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            time_step="1",
        )
        body = self.call("dsw", region, "get_instance_metrics", instance_id, request)
        if body.get("Success") is False:
            raise CloudError(f"PAI-DSW metrics {body.get('Code')}: {str(body.get('Message', ''))[:160]}")
        for pod in body.get("PodMetrics") or []:
            for point in pod.get("Metrics") or []:
                if point.get("Value") is not None and point.get("Time") is not None:
                    yield datetime.fromtimestamp(int(point["Time"]) / 1000, UTC), float(point["Value"])

    def _read(self, region: str, instance_id: str) -> dict[str, Any]:
        from alibabacloud_pai_dsw20220101 import models

        return self.call("dsw", region, "get_instance", instance_id, models.GetInstanceRequest())

    def stop(self, region: str, instance_id: str) -> Stopped:
        from alibabacloud_pai_dsw20220101 import models

        self.call("dsw", region, "stop_instance", instance_id, models.StopInstanceRequest())
        body = settled(lambda: self._read(region, instance_id), lambda raw: raw.get("Status") == "Stopping")
        said = str(body.get("Status") or "unknown")
        state = STATES.get(said, said.lower())  # a stopped pay-as-you-go notebook bills no compute; stopping: not yet
        return Stopped(state, charging=free_once_stopped(state), how="StopInstance")


def notebook_found(raw: dict[str, Any], region: str, card: tuple[str | None, int]) -> Found:
    tags = {
        str(t.get("TagKey", t.get("Key", ""))): str(t.get("TagValue", t.get("Value", "")))
        for t in raw.get("Tags") or []
    }
    culler = raw.get("IdleInstanceCuller") or {}
    # its own idle-shutdown rule, in minutes; 0: DSW's idle culler is off for it (flagged in the digest)
    tags[IDLE_TAG] = str(culler.get("MaxIdleTimeInMinutes") or 0)
    if culler.get("MaxIdleTimeInMinutes") and culler.get("GpuPercentThreshold") is not None:
        tags[IDLE_THRESHOLD_TAG] = str(culler["GpuPercentThreshold"])  # idle: under this GPU % (and the CPU's)
    said = str(raw.get("Status") or "unknown")
    state = STATES.get(said, said.lower())
    gpu, cards = card
    spec = str(raw.get("EcsSpec") or "")
    return Found(
        f"aliyun-dsw:{raw['InstanceId']}",
        "instance",
        region,
        str(raw.get("InstanceName") or raw["InstanceId"]),
        state,
        tags,
        f"PAI-DSW {spec}" if spec else "PAI-DSW",  # DSW's own price, not the ECS type's
        gpu,
        max(cards, 1),
        None,
        False,
        utc_time(raw.get("GmtCreateTime")),
        charging=free_once_stopped(state),
        currency="CNY",
        billing="month" if raw.get("PaymentType") == "Subscription" else "hourly",
    )
