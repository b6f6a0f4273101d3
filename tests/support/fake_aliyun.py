"""Alibaba Cloud stood in by a local server on 127.0.0.1 speaking its OpenAPI (RPC style): the official SDKs are
pointed at it with GPU_ADVISOR_ALIYUN_ENDPOINT, so what is tested is what runs.

Each request's ACS3-HMAC-SHA256 signature is checked with the test's keys, as Alibaba Cloud documents it (V3
request structure and signature): the canonical request is the method, the path, the sorted and RFC 3986
encoded query, the signed headers (host, x-acs-*, content-type) one a line, their names, and the payload's
SHA-256; the string to sign is the algorithm and that request's SHA-256; the signature the HMAC-SHA256 of it
with the AccessKey secret. Products are told apart by x-acs-version (ECS 2014-05-26, CloudMonitor 2019-01-01,
billing 2017-12-14), actions by x-acs-action; answers and error codes have the documented shapes."""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, quote

from tests.support.servers import for_the_process, json_api

KEY_ID, KEY_SECRET = "LTAI-test-key", "test-secret-of-the-fake"
VERSIONS = {"2014-05-26": "ecs", "2019-01-01": "cms", "2017-12-14": "bss", "2022-01-01": "dsw"}
REGIONS = ("cn-hangzhou", "cn-shanghai", "cn-beijing", "cn-shenzhen")
AUTH = re.compile(r"ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]+)")


class Refusal(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Instance:
    id: str
    region: str
    instance_type: str = "ecs.gn7i-c8g1.2xlarge"
    gpus: int = 1
    spec: str = "NVIDIA A10"
    status: str = "Running"
    charge: str = "PostPaid"
    spot: str = "NoSpot"
    stopped_mode: str = "Not-applicable"
    tags: dict[str, str] = field(default_factory=dict)
    name: str = ""
    can_stop_charging: bool = True  # economical mode on, a cloud-disk family, pay as you go
    created: str = "2026-11-30T08:00Z"
    # a stop takes time, as Alibaba Cloud's does: Stopping (StoppedMode Not-applicable yet) until then, Stopped after
    stops_at: float | None = None
    stopping_to: str = ""

    def raw(self) -> dict[str, Any]:
        if self.stops_at is not None and time.monotonic() >= self.stops_at:
            self.status, self.stopped_mode, self.stops_at = "Stopped", self.stopping_to, None
        return {
            "InstanceId": self.id,
            "InstanceName": self.name or self.id,
            "InstanceType": self.instance_type,
            "RegionId": self.region,
            "ZoneId": f"{self.region}-h",
            "Status": self.status,
            "GPUAmount": self.gpus,
            "GPUSpec": self.spec if self.gpus else "",
            "InstanceChargeType": self.charge,
            "SpotStrategy": self.spot,
            "StoppedMode": self.stopped_mode,
            "CreationTime": self.created,
            "StartTime": self.created,
            "Tags": {"Tag": [{"TagKey": k, "TagValue": v} for k, v in self.tags.items()]},
        }


@dataclass
class Notebook:
    """A PAI-DSW instance, as its REST API (2022-01-01) gives it."""

    id: str
    name: str = ""
    status: str = "Running"
    ecs_spec: str = "ecs.gn7i-c8g1.2xlarge"
    payment: str = "PayAsYouGo"
    idle_minutes: int | None = None
    tags: dict[str, str] = field(default_factory=dict)
    gpu_usage: float = 0.0  # GpuCoreUsage, %
    memory_usage: float = 12.5  # GpuMemoryUsage, %
    stops_at: float | None = None  # a stop takes time: Stopping until then, Stopped after

    def raw(self) -> dict[str, Any]:
        if self.stops_at is not None and time.monotonic() >= self.stops_at:
            self.status, self.stops_at = "Stopped", None
        culler = (
            {"MaxIdleTimeInMinutes": self.idle_minutes, "GpuPercentThreshold": 5, "CpuPercentThreshold": 20}
            if self.idle_minutes
            else None
        )
        return {
            "InstanceId": self.id,
            "InstanceName": self.name or self.id,
            "Status": self.status,
            "AcceleratorType": "GPU",
            "EcsSpec": self.ecs_spec,
            "PaymentType": self.payment,
            "GmtCreateTime": "2026-12-01T01:00:00Z",
            "IdleInstanceCuller": culler,
            "Tags": [{"TagKey": k, "TagValue": v} for k, v in self.tags.items()],
            "RequestedResource": {"CPU": "8", "GPU": "1", "GPUType": "", "Memory": "30Gi"},
            "WorkspaceId": "12345",
        }


@dataclass
class FakeAliyun:
    url: str = ""
    instances: list[Instance] = field(default_factory=list)
    disks: list[dict[str, Any]] = field(default_factory=list)
    notebooks: list[Notebook] = field(default_factory=list)  # PAI-DSW, one region (its REST calls carry none)
    path: str = ""  # the path of the request being answered (the REST-style products' resource ids are in it)
    prices: dict[tuple[str, str], float] = field(default_factory=dict)  # (region, type) -> CNY an hour
    spot_prices: dict[tuple[str, str], float] = field(default_factory=dict)
    # (region, type) -> CNY for one month, prepaid (DescribePrice PriceUnit=Month, Period=1)
    monthly_prices: dict[tuple[str, str], float] = field(default_factory=dict)
    # (region, category, performance level) -> CNY a GB an hour, as DescribePrice prices a disk of a size
    disk_prices: dict[tuple[str, str, str], float] = field(default_factory=dict)
    types: dict[str, tuple[str, int]] = field(default_factory=dict)  # instance type -> (GPUSpec, GPUAmount)
    type_memory: dict[str, float] = field(default_factory=dict)  # instance type -> GPUMemorySize (GiB)
    datapoints: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # metric -> CloudMonitor points
    balance: str = "10,000.00"
    throttle: dict[str, int] = field(default_factory=dict)  # action -> how many more times it is throttled
    deny: set[str] = field(default_factory=set)  # actions answered Forbidden.RAM
    endless: bool = False  # every page answers the same NextToken (a cloud that never says the listing ended)
    stop_takes_s: float = 0.0  # an ECS or DSW stop is Stopping this long before Stopped (ECS: its StoppedMode then)
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, region: str = "cn-hangzhou", **fields: Any) -> Instance:
        made = Instance(id=f"i-{uuid.uuid4().hex[:20]}", region=region, **fields)
        self.instances.append(made)
        return made

    def notebook(self, **fields: Any) -> Notebook:
        made = Notebook(id=f"dsw-{uuid.uuid4().hex[:16]}", **fields)
        self.notebooks.append(made)
        return made

    def add_disk(self, region: str = "cn-hangzhou", size: int = 500, status: str = "Available", **extra: Any) -> str:
        disk_id = f"d-{uuid.uuid4().hex[:20]}"
        tags = extra.pop("tags", {})
        self.disks.append(
            {
                "DiskId": disk_id,
                "DiskName": extra.pop("name", ""),
                "RegionId": region,
                "Size": size,
                "Category": "cloud_essd",
                "PerformanceLevel": "PL0",
                "Status": status,
                "CreationTime": "2026-11-01T00:00Z",
                "Tags": {"Tag": [{"TagKey": k, "TagValue": v} for k, v in tags.items()]},
                **extra,
            }
        )
        return disk_id

    def actions(self) -> list[str]:
        return [action for action, _ in self.calls]

    # the protocol

    def answer(self, method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        try:
            verify(method, path, query, headers, body)
            product = VERSIONS.get(headers.get("x-acs-version", ""))
            action = headers.get("x-acs-action", "")
            params = dict(parse_qsl(query, keep_blank_values=True))
            if body and "form" in headers.get("content-type", ""):
                params |= dict(parse_qsl(body.decode(), keep_blank_values=True))
            with self.lock:
                self.path = path
                self.calls.append((action, params))
                if action in self.deny:
                    raise Refusal(403, "Forbidden.RAM", "User not authorized to operate on the specified resource.")
                if self.throttle.get(action, 0) > 0:
                    self.throttle[action] -= 1
                    raise Refusal(400, "Throttling.User", "Request was denied due to user flow control.")
                handler = getattr(self, f"_{product}_{_snake(action)}", None)
                if product is None or handler is None:
                    raise Refusal(404, "InvalidAction.NotFound", f"Specified api is not found: {action}")
                return 200, {"RequestId": str(uuid.uuid4()).upper(), **handler(params)}
        except Refusal as refused:
            return refused.status, {
                "RequestId": str(uuid.uuid4()).upper(),
                "HostId": headers.get("host", ""),
                "Code": refused.code,
                "Message": refused.message,
                "Recommend": "https://api.aliyun.com/troubleshoot",
            }

    def _region(self, params: dict[str, str]) -> str:
        region = params.get("RegionId", "")
        if region not in REGIONS:
            raise Refusal(404, "InvalidRegionId.NotFound", "The specified RegionId does not exist.")
        return region

    def _page(self, items: list[Any], params: dict[str, str]) -> tuple[list[Any], str]:
        size = int(params.get("MaxResults") or 10)
        if not 1 <= size <= 100:
            raise Refusal(400, "InvalidParameter.MaxResults", "The specified MaxResults is invalid.")
        if self.endless:
            return items[:size], "AAAAAZ9t3ew-same-token"
        start = int(params.get("NextToken") or 0)
        end = start + size
        return items[start:end], str(end) if end < len(items) else ""

    def _ecs_describe_instances(self, params: dict[str, str]) -> dict[str, Any]:
        region = self._region(params)
        mine = [i for i in self.instances if i.region == region]
        if params.get("InstanceIds"):
            wanted = set(json.loads(params["InstanceIds"]))
            mine = [i for i in mine if i.id in wanted]
        page, token = self._page(mine, params)
        return {"Instances": {"Instance": [i.raw() for i in page]}, "NextToken": token, "TotalCount": len(mine)}

    def _ecs_describe_disks(self, params: dict[str, str]) -> dict[str, Any]:
        region = self._region(params)
        mine = [d for d in self.disks if d["RegionId"] == region]
        if params.get("Status"):
            mine = [d for d in mine if d["Status"] == params["Status"]]
        page, token = self._page(mine, params)
        return {"Disks": {"Disk": page}, "NextToken": token, "TotalCount": len(mine)}

    def _ecs_stop_instances(self, params: dict[str, str]) -> dict[str, Any]:
        region = self._region(params)
        ids = [v for k, v in sorted(params.items()) if k.startswith("InstanceId.")]
        if not ids:
            raise Refusal(400, "MissingInstanceId", "InstanceId is mandatory for this action.")
        out = []
        for instance_id in ids:
            found = next((i for i in self.instances if i.id == instance_id and i.region == region), None)
            if found is None:
                out.append({"InstanceId": instance_id, "Code": "InvalidInstanceId.NotFound", "Message": "not found"})
                continue
            previous = found.status
            asked = params.get("StoppedMode", "KeepCharging")
            # not supported: stopped in keep-charging mode, and no error (as Alibaba Cloud documents it)
            mode = "StopCharging" if asked == "StopCharging" and found.can_stop_charging else "KeepCharging"
            if self.stop_takes_s > 0:  # Stopping for a while, its mode not said yet
                found.status, found.stopped_mode, found.stopping_to = "Stopping", "Not-applicable", mode
                found.stops_at = time.monotonic() + self.stop_takes_s
            else:
                found.status, found.stopped_mode = "Stopped", mode
            out.append(
                {
                    "InstanceId": instance_id,
                    "Code": "200",
                    "Message": "success",
                    "PreviousStatus": previous,
                    "CurrentStatus": "Stopping",
                }
            )
        return {"InstanceResponses": {"InstanceResponse": out}}

    def _ecs_describe_instance_types(self, params: dict[str, str]) -> dict[str, Any]:
        wanted = [v for k, v in sorted(params.items()) if k.startswith("InstanceTypes.")]
        if len(wanted) > 10:
            raise Refusal(400, "InvalidParameter.InstanceTypes", "At most 10 instance types a call.")
        known = {i.instance_type: (i.spec, i.gpus) for i in self.instances} | self.types
        return {
            "InstanceTypes": {
                "InstanceType": [
                    {
                        "InstanceTypeId": name,
                        "GPUSpec": known[name][0],
                        "GPUAmount": known[name][1],
                        "GPUMemorySize": self.type_memory.get(name, 0.0),
                    }
                    for name in wanted
                    if name in known
                ]
            }
        }

    def _notebook(self) -> Notebook:
        """The notebook the request's path names (/api/v2/instances/{id}..., /api/v2/instance/{id}/metrics)."""
        parts = self.path.strip("/").split("/")
        found = [n for n in self.notebooks if len(parts) > 3 and n.id == parts[3]]
        if not found:
            raise Refusal(404, "InstanceNotFound", "The instance does not exist.")
        return found[0]

    def _dsw_list_instances(self, params: dict[str, str]) -> dict[str, Any]:
        if self.path != "/api/v2/instances":
            raise Refusal(404, "InvalidAction.NotFound", f"no ListInstances at {self.path}")
        mine = [n for n in self.notebooks if params.get("AcceleratorType") in (None, "GPU")]
        number, size = int(params.get("PageNumber", 1)), int(params.get("PageSize", 10))
        page = mine[(number - 1) * size : number * size]
        return {"Instances": [n.raw() for n in page], "TotalCount": len(mine), "Success": True, "Code": "200"}

    def _dsw_get_instance(self, params: dict[str, str]) -> dict[str, Any]:
        return {**self._notebook().raw(), "Success": True, "Code": "200"}

    def _dsw_stop_instance(self, params: dict[str, str]) -> dict[str, Any]:
        notebook = self._notebook()
        if not self.path.endswith("/stop"):
            raise Refusal(404, "InvalidAction.NotFound", f"no StopInstance at {self.path}")
        if self.stop_takes_s > 0:  # Stopping for a while, as DSW's notebooks are
            notebook.status, notebook.stops_at = "Stopping", time.monotonic() + self.stop_takes_s
        else:
            notebook.status = "Stopped"
        return {"InstanceId": notebook.id, "Success": True, "Code": "200", "Message": "stopping"}

    def _dsw_get_instance_metrics(self, params: dict[str, str]) -> dict[str, Any]:
        notebook = self._notebook()
        if not self.path.endswith("/metrics") or not params.get("StartTime") or not params.get("EndTime"):
            raise Refusal(400, "ValidationError", "StartTime and EndTime are required.")
        start = datetime.strptime(params["StartTime"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        end = datetime.strptime(params["EndTime"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        value = {"GpuCoreUsage": notebook.gpu_usage, "GpuMemoryUsage": notebook.memory_usage}[params["MetricType"]]
        points, at = [], start
        while at <= end:
            points.append({"Time": int(at.timestamp() * 1000), "Value": value})
            at += timedelta(minutes=1)
        return {"InstanceId": notebook.id, "PodMetrics": [{"PodId": "pod-0", "Metrics": points}], "Success": True}

    def _ecs_describe_price(self, params: dict[str, str]) -> dict[str, Any]:
        region = self._region(params)
        if params.get("ResourceType") == "disk":  # a disk's price an hour for its size; Hour is the only unit
            if (
                params.get("PriceUnit") != "Hour"
                or "DataDisk.1.Category" not in params
                or "DataDisk.1.Size" not in params
            ):
                raise Refusal(400, "InvalidParameter", "DataDisk.1.Category, DataDisk.1.Size and PriceUnit=Hour")
            key = (region, params["DataDisk.1.Category"], params.get("DataDisk.1.PerformanceLevel", "PL1"))
            if key not in self.disk_prices:
                raise Refusal(
                    400, "InvalidDataDiskCategory.ValueNotSupported", "The specified disk category is invalid."
                )
            hourly = round(self.disk_prices[key] * int(params["DataDisk.1.Size"]), 6)
            return {"PriceInfo": {"Price": {"OriginalPrice": hourly, "DiscountPrice": 0.0, "TradePrice": hourly,
                                            "Currency": "CNY"}, "Rules": {"Rule": []}}}  # fmt: skip
        if params.get("ResourceType", "instance") != "instance" or params.get("PriceUnit") not in ("Hour", "Month"):
            raise Refusal(400, "InvalidParameter", "this fake prices instances by the hour or the month only")
        if params["PriceUnit"] == "Month" and params.get("Period", "1") != "1":
            raise Refusal(400, "InvalidParameter", "this fake prices one month only")
        table = self.monthly_prices if params["PriceUnit"] == "Month" else self.prices
        price = table.get((region, params.get("InstanceType", "")))
        if price is None:
            raise Refusal(400, "InvalidInstanceType.ValueNotSupported", "The specified InstanceType does not exist.")
        original = round(price * 1.0, 4)
        return {
            "PriceInfo": {
                "Price": {
                    "OriginalPrice": original,
                    "DiscountPrice": 0.0,
                    "TradePrice": price,
                    "Currency": "CNY",
                },
                "Rules": {"Rule": []},
            }
        }

    def _ecs_describe_spot_price_history(self, params: dict[str, str]) -> dict[str, Any]:
        region = self._region(params)
        price = self.spot_prices.get((region, params.get("InstanceType", "")))
        points = []
        if price is not None:
            points = [
                {
                    "ZoneId": f"{region}-h",
                    "InstanceType": params["InstanceType"],
                    "IoOptimized": "optimized",
                    "NetworkType": "vpc",
                    "Timestamp": "2026-12-01T00:00:00Z",
                    "SpotPrice": price,
                    "OriginPrice": self.prices.get((region, params["InstanceType"]), price * 5),
                }
            ]
        return {"SpotPrices": {"SpotPriceType": points}, "Currency": "CNY", "NextOffset": 0}

    def _cms_describe_metric_list(self, params: dict[str, str]) -> dict[str, Any]:
        if params.get("Namespace") != "acs_ecs_dashboard":
            raise Refusal(400, "InvalidParameter", "Namespace is invalid.")
        wanted = {d["instanceId"] for d in json.loads(params.get("Dimensions") or "[]")}
        start, end = int(params.get("StartTime", 0)), int(params.get("EndTime", 0))
        points = [
            p
            for p in self.datapoints.get(params.get("MetricName", ""), [])
            if p["instanceId"] in wanted and start <= p["timestamp"] <= end
        ]
        return {"Code": "200", "Success": True, "Period": params.get("Period", "60"), "Datapoints": json.dumps(points)}

    def _bss_query_account_balance(self, params: dict[str, str]) -> dict[str, Any]:
        return {
            "Code": "200",
            "Message": "Successful!",
            "Success": True,
            "Data": {
                "AvailableAmount": self.balance,
                "AvailableCashAmount": self.balance,
                "CreditAmount": "0.00",
                "MybankCreditAmount": "0.00",
                "Currency": "CNY",
                "QuotaLimit": "0.00",
            },
        }


def _snake(action: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", action).lower()


def _encode(text: str) -> str:
    return quote(text, safe="-_.~")


def verify(method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> None:
    """The ACS3-HMAC-SHA256 check: Refusal as Alibaba Cloud answers a bad one."""
    found = AUTH.fullmatch(headers.get("authorization", ""))
    if found is None:
        raise Refusal(400, "MissingAuthorization", "Authorization is mandatory for this action.")
    key, signed, signature = found.groups()
    if key != KEY_ID:
        raise Refusal(404, "InvalidAccessKeyId.NotFound", "Specified access key is not found.")
    names = signed.split(";")
    needed = {"host", "x-acs-action", "x-acs-content-sha256", "x-acs-date", "x-acs-signature-nonce", "x-acs-version"}
    if not needed <= set(names) or names != sorted(names):
        raise Refusal(400, "IncompleteSignature", f"SignedHeaders must hold {sorted(needed)}, sorted.")
    payload = hashlib.sha256(body).hexdigest()
    if headers.get("x-acs-content-sha256") != payload:
        raise Refusal(400, "InvalidParameter.ContentSHA256", "x-acs-content-sha256 is not the body's SHA-256.")
    pairs = sorted((_encode(k), _encode(v)) for k, v in parse_qsl(query, keep_blank_values=True))
    canonical = "\n".join(
        [
            method,
            path or "/",
            "&".join(f"{k}={v}" for k, v in pairs),
            "".join(f"{name}:{headers.get(name, '').strip()}\n" for name in names),
            signed,
            payload,
        ]
    )
    to_sign = f"ACS3-HMAC-SHA256\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    expected = hmac.new(KEY_SECRET.encode(), to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, signature):
        raise Refusal(400, "SignatureDoesNotMatch", "Specified signature does not match our calculation.")


ENV = {
    "ALIBABA_CLOUD_ACCESS_KEY_ID": KEY_ID,
    "ALIBABA_CLOUD_ACCESS_KEY_SECRET": KEY_SECRET,
    "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true",
}


class _Serving:
    """The fake a test is using now, behind the one server of its process; between tests, nobody's (503)."""

    def __init__(self) -> None:
        self.fake: FakeAliyun | None = None

    def answer(self, method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        fake = self.fake
        if fake is None:
            return 503, {"Code": "ServiceUnavailable", "Message": "No fake Alibaba Cloud is serving now."}
        return fake.answer(method, path, query, headers, body)


_SERVING = _Serving()


@functools.cache
def _server_url() -> str:
    """One server a test process: Alibaba Cloud's SDK keeps an HTTP session for each host and port it has called
    (darabonba's DaraCore, for the process), and makes a TLS context (about 36 ms of CPU) for each new one: a fake on
    a new port a test cost every test that much again. It is never stopped (tests/support/servers.for_the_process)."""
    return for_the_process(json_api(_SERVING.answer, "application/json;charset=utf-8"))


@contextmanager
def fake_aliyun() -> Iterator[FakeAliyun]:
    """A fake Alibaba Cloud on 127.0.0.1 for the block; `url` is what GPU_ADVISOR_ALIYUN_ENDPOINT takes."""
    fake = FakeAliyun()
    fake.url = _server_url()
    _SERVING.fake = fake
    try:
        yield fake
    finally:
        _SERVING.fake = None
