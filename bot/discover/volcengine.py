"""Reading and stopping Volcengine (火山引擎) ECS with its official SDK (volcenginesdk-ecs, -cloudmonitor for the GPU
metrics and -billing for the account's balance; requests signed HMAC-SHA256 by volcenginesdkcore): instances whose
type has GPUs (the type's GpuDevices from DescribeInstanceTypes, asked once a type), owner, channel and project from
their tags, their GPUs' activity from CloudMonitor (namespace VCM_ECS, sub-namespace GPU: GpuUsedUtilization in %,
GpuMemoryUsedSpace in bytes, per ResourceID and DeviceName; one-minute points; reported by the monitoring agent
Volcengine installs on the instance), stopped with StopInstance(StoppedMode=StopCharging) and read again until they
have stopped, and the account's balance (QueryBalanceAcct).

Credentials: VOLCENGINE_ACCESS_KEY / VOLCENGINE_SECRET_KEY (and VOLCENGINE_SESSION_TOKEN). `endpoint` points every
product at one host (a local fake in tests). The SDK's own retries are off: throttling is retried here with back-off
(the tests inject the wait); no published per-API limit is known to pace under. Prices: the price cache's rows for
provider volcengine (a team's rate card), else the item's cost is unknown. An instance CloudMonitor has no GPU points
for (its monitoring agent not installed) is judged by an agent of ours on it, else unknown, never idle.

Volcengine keeps billing a stopped pay-as-you-go instance unless the stop asks StopCharging; an instance that cannot
stop without charge (its type or its billing) stops in KeepCharging, as DescribeInstances then says (StoppedMode):
it is kept and said "stopped, still billed", never saved. A stop the cloud refuses is said with its code and reason."""

from __future__ import annotations

import importlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from bot.discover.cloud import (
    REGIONS_AT_ONCE,
    CloudError,
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

PAGE = 100  # DescribeInstances' MaxResults at most
TRIES = 3
THROTTLED = ("RequestLimitExceeded", "Throttling", "FlowLimitExceeded", "TooManyRequests")
REFUSED = ("InvalidAccessKey", "InvalidCredential", "SignatureDoesNotMatch", "InvalidAuthorization")
DENIED = ("AccessDenied", "Forbidden", "InvalidActionOrVersion.Forbidden")
BAD_REGION = ("InvalidRegion", "InvalidParameter.Region")
METRICS_BATCH = 10  # instances a GetMetricData call asks for
GPU_METRICS = ("GpuUsedUtilization", "GpuMemoryUsedSpace")  # VCM_ECS / GPU: % of the card busy, bytes used
STOPS = ("StopInstance", "StopDevInstance")  # a 4xx refusal of these is final (this instance cannot be stopped so)
# each product's SDK package and API class, imported when first called
PRODUCTS = {
    "ecs": ("volcenginesdkecs", "ECSApi"),
    "cloudmonitor": ("volcenginesdkcloudmonitor", "CLOUDMONITORApi"),
    "billing": ("volcenginesdkbilling", "BILLINGApi"),
    "ml_platform": ("volcenginesdkmlplatform20240701", "MLPLATFORM20240701Api"),
}
STATES = {
    "RUNNING": "running",
    "STOPPED": "stopped",
    "STOPPING": "stopping",
    "STARTING": "pending",
    "CREATING": "pending",
    "REBOOTING": "running",
    "DELETING": "terminated",
    "ERROR": "stopped",
}


def volcengine_problem(exc: Exception, region: str | None = None) -> str:
    """One line for what went wrong with Volcengine: its error code and message, read from the answer's
    ResponseMetadata (never the request's headers)."""
    code, message = _error_of(exc)
    if isinstance(exc, _NoCredentials):
        how = "VOLCENGINE_ACCESS_KEY and VOLCENGINE_SECRET_KEY"
        return Problem("cloud.no_credentials", cloud="Volcengine", how=how)
    if code in REFUSED:
        return Problem("cloud.refused", cloud="Volcengine", code=code, what="the AccessKey and SecretKey")
    if code in DENIED or code.startswith("AccessDenied"):
        needs = (
            "ecs:DescribeInstances/DescribeInstanceTypes/StopInstance, cloudmonitor:GetMetricData, "
            "billing:QueryBalanceAcct; for ML Platform ml_platform:ListResourceQueues/ListDevInstances/"
            "GetDevInstance/GetInstanceType/StopDevInstance"
        )
        return Problem("cloud.denied", code=code, policy="IAM policy", needs=needs, message=message)
    if code in THROTTLED:
        return Problem("cloud.throttled", cloud="Volcengine", code=code)
    if code in BAD_REGION:
        return Problem("cloud.bad_region", region=region or "?", code=code, setting="GPU_ADVISOR_VOLCENGINE_REGIONS")
    if not code:
        return Problem("cloud.unreachable", cloud="Volcengine", why=message)
    return Problem("cloud.answered", code=code, message=message)


class _NoCredentials(Exception):
    """Neither VOLCENGINE_ACCESS_KEY nor VOLCENGINE_SECRET_KEY (or one without the other) is set."""


def _error_of(exc: Exception) -> tuple[str, str]:
    """The error code and message Volcengine answered (ResponseMetadata.Error); else no code and the exception's
    own first line (a connection that failed, or an answer that is not Volcengine's JSON: a proxy's error page)."""
    try:
        error = (json.loads(getattr(exc, "body", None) or "{}").get("ResponseMetadata") or {}).get("Error") or {}
    except (ValueError, AttributeError):
        error = {}
    if error.get("Code"):
        return str(error["Code"]), str(error.get("Message") or "")[:160]
    said = str(getattr(exc, "reason", None) or exc).strip()
    return "", said.splitlines()[0][:160] if said else type(exc).__name__


class Volcengine:
    name = "volcengine"
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
        self.sleep, self.backoff_s, self.at_once = sleep, backoff_s, at_once
        self._apis: dict[tuple[str, str], Any] = {}
        self._types: dict[tuple[str, str], tuple[str | None, int]] = {}

    def _api(self, product: str, region: str) -> Any:
        """The product's API object for `region`, made once (each region its own client: regions are read at once)."""
        if (product, region) not in self._apis:
            import volcenginesdkcore

            key_id, key = os.environ.get("VOLCENGINE_ACCESS_KEY"), os.environ.get("VOLCENGINE_SECRET_KEY")
            if not (key_id and key):
                raise _NoCredentials()
            from bot.logs import keep_secret

            token = os.environ.get("VOLCENGINE_SESSION_TOKEN") or None
            keep_secret(key, token)
            config = volcenginesdkcore.Configuration()
            config.ak, config.sk, config.region = key_id, key, region
            if token:
                config.session_token = token
            config.auto_retry = False  # retried here, with the back-off the tests inject
            if self.endpoint:
                parts = urlsplit(self.endpoint if "://" in self.endpoint else f"https://{self.endpoint}")
                config.host, config.scheme = parts.netloc, parts.scheme
            module, api = PRODUCTS[product]
            self._apis[(product, region)] = getattr(importlib.import_module(module), api)(
                volcenginesdkcore.ApiClient(config)
            )
        return self._apis[(product, region)]

    def call(self, product: str, region: str, action: str, request: Any) -> dict[str, Any]:
        """One call by the SDK's method for `action` (its snake_case name) with its request model; the Result as a
        dict of snake_case keys. Throttling retried with back-off; CloudError in one line."""
        from urllib3.exceptions import HTTPError  # the SDK's transport: a connection that failed
        from volcenginesdkcore.rest import ApiException

        for attempt in range(TRIES):
            try:
                answer = getattr(self._api(product, region), _snake(action))(request)
                return _plain(answer)
            except _NoCredentials as exc:
                raise CloudError(volcengine_problem(exc, region)) from None
            except (ApiException, HTTPError, OSError) as exc:
                code, _ = _error_of(exc)
                if code in THROTTLED and attempt + 1 < TRIES:
                    self.sleep(self.backoff_s * 2**attempt)
                    continue
                refused = action in STOPS and _refusal(exc, code)  # final: said once, not tried again
                raise CloudError(volcengine_problem(exc, region), final=refused) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def scan(self) -> Scan:
        return scan_regions(self.name, self.regions, self._instances, workers=self.at_once)

    def _instances(self, region: str) -> Iterator[Found]:
        import volcenginesdkecs

        token = ""
        paging = Paging("Volcengine", f"DescribeInstances in {region}")
        while True:
            request = volcenginesdkecs.DescribeInstancesRequest(max_results=PAGE, next_token=token or None)
            body = self.call("ecs", region, "DescribeInstances", request)
            page = body.get("instances") or []
            paging.rows(page)
            self._learn_types(region, {str(raw.get("instance_type_id") or "") for raw in page})
            for raw in page:
                gpu, cards = self._types.get((region, str(raw.get("instance_type_id") or "")), (None, 0))
                if cards > 0:  # a CPU instance is not the product's business
                    yield instance_found(raw, region, gpu, cards)
            token = str(body.get("next_token") or "")
            if not page or not token:
                return

    def _learn_types(self, region: str, kinds: set[str]) -> None:
        """Each type's GPU model and count (DescribeInstanceTypes' Gpu.GpuDevices), asked once a type."""
        import volcenginesdkecs

        wanted = sorted(k for k in kinds if k and (region, k) not in self._types)
        if not wanted:
            return
        request = volcenginesdkecs.DescribeInstanceTypesRequest(instance_type_ids=wanted, max_results=PAGE)
        body = self.call("ecs", region, "DescribeInstanceTypes", request)
        for raw in body.get("instance_types") or []:
            devices = (raw.get("gpu") or {}).get("gpu_devices") or []
            cards = sum(int(d.get("count") or 0) for d in devices)
            named = str(devices[0].get("product_name") or "") if devices else ""
            self._types[(region, str(raw.get("instance_type_id")))] = (gpu_named(named) if named else None, cards)
        for kind in wanted:
            self._types.setdefault((region, kind), (None, 0))  # not listed: no GPUs said

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """CloudMonitor's GPU points as samples, a card per DeviceName (in the order of their names); each card's
        memory in MiB from its model's size in the catalogue (the instance's type read again)."""
        totals = self._card_mib(region, instance_ids)
        out: dict[str, list[Sample]] = {i: [] for i in instance_ids}
        for start in range(0, len(instance_ids), METRICS_BATCH):
            batch = instance_ids[start : start + METRICS_BATCH]
            points: dict[tuple[str, str], dict[int, dict[str, float]]] = {}
            for metric in GPU_METRICS:
                for (instance, device), series in self._metric(region, batch, metric, since, until).items():
                    for at, value in series:
                        points.setdefault((instance, device), {}).setdefault(at, {})[metric] = value
            for instance in batch:
                devices = sorted(d for i, d in points if i == instance)
                for card, device in enumerate(devices):
                    out[instance] += _samples(points[(instance, device)], card, totals.get(instance, 0.0))
        return out

    def _metric(
        self, region: str, instance_ids: list[str], metric: str, since: datetime, until: datetime
    ) -> dict[tuple[str, str], list[tuple[int, float]]]:
        """One metric's one-minute points for these instances: (instance, device) -> [(unix time, value)]."""
        import volcenginesdkcloudmonitor as cm

        request = cm.GetMetricDataRequest(
            namespace="VCM_ECS",
            sub_namespace="GPU",
            metric_name=metric,
            start_time=int(since.timestamp()),
            end_time=int(until.timestamp()),
            period="60s",
            instances=[
                cm.InstanceForGetMetricDataInput(
                    dimensions=[cm.DimensionForGetMetricDataInput(name="ResourceID", value=i)]
                )
                for i in instance_ids
            ],
        )
        body = self.call("cloudmonitor", region, "GetMetricData", request)
        out: dict[tuple[str, str], list[tuple[int, float]]] = {}
        for result in (body.get("data") or {}).get("metric_data_results") or []:
            dims = {str(d.get("name")): str(d.get("value")) for d in result.get("dimensions") or []}
            if dims.get("ResourceID") not in instance_ids:
                continue
            series = [(int(p["timestamp"]), float(p["value"])) for p in result.get("data_points") or []
                      if p.get("timestamp") is not None and p.get("value") is not None]  # fmt: skip
            out[(dims["ResourceID"], dims.get("DeviceName", ""))] = series
        return out

    def _card_mib(self, region: str, instance_ids: list[str]) -> dict[str, float]:
        """Each instance's one card's memory in MiB, from its type's GPU model in the catalogue (0 when unknown)."""
        import volcenginesdkecs

        from rules.errors import UnknownGPU
        from rules.gpus import gpu_model

        listed: list[dict[str, Any]] = []
        for start in range(0, len(instance_ids), PAGE):  # DescribeInstances takes at most PAGE ids a call
            batch = instance_ids[start : start + PAGE]
            request = volcenginesdkecs.DescribeInstancesRequest(instance_ids=batch, max_results=PAGE)
            listed += self.call("ecs", region, "DescribeInstances", request).get("instances") or []
        self._learn_types(region, {str(raw.get("instance_type_id") or "") for raw in listed})
        out: dict[str, float] = {}
        for raw in listed:
            gpu, _ = self._types.get((region, str(raw.get("instance_type_id") or "")), (None, 0))
            try:
                out[str(raw["instance_id"])] = gpu_model(gpu).memory_gb * 1024 if gpu else 0.0
            except UnknownGPU:
                out[str(raw["instance_id"])] = 0.0
        return out

    def describe(self, region: str, instance_id: str) -> dict[str, Any] | None:
        import volcenginesdkecs

        request = volcenginesdkecs.DescribeInstancesRequest(instance_ids=[instance_id])
        found = self.call("ecs", region, "DescribeInstances", request).get("instances") or []
        return dict(found[0]) if found else None

    def stop(self, region: str, instance_id: str) -> Stopped:
        import volcenginesdkecs

        request = volcenginesdkecs.StopInstanceRequest(instance_id=instance_id, stopped_mode="StopCharging")
        with refusal_said("cloud.no_free_stop", "cloud.name_volcengine", instance_id):
            self.call("ecs", region, "StopInstance", request)
        # whether it keeps billing (StoppedMode) is said once it has stopped: read until then
        raw = settled(lambda: self.describe(region, instance_id), _stopping)
        if raw is None:
            raise CloudError(Problem("cloud.gone_after_stop", instance=instance_id, region=region))
        said = str(raw.get("status") or "unknown")
        state = STATES.get(said, said.lower())
        charging = _charging(raw) if state == "stopped" else None
        return Stopped(state, charging=charging, how="StopInstance(StoppedMode=StopCharging)")

    def balance(self) -> tuple[float, str]:
        """The account's balance in CNY: QueryBalanceAcct's AvailableBalance (strings of yuan; what is frozen is not
        in it) less its ArrearsBalance, so an account in arrears reads as owing that much."""
        import volcenginesdkbilling

        body = self.call("billing", self.regions[0] if self.regions else "cn-beijing", "QueryBalanceAcct",
                         volcenginesdkbilling.QueryBalanceAcctRequest())  # fmt: skip
        try:
            amount = float(str(body["available_balance"]).replace(",", ""))
            amount -= float(str(body.get("arrears_balance") or 0).replace(",", ""))
        except (KeyError, ValueError):
            value = repr(body.get("available_balance"))[:40]
            raise CloudError(Problem("cloud.bad_balance", api="QueryBalanceAcct", value=value)) from None
        return amount, str(body.get("currency") or "CNY")


def _samples(points: dict[int, dict[str, float]], card: int, total_mib: float) -> list[Sample]:
    """One card's samples from its points by unix time (a point without its utilisation is left out)."""
    return [
        Sample(
            datetime.fromtimestamp(at, UTC),
            card,
            got["GpuUsedUtilization"],
            round(got.get("GpuMemoryUsedSpace", 0.0) / 2**20, 1),  # bytes (IEC) to MiB
            total_mib,
        )
        for at, got in sorted(points.items())
        if "GpuUsedUtilization" in got
    ]


def _plain(answer: Any) -> dict[str, Any]:
    """The SDK's answer as a dict of snake_case keys: its response model's, or the Result it left as a dict (an
    answer with no fields of its own: StopInstance's) with its keys made snake_case the same way."""
    if answer is None:
        return {}
    if hasattr(answer, "to_dict"):
        return dict(answer.to_dict())
    return {_snake(str(k)): v for k, v in dict(answer).items()}


def _refusal(exc: Exception, code: str) -> bool:
    """Volcengine refused the request for what it is (a 4xx with its code: this instance cannot be stopped so), not for
    who asked (keys, permissions: fixed by people, then tried again) nor for a passing fault (throttling, a 5xx)."""
    status = int(getattr(exc, "status", 0) or 0)
    passing = code in THROTTLED or code in REFUSED or code in DENIED or code.startswith("AccessDenied")
    return bool(code) and 400 <= status < 500 and not passing


def _snake(action: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in action).lstrip("_")


def _stopping(raw: dict[str, Any] | None) -> bool:
    return raw is not None and raw.get("status") == "STOPPING"


def _charging(raw: dict[str, Any]) -> bool | None:
    """Stopped, its meter running (KeepCharging) or not (StopCharging), as DescribeInstances says."""
    return {"KeepCharging": True, "StopCharging": False}.get(str(raw.get("stopped_mode") or ""))


def instance_found(raw: dict[str, Any], region: str, gpu: str | None, cards: int) -> Found:
    """An ECS instance with GPUs, as DescribeInstances gives it (the SDK's snake_case keys)."""
    tags = {str(t.get("key", "")): str(t.get("value", "")) for t in raw.get("tags") or []}
    said = str(raw.get("status") or "unknown")
    state = STATES.get(said, said.lower())
    charge = str(raw.get("instance_charge_type") or "")
    return Found(
        f"volcengine:{raw['instance_id']}",
        "instance",
        region,
        tags.get("Name") or str(raw.get("instance_name") or "") or str(raw["instance_id"]),
        state,
        tags,
        raw.get("instance_type_id"),
        gpu,
        cards,
        None,  # priced from the price cache (provider volcengine), else unknown
        str(raw.get("spot_strategy") or "NoSpot") != "NoSpot",
        utc_time(raw.get("created_at")),
        charging=_charging(raw) if state == "stopped" else None,
        currency="CNY",
        billing="month" if charge == "PrePaid" else "hourly",
    )
