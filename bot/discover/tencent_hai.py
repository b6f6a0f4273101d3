"""Tencent Cloud's HAI (高性能应用服务, GPU application servers) through its API (hai 2023-08-12, the official SDK's
common client, signed TC3-HMAC-SHA256, the same credentials and endpoint as CVM): DescribeInstances (InstanceSet:
InstanceId, InstanceName, InstanceState, BundleName, GPUCount, GPUMemory in GB, CreateTime in Beijing time) and
StopInstance with StopMode STOP_CHARGE (its only mode: the compute stops billing), then a describe.

A HAI instance says neither its card's model nor its price: it is kept with its bundle's name as its card ("GPU
进阶型") and priced only where the price cache has a row for provider tencent-hai. HAI has no GPU metrics API: an
agent on the server reports its activity, else it is unknown, never idle. A region where HAI is not offered has
nothing in it (not a problem)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

from bot.discover.cloud import CloudError, Stopped, scan_regions, settled, utc_time
from bot.discover.tencent import BAD_REGION, Tencent
from bot.state.discovered import Found, Scan
from bot.text.problem import Problem
from rules.samples import Sample

PAGE = 100  # DescribeInstances takes Offset up to 100; 100 a page reads 200 servers a region
BEIJING = timezone(timedelta(hours=8))
STATES = {
    "PENDING": "pending",
    "RUNNING": "running",
    "STARTING": "pending",
    "STOPPING": "stopping",
    "STOPPED": "stopped",
    "STOPPED_NO_CHARGE": "stopped",
    "ARREARS": "stopped",  # in arrears, to be reclaimed
    "TERMINATING": "terminated",
    "TERMINATED": "terminated",
    "LAUNCH_FAILED": "terminated",
}


class TencentHai(Tencent):
    name = "tencent-hai"
    metrics = "agent"  # no GPU metrics API for HAI

    def scan(self) -> Scan:
        return scan_regions(self.name, self.regions, self._servers)

    def _servers(self, region: str) -> Iterator[Found]:
        offset = 0
        while True:
            body = self.call("hai", region, "DescribeInstances", {"Offset": offset, "Limit": PAGE}, absent=BAD_REGION)
            page = body.get("InstanceSet") or []
            for raw in page:
                yield hai_found(raw, region)
            offset += len(page)
            if not page or offset >= int(body.get("TotalCount") or 0) or offset > 100:
                return

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        return {}

    def _described(self, region: str, instance_id: str) -> list[dict[str, Any]]:
        body = self.call("hai", region, "DescribeInstances", {"InstanceIds": [instance_id]})
        return list(body.get("InstanceSet") or [])

    def stop(self, region: str, instance_id: str) -> Stopped:
        self.call("hai", region, "StopInstance", {"InstanceId": instance_id, "StopMode": "STOP_CHARGE"})
        # whether it keeps billing (STOPPED or STOPPED_NO_CHARGE) is said once it has stopped: read until then
        found = settled(lambda: self._described(region, instance_id), lambda rows: _stopping(rows))
        if not found:
            raise CloudError(Problem("cloud.gone_after_stop", instance=instance_id, region=region))
        said = str(found[0].get("InstanceState") or "unknown")
        return Stopped(STATES.get(said, said.lower()), charging=_charging(said), how="StopInstance(STOP_CHARGE)")


def _stopping(rows: list[dict[str, Any]]) -> bool:
    return bool(rows) and rows[0].get("InstanceState") == "STOPPING"


def _charging(state: str) -> bool | None:
    """STOPPED_NO_CHARGE: its compute stopped billing; STOPPED: still billed; else not said."""
    return {"STOPPED_NO_CHARGE": False, "STOPPED": True}.get(state)


def hai_found(raw: dict[str, Any], region: str) -> Found:
    said = str(raw.get("InstanceState") or "unknown")
    state = STATES.get(said, said.lower())
    bundle = str(raw.get("BundleName") or "").strip()
    return Found(
        f"tencent-hai:{raw['InstanceId']}",
        "instance",
        region,
        str(raw.get("InstanceName") or raw["InstanceId"]),
        state,
        {},
        bundle or None,
        f"HAI {bundle}" if bundle else None,
        max(int(raw.get("GPUCount") or 1), 1),
        None,
        False,
        utc_time(raw.get("CreateTime"), BEIJING),
        charging=_charging(said) if state == "stopped" else None,
        currency="CNY",
        billing="hourly",
    )
