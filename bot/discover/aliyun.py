"""Reading and stopping Alibaba Cloud with its official SDKs (alibabacloud-ecs20140526, -cms20190101; PAI-DSW in
bot/discover/aliyun_dsw.py): ECS
instances with GPUs (GPUAmount > 0), cloud disks attached to nothing (Available), CloudMonitor's per-GPU metrics.

Credentials: ALIBABA_CLOUD_ACCESS_KEY_ID / ALIBABA_CLOUD_ACCESS_KEY_SECRET (and ALIBABA_CLOUD_SECURITY_TOKEN) as
set when the cloud is made, else the SDK's own chain (a profile, an instance RAM role). `endpoint` points every
client at one host (a local fake in tests); without it each product's regional endpoint is used. Throttling is
retried with back-off; what still fails is one line (aliyun_problem), never a traceback.

A stop asks for economical mode (StoppedMode=StopCharging). Alibaba Cloud stops an instance that cannot stop
charging (a local-disk family, a prepaid one, economical mode off) in keep-charging mode without an error, so
the describe that follows says which it was: KeepCharging is "stopped, still billed"."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from itertools import chain
from typing import Any

from bot.discover.cloud import (
    REGIONS_AT_ONCE,
    CloudError,
    Pacer,
    Paging,
    Stopped,
    gpu_named,
    scan_regions,
    settled,
    utc_time,
)
from bot.state.discovered import Found, Scan
from bot.text.problem import Problem
from rules.errors import UnknownGPU
from rules.gpus import gpu_model
from rules.samples import Sample

log = logging.getLogger(__name__)
PAGE = 100  # DescribeInstances' and DescribeDisks' MaxResults ceiling
THROTTLED = ("Throttling", "Throttling.User", "Throttling.Api", "ServiceUnavailable", "Throttling.Resource")
DENIED = ("Forbidden.RAM", "Forbidden", "NoPermission", "Forbidden.Unauthorized", "Forbidden.NotAuthorized")
REFUSED = ("InvalidAccessKeyId.NotFound", "InvalidAccessKeyId.Inactive", "SignatureDoesNotMatch")
BAD_REGION = ("InvalidRegionId.NotFound", "InvalidRegionId.Malformed", "InvalidRegionId")
TRIES = 3
# Each API's published limit, calls a second per account, where Alibaba Cloud publishes one (PAI-DSW's API
# reference: ListInstances and StopInstance 100 a second); the others' throttling is retried with back-off.
PACE = {"dsw:list_instances": 100.0, "dsw:stop_instance": 100.0}
METRIC_BATCH = 50  # instances a DescribeMetricList call (their ids ride in the query string)
# ESSD PL0, mainland regions: the bundled rate card's alibaba-cloud-reference row (2024 public price list)
DISK_CNY_GB_MONTH = 0.5
# ECS's vGPU families (a slice of a card: Alibaba Cloud's GPU virtualisation types; its instance-family pages)
VGPU_FAMILIES = ("ecs.vgn", "ecs.sgn")
STATES = {"Running": "running", "Stopped": "stopped", "Stopping": "stopping", "Starting": "starting"}


def aliyun_problem(exc: Exception, region: str | None = None) -> str:
    """One line for what went wrong with Alibaba Cloud."""
    code = str(getattr(exc, "code", "") or "")
    data = getattr(exc, "data", None)
    said = data.get("Message") if isinstance(data, dict) else None
    message = str(said or getattr(exc, "message", "") or exc)[:160].replace("\n", " ")
    inner = getattr(exc, "inner_exception", None)
    if "CredentialException" in (type(exc).__name__, type(inner).__name__):
        how = "ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET, a profile or an instance RAM role"
        return Problem("cloud.no_credentials", cloud="Alibaba Cloud", how=how)
    if code in REFUSED:
        return Problem("cloud.refused", cloud="Alibaba Cloud", code=code, what="the AccessKey pair")
    if code in DENIED:
        needs = "ecs:DescribeInstances/DescribeDisks/StopInstances or cms:DescribeMetricList"
        return Problem("cloud.denied", code=code, policy="RAM policy", needs=needs, message=message)
    if code in THROTTLED:
        return Problem("cloud.throttled", cloud="Alibaba Cloud", code=code)
    if code in BAD_REGION:
        return Problem("cloud.bad_region", region=region or "?", code=code, setting="GPU_ADVISOR_ALIYUN_REGIONS")
    if type(exc).__name__ == "UnretryableException" or not code:
        return Problem("cloud.unreachable", cloud="Alibaba Cloud", why=str(inner or exc)[:160])
    return Problem("cloud.answered", code=code, message=message)


def _errors() -> tuple[type[Exception], ...]:
    from alibabacloud_credentials.exceptions import CredentialException
    from Tea.exceptions import TeaException

    return TeaException, CredentialException


class Aliyun:
    name = "aliyun"
    metrics = "cloudmonitor"

    def __init__(
        self,
        regions: tuple[str, ...],
        endpoint: str | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        backoff_s: float = 0.5,
        at_once: int = REGIONS_AT_ONCE,
    ) -> None:
        self.regions, self.endpoint = regions, endpoint
        self.sleep, self.backoff_s = sleep, backoff_s
        self.at_once = at_once  # regions a scan reads at once, each with its own clients
        self._clients: dict[tuple[str, str], Any] = {}
        self._quoted: dict[tuple[str, str], dict[str, float]] = {}
        self._types: dict[tuple[str, str], dict[str, Any]] = {}
        self._disk_prices: dict[tuple[str, str, str], float] = {}  # (region, category, level) -> CNY a GB-month
        self.pacer = Pacer(PACE, sleep=sleep)

    def config(self, region: str) -> Any:
        """The SDK's Config for `region`: credentials, timeouts, and the one endpoint where set."""
        from alibabacloud_tea_openapi.utils_models import Config

        config = Config(region_id=region, connect_timeout=5000, read_timeout=30000)
        key, secret = os.environ.get("ALIBABA_CLOUD_ACCESS_KEY_ID"), os.environ.get("ALIBABA_CLOUD_ACCESS_KEY_SECRET")
        if key and secret:
            from bot.logs import keep_secret

            keep_secret(secret, os.environ.get("ALIBABA_CLOUD_SECURITY_TOKEN"))
            config.access_key_id, config.access_key_secret = key, secret
            config.security_token = os.environ.get("ALIBABA_CLOUD_SECURITY_TOKEN") or None
        else:
            from alibabacloud_credentials.client import Client as Credentials

            config.credential = Credentials()
        if self.endpoint:
            scheme, _, host = self.endpoint.rpartition("://")
            config.endpoint, config.protocol = host.rstrip("/"), scheme or "https"
        return config

    def client(self, product: str, region: str) -> Any:
        """The product's client (ecs, cms, bss) for `region`, made once."""
        if (product, region) not in self._clients:
            if product == "ecs":
                from alibabacloud_ecs20140526.client import Client
            elif product == "cms":
                from alibabacloud_cms20190101.client import Client
            elif product == "dsw":
                from alibabacloud_pai_dsw20220101.client import Client
            else:
                from alibabacloud_bssopenapi20171214.client import Client
            self._clients[(product, region)] = Client(self.config(region))
        return self._clients[(product, region)]

    def call(self, product: str, region: str, action: str, *args: Any) -> dict[str, Any]:
        """One API call with the SDK method's own arguments (a request; an id and a request for a REST-style
        product), its body as the API documents it (a dict); throttling retried with back-off."""
        method = getattr(self.client(product, region), action)
        self.pacer.wait(f"{product}:{action}")
        try:
            return self._retrying(lambda: dict(method(*args).body.to_map()))
        except _errors() as exc:
            raise CloudError(aliyun_problem(exc, region)) from None

    def _retrying(self, once: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """`once`, tried again with back-off while Alibaba Cloud answers throttled; its last error raised."""
        teas = _errors()
        for attempt in range(TRIES):
            try:
                return once()
            except teas as exc:
                if str(getattr(exc, "code", "")) not in THROTTLED or attempt + 1 == TRIES:
                    raise
                self.sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable")  # pragma: no cover

    def ask(self, region: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
        """Any ECS action by name with its documented parameters (the SDK's generic call, signed as the typed
        ones are): what pricing/aliyun.py asks with. AskError, transient when throttled or unreachable."""
        from alibabacloud_tea_openapi.utils_models import OpenApiRequest, Params
        from darabonba.runtime import RuntimeOptions

        from pricing.aliyun import AskError

        client = self.client("ecs", region)
        spec = Params(
            action=action,
            version="2014-05-26",
            protocol="HTTPS",
            pathname="/",
            method="POST",
            auth_type="AK",
            style="RPC",
            req_body_type="formData",
            body_type="json",
        )
        try:
            return self._retrying(
                lambda: dict(client.call_api(spec, OpenApiRequest(query=params), RuntimeOptions()).get("body") or {})
            )
        except _errors() as exc:
            code = str(getattr(exc, "code", "") or "")
            raise AskError(aliyun_problem(exc, region), transient=code in THROTTLED or not code) from None

    def hourly(self, region: str, instance_type: str, spot: bool) -> float | None:
        """The type's price an hour in `region` from the cloud itself (DescribePrice, or the latest spot price),
        asked once per cloud object; None when the cloud would not say."""
        from pricing.aliyun import AskError, Skipped, fetch
        from pricing.errors import PricingError

        key = (region, instance_type)
        if key not in self._quoted:
            self._quoted[key] = {}
            try:
                for record in fetch(self.ask, [region], [instance_type], datetime.now(UTC), Skipped(), "discovery"):
                    if record.instance_type == instance_type:  # another type's price is not this one's
                        self._quoted[key][str(record.pricing_model)] = record.amount
            except (AskError, PricingError) as exc:  # a price the cloud will not give leaves the item unpriced
                log.info("no Alibaba Cloud price for %s in %s: %s", instance_type, region, exc)
        quoted = self._quoted[key]
        return quoted.get("spot") if spot and "spot" in quoted else quoted.get("on-demand")

    def monthly(self, region: str, instance_type: str) -> float | None:
        """A prepaid (subscription) instance's price for one month in `region`: DescribePrice with PriceUnit=Month
        and Period=1, asked once a type per cloud object; None when the cloud would not say."""
        from pricing.aliyun import AskError

        key = (region, f"month/{instance_type}")
        if key not in self._quoted:
            self._quoted[key] = {}
            params = {"RegionId": region, "ResourceType": "instance", "InstanceType": instance_type,
                      "PriceUnit": "Month", "Period": "1"}  # fmt: skip
            try:
                price = (self.ask(region, "DescribePrice", params).get("PriceInfo") or {}).get("Price") or {}
                self._quoted[key]["monthly"] = float(price["TradePrice"])
            except (AskError, KeyError, TypeError, ValueError) as exc:
                log.info("no Alibaba Cloud monthly price for %s in %s: %s", instance_type, region, exc)
        return self._quoted[key].get("monthly")

    def scan(self) -> Scan:
        return scan_regions(
            self.name, self.regions, lambda r: chain(self._instances(r), self._disks(r)), workers=self.at_once
        )

    def instance_type(self, region: str, instance_type: str) -> dict[str, Any]:
        """An ECS type as DescribeInstanceTypes gives it (GPUSpec, GPUAmount, GPUMemorySize), asked once a type per
        cloud object; empty when the cloud would not say."""
        from pricing.aliyun import AskError

        key = (region, instance_type)
        if key not in self._types:
            try:
                body = self.ask(region, "DescribeInstanceTypes", {"RegionId": region, "InstanceTypes.1": instance_type})
                found = (body.get("InstanceTypes") or {}).get("InstanceType") or []
                self._types[key] = dict(found[0]) if found else {}
            except AskError:
                self._types[key] = {}
        return self._types[key]

    def share(self, region: str, instance_type: str, gpu: str | None) -> float | None:
        """A vGPU type's slice of its card: its GPU memory (DescribeInstanceTypes' GPUMemorySize, GiB) over the
        card's, below one (ecs.vgn6i-m4.xlarge: 4 of a T4's 16 GB, a quarter); None for a whole card or unsaid."""
        kind = self.instance_type(region, instance_type)
        try:
            memory, count = float(kind.get("GPUMemorySize") or 0), int(kind.get("GPUAmount") or 1)
            card = gpu_model(gpu).memory_gb if gpu else 0.0
        except (UnknownGPU, ValueError):
            return None  # no share said: kept as whole cards
        return round(memory / (card * count), 4) if memory and card and memory < card * count else None

    def _pages(
        self, region: str, action: str, make: Callable[[str | None], Any], key: tuple[str, str]
    ) -> Iterator[Any]:
        token: str | None = None
        paging = Paging("Alibaba Cloud", f"{action} in {region}")
        while True:
            body = self.call("ecs", region, action, make(token))
            rows = (body.get(key[0]) or {}).get(key[1]) or []
            token = paging.token(body.get("NextToken") or None)  # a page that repeats one is not given again
            yield from rows
            if not token:
                return

    def listed(self) -> Scan:
        """The GPU instances in the regions as DescribeInstances lists them, nothing priced: the types the `aliyun`
        price source prices (bot/price_book.py), without a scan's price and disk calls."""
        return scan_regions(
            self.name,
            self.regions,
            lambda r: (instance_found(raw, r) for raw in self._gpu_instances(r)),
            workers=self.at_once,
        )

    def _gpu_instances(self, region: str) -> Iterator[dict[str, Any]]:
        from alibabacloud_ecs20140526 import models

        def request(token: str | None) -> Any:
            return models.DescribeInstancesRequest(region_id=region, max_results=PAGE, next_token=token)

        for raw in self._pages(region, "describe_instances", request, ("Instances", "Instance")):
            if int(raw.get("GPUAmount") or 0) > 0:
                yield raw

    def _instances(self, region: str) -> Iterator[Found]:
        for raw in self._gpu_instances(region):
            kind = str(raw.get("InstanceType") or "")
            hourly = raw.get("InstanceChargeType") != "PrePaid"
            spot = str(raw.get("SpotStrategy") or "NoSpot") != "NoSpot"
            found = instance_found(raw, region, self.hourly(region, kind, spot) if kind and hourly else None)
            if kind and not hourly:
                found = replace(found, per_month=self.monthly(region, kind))
            share = self.share(region, kind, found.gpu) if kind.startswith(VGPU_FAMILIES) else None
            yield replace(found, share=share) if share is not None else found

    def _disks(self, region: str) -> Iterator[Found]:
        from alibabacloud_ecs20140526 import models

        def request(token: str | None) -> Any:
            return models.DescribeDisksRequest(region_id=region, status="Available", max_results=PAGE, next_token=token)

        for raw in self._pages(region, "describe_disks", request, ("Disks", "Disk")):
            tags = _tags(raw)
            size = float(raw.get("Size") or 0)
            yield Found(
                f"aliyun:{raw['DiskId']}",
                "storage",
                region,
                tags.get("Name") or raw.get("DiskName") or raw["DiskId"],
                "available" if raw.get("Status") == "Available" else str(raw.get("Status", "unknown")).lower(),
                tags,
                size_gb=size,
                per_gb_month=self.disk_gb_month(region, raw, size),
                currency="CNY",
                created_at=utc_time(raw.get("CreationTime")),
            )

    def disk_gb_month(self, region: str, raw: dict[str, Any], size: float) -> float:
        """A disk's price a GB-month by its class (category and ESSD performance level: PL1 is not PL0's price), from
        DescribePrice's pay-as-you-go price an hour for its size (30 days a month), asked once a class and region;
        the bundled ESSD PL0 reference when the cloud will not say."""
        from pricing.aliyun import AskError

        category, level = str(raw.get("Category") or "cloud_essd"), str(raw.get("PerformanceLevel") or "")
        key = (region, category, level)
        if key not in self._disk_prices:
            params = {"RegionId": region, "ResourceType": "disk", "PriceUnit": "Hour", "DataDisk.1.Category": category,
                      "DataDisk.1.Size": str(int(size) or 1)}  # fmt: skip
            if level:
                params["DataDisk.1.PerformanceLevel"] = level
            try:
                price = self.ask(region, "DescribePrice", params)["PriceInfo"]["Price"]["TradePrice"]
                self._disk_prices[key] = round(float(price) * 720 / (int(size) or 1), 4)
            except (AskError, KeyError, TypeError, ValueError) as exc:
                log.info("no Alibaba Cloud price for %s %s disks in %s: %s", category, level, region, exc)
                self._disk_prices[key] = DISK_CNY_GB_MONTH
        return self._disk_prices[key]

    def describe(self, region: str, instance_id: str) -> dict[str, Any] | None:
        from alibabacloud_ecs20140526 import models

        request = models.DescribeInstancesRequest(region_id=region, instance_ids=json.dumps([instance_id]))
        found = (self.call("ecs", region, "describe_instances", request).get("Instances") or {}).get("Instance")
        return found[0] if found else None

    def stop(self, region: str, instance_id: str) -> Stopped:
        from alibabacloud_ecs20140526 import models

        request = models.StopInstancesRequest(region_id=region, instance_id=[instance_id], stopped_mode="StopCharging")
        body = self.call("ecs", region, "stop_instances", request)
        for answer in (body.get("InstanceResponses") or {}).get("InstanceResponse") or []:
            if answer.get("InstanceId") == instance_id and str(answer.get("Code", "200")) != "200":
                raise CloudError(f"{answer.get('Code')}: {str(answer.get('Message', ''))[:160]}")
        # whether it keeps billing (StoppedMode) is said once it has stopped: read until then
        raw = settled(
            lambda: self.describe(region, instance_id), lambda r: r is not None and r.get("Status") == "Stopping"
        )
        if raw is None:
            raise CloudError(Problem("cloud.gone_after_stop", instance=instance_id, region=region))
        state = STATES.get(str(raw.get("Status")), str(raw.get("Status", "unknown")).lower())
        return Stopped(state, charging=_charging(raw), how="StopInstances(StoppedMode=StopCharging)")

    def balance(self) -> tuple[float, str]:
        """The account's available amount (QueryAccountBalance's AvailableAmount, "10,000.00"), its currency."""
        body = self.call("bss", self.regions[0] if self.regions else "cn-hangzhou", "query_account_balance")
        data = body.get("Data") or {}
        if body.get("Success") is False or "AvailableAmount" not in data:
            raise CloudError(f"QueryAccountBalance {body.get('Code')}: {str(body.get('Message', ''))[:160]}")
        try:
            amount = float(str(data["AvailableAmount"]).replace(",", ""))
        except ValueError:
            value = repr(data["AvailableAmount"])[:40]
            raise CloudError(Problem("cloud.bad_balance", api="QueryAccountBalance", value=value)) from None
        return amount, str(data.get("Currency") or "CNY")

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """CloudMonitor's per-GPU metrics (namespace acs_ecs_dashboard: gpu_gpu_usedutilization in %,
        gpu_memory_usedspace and gpu_memory_freespace in bytes, per instanceId and gpuId), one-minute maxima,
        METRIC_BATCH instances a call."""
        values: dict[tuple[str, int, datetime], dict[str, float]] = {}
        for start in range(0, len(instance_ids), METRIC_BATCH):
            dimensions = json.dumps([{"instanceId": i} for i in instance_ids[start : start + METRIC_BATCH]])
            for metric in ("gpu_gpu_usedutilization", "gpu_memory_usedspace", "gpu_memory_freespace"):
                self._metric(region, metric, dimensions, since, until, values)
        return _samples(values)

    def _metric(
        self,
        region: str,
        metric: str,
        dimensions: str,
        since: datetime,
        until: datetime,
        values: dict[tuple[str, int, datetime], dict[str, float]],
    ) -> None:
        """One metric of some instances, every page, into `values`."""
        from alibabacloud_cms20190101 import models

        token: str | None = None
        paging = Paging("Alibaba Cloud", f"CloudMonitor {metric} in {region}")
        while True:
            request = models.DescribeMetricListRequest(
                namespace="acs_ecs_dashboard",
                metric_name=metric,
                dimensions=dimensions,
                period="60",
                start_time=str(int(since.timestamp() * 1000)),
                end_time=str(int(until.timestamp() * 1000)),
                length="1000",
                next_token=token,
            )
            body = self.call("cms", region, "describe_metric_list", request)
            if str(body.get("Code", "200")) != "200" or body.get("Success") is False:
                raise CloudError(f"CloudMonitor {body.get('Code')}: {str(body.get('Message', ''))[:160]}")
            for point in json.loads(body.get("Datapoints") or "[]"):
                at = datetime.fromtimestamp(int(point["timestamp"]) / 1000, UTC)
                gpu = int(point["gpuId"]) if str(point.get("gpuId", "0")).isdigit() else 0
                value = point.get("Maximum", point.get("Average"))
                if value is not None:
                    values.setdefault((str(point["instanceId"]), gpu, at), {})[metric] = float(value)
            token = paging.token(body.get("NextToken") or None)
            if not token:
                break


def instance_found(raw: dict[str, Any], region: str, per_hour: float | None = None) -> Found:
    """An ECS instance with GPUs, as DescribeInstances gives it; `per_hour` the cloud's price of it."""
    tags = _tags(raw)
    gpu = gpu_named(str(raw.get("GPUSpec") or "").strip())
    state = STATES.get(str(raw.get("Status")), str(raw.get("Status", "unknown")).lower())
    return Found(
        f"aliyun:{raw['InstanceId']}",
        "instance",
        region,
        tags.get("Name") or raw.get("InstanceName") or raw["InstanceId"],
        state,
        tags,
        raw.get("InstanceType"),
        gpu,
        int(raw.get("GPUAmount") or 0),
        per_hour,
        str(raw.get("SpotStrategy") or "NoSpot") != "NoSpot",
        utc_time(raw.get("StartTime")) or utc_time(raw.get("CreationTime")),
        charging=_charging(raw) if state == "stopped" else None,
        currency="CNY",
        billing="month" if raw.get("InstanceChargeType") == "PrePaid" else "hourly",
    )


def _charging(raw: dict[str, Any]) -> bool | None:
    """A stopped instance's meter: KeepCharging runs on, StopCharging stopped it (its GPUs, vCPUs and memory;
    disks and public IPs bill on), anything else is not said."""
    return {"KeepCharging": True, "StopCharging": False}.get(str(raw.get("StoppedMode")))


def _tags(raw: dict[str, Any]) -> dict[str, str]:
    tags = (raw.get("Tags") or {}).get("Tag") or []
    return {str(t.get("TagKey", "")): str(t.get("TagValue", "")) for t in tags}


def _samples(values: dict[tuple[str, int, datetime], dict[str, float]]) -> dict[str, list[Sample]]:
    """Readings joined per instance, GPU and minute (memory from bytes to MiB, as the agent reports it)."""
    out: dict[str, list[Sample]] = {}
    mib = 1024 * 1024
    for (instance, gpu, at), reading in sorted(values.items(), key=lambda kv: kv[0][2]):
        if "gpu_gpu_usedutilization" not in reading:
            continue
        used = reading.get("gpu_memory_usedspace", 0.0) / mib
        total = max(used + reading.get("gpu_memory_freespace", 0.0) / mib, used, 1.0)
        util = min(max(reading["gpu_gpu_usedutilization"], 0.0), 100.0)
        out.setdefault(instance, []).append(Sample(at, gpu, util, used, total))
    return out
