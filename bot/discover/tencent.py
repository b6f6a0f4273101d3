"""Reading and stopping Tencent Cloud with its official SDK (tencentcloud-sdk-python-cvm, -monitor; their common
client, signed TC3-HMAC-SHA256): CVM instances with GPUs (GPUInfo; a GPUCount below 1 is a vGPU share, kept as
one card), their pay-as-you-go price from DescribeZoneInstanceConfigInfos, CBS disks attached to nothing
(DescribeDisks, disk-state UNATTACHED), Cloud Monitor's GPU metrics.

Credentials: TENCENTCLOUD_SECRET_ID / TENCENTCLOUD_SECRET_KEY (and TENCENTCLOUD_SESSION_TOKEN) as set when the
cloud is made, else the SDK's chain (a profile, a CVM role). `endpoint` points every client at one host (a local
fake in tests). Rate limits (RequestLimitExceeded) are retried with back-off; Cloud Monitor is asked at most 10
instances a call. Calls are paced under each API's published limit (PACE), across the regions read at once.

Tencent Cloud keeps billing a stopped CVM by default (KEEP_CHARGING): the bot asks for STOP_CHARGING with
SOFT_FIRST. Where the cloud refuses no-charge for an instance (prepaid, a family or disk that cannot), the bot
does not stop it with the meter running: it says it cannot stop it without charge and leaves it to people."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from itertools import chain
from typing import Any

from bot.discover.cloud import (
    REGIONS_AT_ONCE,
    CloudError,
    Pacer,
    Paging,
    Stopped,
    gpu_named,
    refusal_said,
    scan_regions,
    settled,
    utc_time,
)
from bot.state.discovered import Found, Scan
from bot.text.problem import Problem
from rules.samples import Sample

log = logging.getLogger(__name__)
PAGE = 100  # DescribeInstances' Limit ceiling
VERSIONS = {"cvm": "2017-03-12", "monitor": "2018-07-24", "cbs": "2017-03-12", "hai": "2023-08-12"}
THROTTLED = (
    "RequestLimitExceeded",
    "RequestLimitExceeded.UinLimitExceeded",
    "RequestLimitExceeded.GlobalRegionUinLimitExceeded",
)
REFUSED = ("AuthFailure.SecretIdNotFound", "AuthFailure.SignatureFailure", "AuthFailure.InvalidSecretId")
DENIED = ("UnauthorizedOperation", "AuthFailure.UnauthorizedOperation", "OperationDenied")
BAD_REGION = ("InvalidRegion", "UnsupportedRegion", "InvalidParameterValue.InvalidRegion")
NO_FREE_STOP = (
    "UnsupportedOperation.StoppedModeStopCharging",
    "UnsupportedOperation.StoppedModeStopChargingSameFamily",
    "UnsupportedOperation.InstanceChargeType",
)
UNNAMED = "未命名"  # the console's name for an instance nobody named
TRIES = 3
MONITOR_BATCH = 10
# Each API's published limit, calls a second per account (Tencent Cloud's API documents, "请求频率限制"):
# DescribeInstances 40, StopInstances 10, Cloud Monitor's GetMonitorData 20.
PACE = {"cvm:DescribeInstances": 40.0, "cvm:StopInstances": 10.0, "monitor:GetMonitorData": 20.0}
STATES = {
    "RUNNING": "running",
    "STOPPED": "stopped",
    "STOPPING": "stopping",
    "STARTING": "starting",
    "PENDING": "pending",
    "REBOOTING": "running",
    "SHUTDOWN": "stopped",  # a prepaid instance past its term, waiting to be destroyed
    "TERMINATING": "terminated",
    "LAUNCH_FAILED": "terminated",
}


def tencent_problem(exc: Exception, region: str | None = None) -> str:
    """One line for what went wrong with Tencent Cloud."""
    code = str(getattr(exc, "code", "") or "")
    message = str(getattr(exc, "message", "") or exc)[:160].replace("\n", " ")
    if code == "ClientSideError" and "credentail" in message.lower() + "credential":
        how = "TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY, a profile or a CVM role"
        return Problem("cloud.no_credentials", cloud="Tencent Cloud", how=how)
    if code in REFUSED or code.startswith("AuthFailure"):
        return Problem("cloud.refused", cloud="Tencent Cloud", code=code, what="the SecretId and SecretKey")
    if code in DENIED or code.startswith("UnauthorizedOperation"):
        needs = (
            "cvm:DescribeInstances/StopInstances/DescribeZoneInstanceConfigInfos, cbs:DescribeDisks or "
            "monitor:GetMonitorData"
        )
        return Problem("cloud.denied", code=code, policy="CAM policy", needs=needs, message=message)
    if code in THROTTLED:
        return Problem("cloud.throttled", cloud="Tencent Cloud", code=code)
    if code in BAD_REGION:
        return Problem("cloud.bad_region", region=region or "?", code=code, setting="GPU_ADVISOR_TENCENT_REGIONS")
    if code in ("ClientNetworkError", "ServerNetworkError") or not code:
        return Problem("cloud.unreachable", cloud="Tencent Cloud", why=message)
    return Problem("cloud.answered", code=code, message=message)


class Tencent:
    name = "tencent"
    metrics = "cloudmonitor"

    def __init__(
        self,
        regions: tuple[str, ...],
        endpoint: str | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        backoff_s: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
        at_once: int = REGIONS_AT_ONCE,
    ) -> None:
        self.regions, self.endpoint = regions, endpoint
        self.at_once = at_once  # regions a scan reads at once, each with its own clients
        self.sleep, self.backoff_s, self.clock = sleep, backoff_s, clock
        self.pacer = Pacer(PACE, clock=clock, sleep=sleep)
        self._clients: dict[tuple[str, str], Any] = {}
        self._quoted: dict[tuple[str, str], dict[str, Any] | None] = {}

    def _credential(self) -> Any:
        from tencentcloud.common import credential

        key_id, key = os.environ.get("TENCENTCLOUD_SECRET_ID"), os.environ.get("TENCENTCLOUD_SECRET_KEY")
        if key_id and key:
            from bot.logs import keep_secret

            token = os.environ.get("TENCENTCLOUD_SESSION_TOKEN") or None
            keep_secret(key, token)
            return credential.Credential(key_id, key, token)
        return credential.DefaultCredentialProvider().get_credentials()

    def client(self, product: str, region: str) -> Any:
        if (product, region) not in self._clients:
            from tencentcloud.common.common_client import CommonClient
            from tencentcloud.common.profile.client_profile import ClientProfile
            from tencentcloud.common.profile.http_profile import HttpProfile

            http = HttpProfile(reqTimeout=30)
            if self.endpoint:
                scheme, _, host = self.endpoint.rpartition("://")
                http = HttpProfile(protocol=scheme or "https", endpoint=host.rstrip("/"), reqTimeout=30)
            else:
                http.endpoint = f"{product}.tencentcloudapi.com"
            profile = ClientProfile(httpProfile=http, signMethod="TC3-HMAC-SHA256")
            self._clients[(product, region)] = CommonClient(
                product, VERSIONS[product], self._credential(), region, profile
            )
        return self._clients[(product, region)]

    def call(
        self, product: str, region: str, action: str, params: dict[str, Any], *, absent: tuple[str, ...] = ()
    ) -> dict[str, Any]:
        """One call, its Response (rate limits retried with back-off); CloudError in one line. An error whose code
        is in `absent` is an empty answer (a product not offered in that region has nothing there)."""
        from tencentcloud.common.exception.tencent_cloud_sdk_exception import TencentCloudSDKException

        for attempt in range(TRIES):
            self.pacer.wait(f"{product}:{action}")
            try:
                return dict(self.client(product, region).call_json(action, params).get("Response") or {})
            except TencentCloudSDKException as exc:
                code = str(exc.code or "")
                if code in absent:
                    return {}
                if code in THROTTLED and attempt + 1 < TRIES:
                    self.sleep(self.backoff_s * 2**attempt)
                    continue
                raise CloudError(tencent_problem(exc, region), final=code in NO_FREE_STOP) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def scan(self) -> Scan:
        return scan_regions(
            self.name, self.regions, lambda r: chain(self._instances(r), self._disks(r)), workers=self.at_once
        )

    def _disks(self, region: str) -> Iterator[Found]:
        """CBS disks attached to nothing (disk-state UNATTACHED): storage that bills with no instance."""
        offset = 0
        unattached = [{"Name": "disk-state", "Values": ["UNATTACHED"]}]
        paging = Paging("Tencent Cloud", f"DescribeDisks in {region}")
        while True:
            body = self.call("cbs", region, "DescribeDisks", {"Filters": unattached, "Offset": offset, "Limit": PAGE})
            page = body.get("DiskSet") or []
            paging.rows(page)
            for raw in page:
                yield disk_found(raw, region)
            offset += len(page)
            if not page or offset >= int(body.get("TotalCount") or 0):
                return

    def listed(self) -> Scan:
        """The GPU instances in the regions as DescribeInstances lists them, nothing priced: the types (with the GPU
        each instance says) the `tencent` price source prices, without a scan's price and disk calls."""
        return scan_regions(
            self.name,
            self.regions,
            lambda r: (instance_found(raw, r, None, raw.get("GPUInfo") or {}) for raw in self._gpu_instances(r)),
            workers=self.at_once,
        )

    def _gpu_instances(self, region: str) -> Iterator[dict[str, Any]]:
        offset = 0
        paging = Paging("Tencent Cloud", f"DescribeInstances in {region}")
        while True:
            body = self.call("cvm", region, "DescribeInstances", {"Offset": offset, "Limit": PAGE})
            page = body.get("InstanceSet") or []
            paging.rows(page)
            yield from (raw for raw in page if float((raw.get("GPUInfo") or {}).get("GPUCount") or 0) > 0)
            offset += len(page)
            if not page or offset >= int(body.get("TotalCount") or 0):
                return

    def _instances(self, region: str) -> Iterator[Found]:
        for raw in self._gpu_instances(region):
            kind = str(raw.get("InstanceType") or "")
            zone = (raw.get("Placement") or {}).get("Zone")
            prepaid = raw.get("InstanceChargeType") == "PREPAID"
            price = self.hourly(region, zone, kind) if kind and not prepaid else None  # asked once a type
            found = instance_found(raw, region, price, raw.get("GPUInfo") or {})
            yield replace(found, per_month=self.monthly(region, zone, kind)) if kind and prepaid else found

    def hourly(self, region: str, zone: str | None, instance_type: str) -> float | None:
        """The type's pay-as-you-go price an hour in the zone (the first tier of DescribeZoneInstanceConfigInfos:
        the tiers past 96 h and 360 h are cheaper and kept in `quote`), asked once per cloud object."""
        quote = self.quote(region, zone, instance_type)
        return float(quote["UnitPrice"]) if quote and quote.get("UnitPrice") is not None else None

    def monthly(self, region: str, zone: str | None, instance_type: str) -> float | None:
        """A prepaid type's price for one month in the zone (DescribeZoneInstanceConfigInfos filtered to PREPAID: its
        DiscountPrice, what the account pays, else its OriginalPrice), asked once per cloud object."""
        quote = self.quote(region, zone, instance_type, "PREPAID") or {}
        price = quote.get("DiscountPrice") if quote.get("DiscountPrice") is not None else quote.get("OriginalPrice")
        return float(price) if price is not None else None

    def quote(
        self, region: str, zone: str | None, instance_type: str, charge: str = "POSTPAID_BY_HOUR"
    ) -> dict[str, Any] | None:
        key = (region, f"{zone}/{instance_type}/{charge}")
        if key not in self._quoted:
            filters = [
                {"Name": "instance-type", "Values": [instance_type]},
                {"Name": "instance-charge-type", "Values": [charge]},
            ]
            if zone:
                filters.append({"Name": "zone", "Values": [zone]})
            try:
                body = self.call("cvm", region, "DescribeZoneInstanceConfigInfos", {"Filters": filters})
                rows = body.get("InstanceTypeQuotaSet") or []
                self._quoted[key] = {**(rows[0].get("Price") or {}), "Status": rows[0].get("Status")} if rows else None
            except CloudError as exc:
                log.info("no Tencent Cloud price for %s in %s: %s", instance_type, region, exc)
                self._quoted[key] = None
        return self._quoted[key]

    def stop(self, region: str, instance_id: str) -> Stopped:
        params = {"InstanceIds": [instance_id], "StopType": "SOFT_FIRST", "StoppedMode": "STOP_CHARGING"}
        with refusal_said("cloud.no_free_stop", "cloud.name_tencent", instance_id):
            self.call("cvm", region, "StopInstances", params)

        def read() -> dict[str, Any] | None:
            found = self.call("cvm", region, "DescribeInstances", {"InstanceIds": [instance_id]}).get("InstanceSet")
            return found[0] if found else None

        # whether it keeps billing (StopChargingMode) is said once it has stopped: read until then
        raw = settled(read, lambda r: r is not None and r.get("InstanceState") == "STOPPING")
        if raw is None:
            raise CloudError(Problem("cloud.gone_after_stop", instance=instance_id, region=region))
        state = STATES.get(str(raw.get("InstanceState")), str(raw.get("InstanceState", "unknown")).lower())
        return Stopped(state, charging=_charging(raw), how="StopInstances(StoppedMode=STOP_CHARGING)")

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """Cloud Monitor's QCE/CVM GPU metrics (GpuUtil in %, GpuMemUsed and GpuMemTotal in MB, per instance),
        one-minute points, ten instances a call."""
        values: dict[tuple[str, datetime], dict[str, float]] = {}
        for start in range(0, len(instance_ids), MONITOR_BATCH):
            batch = instance_ids[start : start + MONITOR_BATCH]
            for metric in ("GpuUtil", "GpuMemUsed", "GpuMemTotal"):
                params = {
                    "Namespace": "QCE/CVM",
                    "MetricName": metric,
                    "Period": 60,
                    "StartTime": _iso(since),
                    "EndTime": _iso(until),
                    "Instances": [{"Dimensions": [{"Name": "InstanceId", "Value": i}]} for i in batch],
                }
                body = self.call("monitor", region, "GetMonitorData", params)
                for series in body.get("DataPoints") or []:
                    dims = {d.get("Name"): d.get("Value") for d in series.get("Dimensions") or []}
                    for at, value in zip(series.get("Timestamps") or [], series.get("Values") or [], strict=False):
                        if value is not None:
                            when = datetime.fromtimestamp(int(at), UTC)
                            values.setdefault((str(dims.get("InstanceId")), when), {})[metric] = float(value)
        out: dict[str, list[Sample]] = {}
        for (instance, at), reading in sorted(values.items(), key=lambda kv: kv[0][1]):
            if "GpuUtil" not in reading:
                continue
            used = reading.get("GpuMemUsed", 0.0)
            total = max(reading.get("GpuMemTotal", 0.0), used, 1.0)
            util = min(max(reading["GpuUtil"], 0.0), 100.0)
            out.setdefault(instance, []).append(Sample(at, 0, util, used, total))
        return out


def instance_found(
    raw: dict[str, Any], region: str, per_hour: float | None = None, info: dict[str, Any] | None = None
) -> Found:
    """A CVM instance with GPUs, as DescribeInstances gives it; `per_hour` the cloud's price of it; `info` its
    GPUInfo where the caller has read it already."""
    tags = {str(t.get("Key", "")): str(t.get("Value", "")) for t in raw.get("Tags") or []}
    info = (raw.get("GPUInfo") or {}) if info is None else info
    gpu = gpu_named(str(info.get("GPUType") or "").strip())
    said = str(raw.get("InstanceState", "unknown"))
    state = STATES.get(said) or said.lower()
    charge = str(raw.get("InstanceChargeType") or "")
    named = str(raw.get("InstanceName") or "")
    return Found(
        f"tencent:{raw['InstanceId']}",
        "instance",
        region,
        tags.get("Name") or (named if named not in ("", UNNAMED) else raw["InstanceId"]),
        state,
        tags,
        raw.get("InstanceType"),
        gpu,
        max(int(float(info.get("GPUCount") or 0)), 1),  # a vGPU share (GPUCount below 1) is kept as one card
        per_hour,
        charge == "SPOTPAID",
        utc_time(raw.get("CreatedTime")),
        charging=_charging(raw) if state == "stopped" else None,
        currency="CNY",
        billing="month" if charge == "PREPAID" else "hourly",
    )


# CBS's list prices a GB-month, pay-as-you-go, by disk type (CNY; Tencent Cloud's CBS price page, mainland
# regions, as of 2026-11: premium 0.35, SSD 1.00, enhanced SSD 1.50): a dated reference, not the account's bill
DISK_CNY_GB_MONTH = {"CLOUD_PREMIUM": 0.35, "CLOUD_SSD": 1.0, "CLOUD_HSSD": 1.5, "CLOUD_BSSD": 0.5}
BEIJING = timezone(timedelta(hours=8))


def disk_found(raw: dict[str, Any], region: str) -> Found:
    """A CBS disk as DescribeDisks gives it; its CreateTime is Beijing time without a zone (2026-11-30 08:00:00)."""
    tags = {str(t.get("Key", "")): str(t.get("Value", "")) for t in raw.get("Tags") or []}
    kind = str(raw.get("DiskType") or "CLOUD_PREMIUM")
    return Found(
        f"tencent:{raw['DiskId']}",
        "storage",
        region,
        tags.get("Name") or str(raw.get("DiskName") or "") or raw["DiskId"],
        "available" if raw.get("DiskState") == "UNATTACHED" else str(raw.get("DiskState", "unknown")).lower(),
        tags,
        size_gb=float(raw.get("DiskSize") or 0),
        per_gb_month=DISK_CNY_GB_MONTH.get(kind, DISK_CNY_GB_MONTH["CLOUD_PREMIUM"]),
        currency="CNY",
        created_at=utc_time(raw.get("CreateTime"), BEIJING),
    )


def _charging(raw: dict[str, Any]) -> bool | None:
    return {"KEEP_CHARGING": True, "STOP_CHARGING": False}.get(str(raw.get("StopChargingMode")))


def _iso(at: datetime) -> str:
    """A time as Cloud Monitor takes it: ISO 8601 with its offset."""
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")
