"""Tencent Cloud stood in by a local server on 127.0.0.1 speaking its API 3.0: the official SDK is pointed at it
with GPU_ADVISOR_TENCENT_ENDPOINT, so what is tested is what runs.

Each request's TC3-HMAC-SHA256 signature is checked with the test's keys, as Tencent Cloud documents it: the
canonical request is the method, the path, the query (empty for a POST), the signed headers lower-cased one a
line, their names, and the payload's SHA-256; the string to sign is the algorithm, the timestamp, the credential
scope (date/service/tc3_request) and that request's SHA-256; the signing key is HMAC-SHA256 chained from
"TC3" + SecretKey over the date, the service and "tc3_request". A timestamp more than 5 minutes off is refused.
Products are told apart by the credential scope's service (cvm, cbs, monitor), which must come with its
X-TC-Version (CVM and CBS 2017-03-12, Cloud Monitor 2018-07-24), actions by X-TC-Action;
every answer is {"Response": {...}}, an error as {"Response": {"Error": {"Code", "Message"}, "RequestId"}}."""

from __future__ import annotations

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
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.servers import running

KEY_ID, KEY_SECRET = "AKIDtestkeyofthefake", "tencent-test-secret"
VERSIONS = {"cvm": "2017-03-12", "monitor": "2018-07-24", "cbs": "2017-03-12", "hai": "2023-08-12"}  # its X-TC-Version
REGIONS = ("ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-nanjing")
AUTH = re.compile(
    r"TC3-HMAC-SHA256 Credential=([^/]+)/(\d{4}-\d{2}-\d{2})/([a-z]+)/tc3_request, "
    r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})"
)
ENV = {"TENCENTCLOUD_SECRET_ID": KEY_ID, "TENCENTCLOUD_SECRET_KEY": KEY_SECRET}


class Refusal(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass
class Instance:
    id: str
    region: str
    instance_type: str = "GN7.2XLARGE32"
    gpus: float = 1.0
    gpu_type: str = "NVIDIA T4"
    state: str = "RUNNING"
    charge: str = "POSTPAID_BY_HOUR"
    stop_mode: str = "NOT_APPLICABLE"
    tags: dict[str, str] = field(default_factory=dict)
    name: str = ""
    can_stop_charging: bool = True
    zone: str = ""
    # a stop takes time, as a CVM's does: STOPPING (its StopChargingMode not said yet) until then, STOPPED after
    stops_at: float | None = None
    stopping_to: str = ""

    def raw(self) -> dict[str, Any]:
        if self.stops_at is not None and time.monotonic() >= self.stops_at:
            self.state, self.stop_mode, self.stops_at = "STOPPED", self.stopping_to, None
        return {
            "InstanceId": self.id,
            "InstanceName": self.name or "未命名",
            "InstanceType": self.instance_type,
            "InstanceState": self.state,
            "InstanceChargeType": self.charge,
            "StopChargingMode": self.stop_mode,
            "GPUInfo": {"GPUCount": self.gpus, "GPUType": self.gpu_type, "GPUId": []} if self.gpus else None,
            "Tags": [{"Key": k, "Value": v} for k, v in self.tags.items()],
            "CreatedTime": "2026-11-30T08:00:00Z",
            "Placement": {"Zone": self.zone or f"{self.region}-3", "ProjectId": 0},
        }


@dataclass
class Disk:
    id: str
    region: str
    size_gb: int = 500
    state: str = "UNATTACHED"
    disk_type: str = "CLOUD_PREMIUM"
    name: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    created: str = "2026-11-20 16:00:00"  # as CBS gives it: Beijing time, no zone

    def raw(self) -> dict[str, Any]:
        return {
            "DiskId": self.id,
            "DiskName": self.name or self.id,
            "DiskSize": self.size_gb,
            "DiskState": self.state,
            "DiskType": self.disk_type,
            "DiskChargeType": "POSTPAID_BY_HOUR",
            "DiskUsage": "DATA_DISK",
            "Attached": self.state == "ATTACHED",
            "CreateTime": self.created,
            "Tags": [{"Key": k, "Value": v} for k, v in self.tags.items()],
            "Placement": {"Zone": f"{self.region}-3", "ProjectId": 0},
        }


@dataclass
class Server:
    """A HAI GPU application server, as hai's DescribeInstances gives it."""

    id: str
    region: str
    name: str = ""
    state: str = "RUNNING"
    bundle: str = "GPU进阶型"
    gpus: int = 1
    gpu_memory_gb: str = "32"
    stops_at: float | None = None  # a stop takes time: STOPPING until then, STOPPED_NO_CHARGE after

    def raw(self) -> dict[str, Any]:
        if self.stops_at is not None and time.monotonic() >= self.stops_at:
            self.state, self.stops_at = "STOPPED_NO_CHARGE", None
        return {
            "InstanceId": self.id,
            "InstanceName": self.name or self.id,
            "InstanceState": self.state,
            "ApplicationName": "PyTorch",
            "BundleName": self.bundle,
            "GPUCount": self.gpus,
            "GPUPerformance": "15+TFlops SP",
            "GPUMemory": self.gpu_memory_gb,
            "CPU": "10",
            "Memory": "40",
            "CreateTime": "2026-12-01 09:00:00",  # Beijing time, as HAI gives it
            "LatestOperation": "StartInstance",
            "LatestOperationState": "SUCCESS",
        }


@dataclass
class FakeTencent:
    url: str = ""
    instances: list[Instance] = field(default_factory=list)
    disks: list[Disk] = field(default_factory=list)
    servers: list[Server] = field(default_factory=list)  # HAI
    hai_regions: tuple[str, ...] = ("ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-nanjing")
    prices: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (zone, type) -> Price
    # (zone, type) -> the Price of one month prepaid (OriginalPrice, DiscountPrice, Discount)
    monthly_prices: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    series: dict[str, dict[str, list[tuple[int, float]]]] = field(default_factory=dict)  # metric -> id -> points
    throttle: dict[str, int] = field(default_factory=dict)
    deny: set[str] = field(default_factory=set)
    endless: bool = False  # TotalCount 10^9 and the same rows whatever the Offset
    stop_takes_s: float = 0.0  # a CVM or HAI stop is STOPPING this long before STOPPED (CVM: its StopChargingMode then)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, region: str = "ap-guangzhou", **fields: Any) -> Instance:
        made = Instance(id=f"ins-{uuid.uuid4().hex[:8]}", region=region, **fields)
        self.instances.append(made)
        return made

    def server(self, region: str = "ap-guangzhou", **fields: Any) -> Server:
        made = Server(id=f"hai-{uuid.uuid4().hex[:8]}", region=region, **fields)
        self.servers.append(made)
        return made

    def disk(self, region: str = "ap-guangzhou", **fields: Any) -> Disk:
        made = Disk(id=f"disk-{uuid.uuid4().hex[:8]}", region=region, **fields)
        self.disks.append(made)
        return made

    def price(self, zone: str, instance_type: str, unit: float, status: str = "SELL", gpu_count: float = 1.0) -> None:
        self.prices[(zone, instance_type)] = {
            "GpuCount": gpu_count,
            "UnitPrice": unit,
            "ChargeUnit": "HOUR",
            "UnitPriceSecondStep": round(unit * 0.8, 2),  # past 96 hours
            "UnitPriceThirdStep": round(unit * 0.5, 2),  # past 360 hours
            "UnitPriceDiscount": unit,
            "Discount": 100.0,
            "Status": status,
        }

    def price_month(self, zone: str, instance_type: str, original: float, discount: float = 100.0) -> None:
        """A type's prepaid price for one month, as DescribeZoneInstanceConfigInfos gives it under PREPAID."""
        self.monthly_prices[(zone, instance_type)] = {
            "GpuCount": 1.0,
            "OriginalPrice": original,
            "DiscountPrice": round(original * discount / 100, 2),
            "Discount": discount,
        }

    def actions(self) -> list[str]:
        return [a for a, _ in self.calls]

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> dict[str, Any]:
        request_id = str(uuid.uuid4())
        try:
            product = verify(path, headers, body)
            action = headers.get("x-tc-action", "")
            params = json.loads(body or b"{}")
            with self.lock:
                self.calls.append((action, params))
                if action in self.deny:
                    raise Refusal("UnauthorizedOperation", "未授权操作 (CAM policy does not allow this action)")
                if self.throttle.get(action, 0) > 0:
                    self.throttle[action] -= 1
                    raise Refusal("RequestLimitExceeded", "请求的次数超过了频率限制。")
                region = headers.get("x-tc-region", "")
                if region not in REGIONS:
                    raise Refusal("InvalidRegion", f"The region `{region}` does not exist.")
                handler = getattr(self, f"_{product}_{action}", None)
                if handler is None:
                    raise Refusal("InvalidAction", f"The action `{action}` is not found.")
                return {"Response": {**handler(region, params), "RequestId": request_id}}
        except Refusal as refused:
            return {"Response": {"Error": {"Code": refused.code, "Message": refused.message}, "RequestId": request_id}}

    def _cvm_DescribeInstances(self, region: str, params: dict[str, Any]) -> dict[str, Any]:
        mine = [i for i in self.instances if i.region == region]
        if params.get("InstanceIds"):
            mine = [i for i in mine if i.id in set(params["InstanceIds"])]
        limit, offset = int(params.get("Limit", 20)), int(params.get("Offset", 0))
        if not 1 <= limit <= 100:
            raise Refusal("InvalidParameterValue.LimitExceeded", "Limit must be 1-100.")
        if self.endless:
            return {"TotalCount": 10**9, "InstanceSet": [i.raw() for i in mine[:limit]]}
        return {"TotalCount": len(mine), "InstanceSet": [i.raw() for i in mine[offset : offset + limit]]}

    def _cbs_DescribeDisks(self, region: str, params: dict[str, Any]) -> dict[str, Any]:
        mine = [d for d in self.disks if d.region == region]
        for wanted in params.get("Filters") or []:
            if wanted.get("Name") != "disk-state":
                raise Refusal("InvalidFilter", f"The filter {wanted.get('Name')} is not faked.")
            mine = [d for d in mine if d.state in set(wanted.get("Values") or [])]
        limit, offset = int(params.get("Limit", 20)), int(params.get("Offset", 0))
        if not 1 <= limit <= 100:
            raise Refusal("InvalidParameterValue.LimitTooLarge", "Limit must be 1-100.")
        return {"TotalCount": len(mine), "DiskSet": [d.raw() for d in mine[offset : offset + limit]]}

    def _cvm_StopInstances(self, region: str, params: dict[str, Any]) -> dict[str, Any]:
        found = [i for i in self.instances if i.region == region and i.id in set(params.get("InstanceIds") or [])]
        if not found:
            raise Refusal("InvalidInstanceId.NotFound", "The instance does not exist.")
        for inst in found:
            if params.get("StoppedMode") == "STOP_CHARGING" and not inst.can_stop_charging:
                raise Refusal(
                    "UnsupportedOperation.StoppedModeStopCharging", "该实例不支持关机不收费 (no stop-charging)"
                )
        for inst in found:
            mode = "STOP_CHARGING" if params.get("StoppedMode") == "STOP_CHARGING" else "KEEP_CHARGING"
            if self.stop_takes_s > 0:  # STOPPING for a while, its mode not said yet
                inst.state, inst.stop_mode, inst.stopping_to = "STOPPING", "NOT_APPLICABLE", mode
                inst.stops_at = time.monotonic() + self.stop_takes_s
            else:
                inst.state, inst.stop_mode = "STOPPED", mode
        return {}

    def _hai_DescribeInstances(self, region: str, params: dict[str, Any]) -> dict[str, Any]:
        if region not in self.hai_regions:
            raise Refusal("UnsupportedRegion", f"HAI is not offered in {region}.")
        mine = [v for v in self.servers if v.region == region]
        if params.get("InstanceIds"):
            mine = [v for v in mine if v.id in set(params["InstanceIds"])]
        limit, offset = int(params.get("Limit", 20)), int(params.get("Offset", 0))
        if offset > 100 or limit < 0:
            raise Refusal("InvalidParameterValue", "Offset must not be above 100.")
        return {"TotalCount": len(mine), "InstanceSet": [v.raw() for v in mine[offset : offset + limit]]}

    def _hai_StopInstance(self, region: str, params: dict[str, Any]) -> dict[str, Any]:
        found = [v for v in self.servers if v.region == region and v.id == params.get("InstanceId")]
        if not found:
            raise Refusal("InvalidInstanceId.NotFound", "The instance does not exist.")
        if params.get("StopMode", "STOP_CHARGE") != "STOP_CHARGE":
            raise Refusal("InvalidParameterValue", "StopMode supports STOP_CHARGE only.")
        if self.stop_takes_s > 0:  # STOPPING for a while, as a HAI server is
            found[0].state, found[0].stops_at = "STOPPING", time.monotonic() + self.stop_takes_s
        else:
            found[0].state = "STOPPED_NO_CHARGE"
        return {"TaskId": 1}

    def _cvm_DescribeZoneInstanceConfigInfos(self, region: str, params: dict[str, Any]) -> dict[str, Any]:
        filters = {f["Name"]: set(f["Values"]) for f in params.get("Filters") or []}
        charges = filters.get("instance-charge-type", {"POSTPAID_BY_HOUR", "PREPAID"})
        both = (("POSTPAID_BY_HOUR", self.prices), ("PREPAID", self.monthly_prices))
        tables = [(c, t) for c, t in both if c in charges]
        rows = []
        for charge, table in tables:
            for (zone, kind), price in table.items():
                if not zone.startswith(region) or ("zone" in filters and zone not in filters["zone"]):
                    continue
                if "instance-type" in filters and kind not in filters["instance-type"]:
                    continue
                rows.append(
                    {
                        "Zone": zone,
                        "InstanceType": kind,
                        "InstanceChargeType": charge,
                        "Status": price.get("Status", "SELL"),
                        "Price": {k: v for k, v in price.items() if k not in ("Status", "GpuCount")},
                        "Gpu": max(int(price["GpuCount"]), 1),
                        "GpuCount": price["GpuCount"],
                    }
                )
        return {"InstanceTypeQuotaSet": rows}

    def _monitor_GetMonitorData(self, region: str, params: dict[str, Any]) -> dict[str, Any]:
        if params.get("Namespace") != "QCE/CVM":
            raise Refusal("InvalidParameterValue", "Namespace is invalid.")
        instances = params.get("Instances") or []
        if len(instances) > 10:
            raise Refusal("InvalidParameterValue", "At most 10 instances a call.")
        start = datetime.fromisoformat(params["StartTime"]).timestamp()
        end = datetime.fromisoformat(params["EndTime"]).timestamp()
        points = []
        for instance in instances:
            dims = instance["Dimensions"]
            wanted = next(d["Value"] for d in dims if d["Name"] == "InstanceId")
            mine = [(t, v) for t, v in self.series.get(params["MetricName"], {}).get(wanted, []) if start <= t <= end]
            points.append({"Dimensions": dims, "Timestamps": [t for t, _ in mine], "Values": [v for _, v in mine]})
        return {
            "Period": params.get("Period", 60),
            "MetricName": params["MetricName"],
            "DataPoints": points,
            "StartTime": params["StartTime"],
            "EndTime": params["EndTime"],
        }


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def verify(path: str, headers: dict[str, str], body: bytes) -> str:
    """The TC3 check; the product the request is for. Refusal as Tencent Cloud answers a bad one."""
    found = AUTH.fullmatch(headers.get("authorization", ""))
    if found is None:
        raise Refusal("AuthFailure.InvalidAuthorization", "Authorization is malformed.")
    key_id, date, service, signed, signature = found.groups()
    if key_id != KEY_ID:
        raise Refusal("AuthFailure.SecretIdNotFound", "The SecretId is not found.")
    product, version = service, headers.get("x-tc-version", "")
    if VERSIONS.get(product) != version:
        raise Refusal("InvalidParameter", f"The version {version} of {product} does not exist (or is not faked).")
    stamp = int(headers.get("x-tc-timestamp", "0"))
    if abs(time.time() - stamp) > 300:
        raise Refusal("AuthFailure.SignatureExpire", "The signature expired (timestamp more than 5 minutes off).")
    if datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%d") != date:
        raise Refusal("AuthFailure.InvalidAuthorization", "The credential's date is not the timestamp's.")
    names = signed.split(";")
    if not {"content-type", "host"} <= set(names):
        raise Refusal("AuthFailure.InvalidAuthorization", "SignedHeaders must hold content-type and host.")
    canonical = "\n".join(
        [
            "POST",
            path or "/",
            "",
            "".join(f"{n}:{headers.get(n, '').strip().lower()}\n" for n in names),
            signed,
            hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{date}/{service}/tc3_request"
    to_sign = f"TC3-HMAC-SHA256\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    key = _hmac(_hmac(_hmac(f"TC3{KEY_SECRET}".encode(), date), service), "tc3_request")
    if not hmac.compare_digest(hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest(), signature):
        raise Refusal("AuthFailure.SignatureFailure", "The provided credentials could not be validated.")
    return product


def _handler(fake: FakeTencent) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            data = json.dumps(fake.answer(self.path.split("?")[0], headers, body), ensure_ascii=False).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            return

    return Handler


@contextmanager
def fake_tencent() -> Iterator[FakeTencent]:
    """A fake Tencent Cloud on 127.0.0.1 for the block; `url` is what GPU_ADVISOR_TENCENT_ENDPOINT takes."""
    fake = FakeTencent()
    with running(_handler(fake)) as url:
        fake.url = url
        yield fake
