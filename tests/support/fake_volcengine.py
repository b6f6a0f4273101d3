"""A fake Volcengine (火山引擎) OpenAPI on 127.0.0.1, as its official SDK (volcenginesdkcore) calls it: every call is
`?Action=…&Version=…` at `/` (ECS 2020-04-01 by GET with its parameters in the query, lists flattened as
`InstanceIds.1`; billing 2022-01-01 by POST with a JSON body), signed HMAC-SHA256 (the Authorization header's
Credential scope date/region/service/request, SignedHeaders and Signature over the canonical request, X-Date and
X-Content-Sha256): the fake checks the signature as the SDK signs and refuses a wrong one as Volcengine does
(SignatureDoesNotMatch, 401). Answers `{"ResponseMetadata": {...}, "Result": {...}}`; an error, an HTTP 4xx with
`ResponseMetadata.Error` {Code, Message}.

ECS: DescribeInstances (MaxResults and NextToken pages, InstanceIds), DescribeInstanceTypes (Gpu.GpuDevices),
CloudMonitor: GetMetricData (2018-01-01, POST JSON: VCM_ECS / GPU points per ResourceID and DeviceName),
StopInstance (StoppedMode; an instance STOPPING for `stop_takes_s`, then STOPPED with its mode; one that cannot stop
without charge stops in KeepCharging; a refused type answers its error); billing: QueryBalanceAcct.

ML Platform (ml_platform 2024-07-01, POST JSON): ListResourceQueues (each queue's ChargeType and Rules),
ListDevInstances (PageNumber/PageSize pages), GetDevInstance, GetInstanceType (GpuCount, GpuType, PriceByHour) and
StopDevInstance (a dev instance Stopping for `stop_takes_s`, then Stopped; one in `refuse_dev_stop` answers its
error)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote

from tests.support.servers import json_api, running

KEY_ID, KEY_SECRET = "AKLTfakevolcengine", "fake-volcengine-secret-key"
ENV = {"VOLCENGINE_ACCESS_KEY": KEY_ID, "VOLCENGINE_SECRET_KEY": KEY_SECRET}
VERSIONS = {"ecs": "2020-04-01", "billing": "2022-01-01", "cloudmonitor": "2018-01-01", "ml_platform": "2024-07-01"}
SERVICE_OF = {
    "DescribeInstances": "ecs",
    "DescribeInstanceTypes": "ecs",
    "StopInstance": "ecs",
    "QueryBalanceAcct": "billing",
    "GetMetricData": "cloudmonitor",
    **dict.fromkeys(
        ("ListResourceQueues", "ListDevInstances", "GetDevInstance", "GetInstanceType", "StopDevInstance"),
        "ml_platform",
    ),
}


class Refusal(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Instance:
    id: str
    region: str = "cn-beijing"
    name: str = ""
    instance_type: str = "ecs.gni2.3xlarge"
    status: str = "RUNNING"
    stopped_mode: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    charge: str = "PostPaid"
    can_stop_charging: bool = True
    created: str = "2026-12-01T09:00:00+08:00"
    stops_at: float | None = None
    stopping_to: str = ""

    def raw(self) -> dict[str, Any]:
        if self.stops_at is not None and time.monotonic() >= self.stops_at:
            self.status, self.stopped_mode, self.stops_at = "STOPPED", self.stopping_to, None
        return {
            "InstanceId": self.id,
            "InstanceName": self.name or self.id,
            "InstanceTypeId": self.instance_type,
            "Status": self.status,
            "StoppedMode": self.stopped_mode,
            "InstanceChargeType": self.charge,
            "SpotStrategy": "NoSpot",
            "ZoneId": f"{self.region}-a",
            "CreatedAt": self.created,
            "Tags": [{"Key": k, "Value": v} for k, v in self.tags.items()],
        }


@dataclass
class DevInstance:
    id: str
    region: str = "cn-beijing"
    name: str = ""
    queue: str = "q-payg"
    instance_type: str = "ml.gni3cl.5xlarge"  # "" : a flexible claim of `gpus` x `gpu_type`
    gpus: float = 0
    gpu_type: str = ""
    state: str = "Running"
    creator: str = "trn:iam::2100000001:user/alice"
    created: str = "2026-12-01T01:00:00Z"
    stops_at: float | None = None

    def raw(self) -> dict[str, Any]:
        if self.stops_at is not None and time.monotonic() >= self.stops_at:
            self.state, self.stops_at = "Stopped", None
        claim: dict[str, Any] = {"InstanceTypeId": self.instance_type, "ZoneId": f"{self.region}-a"}
        if not self.instance_type:
            claim["FlexibleResourceClaim"] = {"GpuCount": self.gpus, "GpuType": self.gpu_type, "Cpu": 8.0}
        return {
            "Id": self.id,
            "Name": self.name or self.id,
            "ResourceQueueId": self.queue,
            "ResourceClaim": claim,
            "Status": {"State": self.state, "SecondaryState": "", "Message": ""},
            "CreatorTrn": self.creator,
            "CreateTime": self.created,
            "ProjectName": "default",
        }


def idle_rules(general: int = 0, low_use: int = 0, kinds: tuple[str, ...] = ()) -> dict[str, Any]:
    """A queue's Rules: idle shutdown after `general` minutes, low-utilization shutdown after `low_use` (0: off)."""

    def rule(minutes: int) -> dict[str, Any]:
        return {"Enabled": minutes > 0, "MinutePeriod": minutes, "Threshold": 5.0, "IdleShutdownRuleTypes": list(kinds)}

    return {"GeneralIdleRule": rule(general), "GpuUtilizationRule": rule(low_use)}


@dataclass
class FakeVolcengine:
    url: str = ""
    instances: list[Instance] = field(default_factory=list)
    # instance type -> (GPU product name, count); a type not here has no GPUs (a CPU type)
    types: dict[str, tuple[str, int]] = field(default_factory=lambda: {"ecs.gni2.3xlarge": ("NVIDIA A10", 1)})
    refuse_stop: dict[str, tuple[str, str]] = field(default_factory=dict)  # instance type -> (code, message)
    throttle: dict[str, int] = field(default_factory=dict)  # action -> how many calls answer throttled first
    failing: dict[str, int] = field(default_factory=dict)  # action -> how many calls answer InternalError (500) first
    gateway_down: bool = False  # a proxy in front answers 502 with a page of its own, not Volcengine's JSON
    stop_takes_s: float = 0.0
    balance: str = "12,345.60"
    arrears: str = "0.00"  # owed: the account is in arrears by this much
    # CloudMonitor's VCM_ECS/GPU points: (metric, instance id, device name) -> [(unix time, value)]
    series: dict[tuple[str, str, str], list[tuple[int, float]]] = field(default_factory=dict)
    dev_instances: list[DevInstance] = field(default_factory=list)
    # ML Platform queues: id -> (ChargeType, Rules)
    queues: dict[str, tuple[str, dict[str, Any]]] = field(
        default_factory=lambda: {"q-payg": ("PostPaid", idle_rules(general=60)), "q-prepaid": ("PrePaid", idle_rules())}
    )
    # ML Platform instance types: id -> (GpuType, GpuCount, PriceByHour)
    ml_types: dict[str, tuple[str, int, float]] = field(
        default_factory=lambda: {"ml.gni3cl.5xlarge": ("NVIDIA A10", 1, 10.36), "ml.g3i.large": ("", 0, 0.6)}
    )
    refuse_dev_stop: dict[str, tuple[str, str]] = field(default_factory=dict)  # dev instance id -> (code, message)
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **fields: Any) -> Instance:
        made = Instance(id=f"i-{uuid.uuid4().hex[:18]}", **fields)
        self.instances.append(made)
        return made

    def add_dev(self, **fields: Any) -> DevInstance:
        made = DevInstance(id=f"di-{uuid.uuid4().hex[:16]}", **fields)
        self.dev_instances.append(made)
        return made

    def actions(self) -> list[str]:
        return [action for action, _ in self.calls]

    def answer(self, method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        if self.gateway_down:
            return 502, "<html><body>502 Bad Gateway</body></html>"
        params = dict(parse_qsl(query, keep_blank_values=True))
        action = params.get("Action", "")
        meta: dict[str, Any] = {"RequestId": uuid.uuid4().hex, "Action": action, "Version": params.get("Version", "")}
        try:
            service = SERVICE_OF.get(action)
            if service is None or params.get("Version") != VERSIONS[service]:
                raise Refusal(404, "InvalidActionOrVersion", f"Could not find operation {action}.")
            region = _check_signature(method, path, params, headers, body, service)
            meta |= {"Service": service, "Region": region}
            with self.lock:
                self.calls.append((action, params))
                if self.throttle.get(action, 0) > 0:
                    self.throttle[action] -= 1
                    raise Refusal(429, "RequestLimitExceeded", "Request limit exceeded.")
                if self.failing.get(action, 0) > 0:
                    self.failing[action] -= 1
                    raise Refusal(500, "InternalError", "The request processing has failed due to some unknown error.")
                result = getattr(self, f"_{action}")(region, params, body)
            return 200, {"ResponseMetadata": meta, "Result": result}
        except Refusal as refused:
            return refused.status, {
                "ResponseMetadata": meta | {"Error": {"Code": refused.code, "Message": refused.message}}
            }

    def _DescribeInstances(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        mine = [i for i in self.instances if i.region == region]
        wanted = {v for k, v in params.items() if k.startswith("InstanceIds.")}
        if wanted:
            mine = [i for i in mine if i.id in wanted]
        size = int(params.get("MaxResults") or 20)
        if size > 100:
            raise Refusal(400, "InvalidParameter.MaxResults", "MaxResults must be at most 100.")
        start = int(params.get("NextToken") or 0)
        page = mine[start : start + size]
        following = str(start + size) if start + size < len(mine) else ""
        return {"Instances": [i.raw() for i in page], "NextToken": following}

    def _DescribeInstanceTypes(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        wanted = [v for k, v in sorted(params.items()) if k.startswith("InstanceTypeIds.")]
        rows = []
        for kind in wanted or list(self.types):
            gpu = self.types.get(kind)
            devices = [{"ProductName": gpu[0], "Count": gpu[1], "Memory": {"Size": 24576}}] if gpu else []
            rows.append({"InstanceTypeId": kind, "Gpu": {"GpuDevices": devices}})
        return {"InstanceTypes": rows, "NextToken": ""}

    def _StopInstance(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        found = next((i for i in self.instances if i.region == region and i.id == params.get("InstanceId")), None)
        if found is None:
            raise Refusal(404, "InvalidInstance.NotFound", "The specified instance is not found.")
        if found.instance_type in self.refuse_stop:
            raise Refusal(400, *self.refuse_stop[found.instance_type])
        asked = params.get("StoppedMode") or "KeepCharging"
        mode = "StopCharging" if asked == "StopCharging" and found.can_stop_charging else "KeepCharging"
        if self.stop_takes_s > 0:  # STOPPING for a while, its mode not said yet
            found.status, found.stopped_mode, found.stopping_to = "STOPPING", "", mode
            found.stops_at = time.monotonic() + self.stop_takes_s
        else:
            found.status, found.stopped_mode = "STOPPED", mode
        return {}

    def _GetMetricData(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        asked = json.loads(body or b"{}")
        if (asked.get("Namespace"), asked.get("SubNamespace")) != ("VCM_ECS", "GPU") or asked.get("Period") != "60s":
            raise Refusal(400, "InvalidParameter", "Namespace, SubNamespace or Period is not valid.")
        wanted = {
            d["Value"] for i in asked.get("Instances") or [] for d in i["Dimensions"] if d["Name"] == "ResourceID"
        }
        start, end = int(asked["StartTime"]), int(asked["EndTime"])
        results = [
            {
                "Dimensions": [{"Name": "ResourceID", "Value": instance}, {"Name": "DeviceName", "Value": device}],
                "DataPoints": [{"Timestamp": t, "Value": v} for t, v in points if start <= t <= end],
            }
            for (metric, instance, device), points in sorted(self.series.items())
            if metric == asked.get("MetricName") and instance in wanted
        ]
        return {"Data": {"MetricName": asked.get("MetricName"), "Period": "60s", "MetricDataResults": results}}

    def _QueryBalanceAcct(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        return {
            "AccountID": 2100000001,
            "AvailableBalance": self.balance,
            "CashBalance": self.balance,
            "ArrearsBalance": self.arrears,
            "CreditLimit": "0.00",
            "FreezeAmount": "0.00",
        }

    def _ListResourceQueues(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        asked = json.loads(body or b"{}")
        rows = [
            {"Id": q, "Name": q, "ChargeType": charge, "Rules": rules} for q, (charge, rules) in self.queues.items()
        ]
        return _page(rows, asked, "Items")

    def _ListDevInstances(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        rows = [d.raw() for d in self.dev_instances if d.region == region]
        return _page(rows, json.loads(body or b"{}"), "List")

    def _dev(self, region: str, body: bytes) -> DevInstance:
        wanted = json.loads(body or b"{}").get("Id")
        found = next((d for d in self.dev_instances if d.region == region and d.id == wanted), None)
        if found is None:
            raise Refusal(404, "NotFound.DevInstance", f"The dev instance {wanted} is not found.")
        return found

    def _GetDevInstance(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        return self._dev(region, body).raw()

    def _GetInstanceType(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        kind = json.loads(body or b"{}").get("Id")
        if kind not in self.ml_types:
            raise Refusal(404, "NotFound.InstanceType", f"The instance type {kind} is not found.")
        gpu, count, price = self.ml_types[kind]
        return {"Id": kind, "GpuType": gpu, "GpuCount": count, "GpuMemoryMiB": 24576 if count else 0,
                "PriceByHour": price, "Cpu": 20.0, "MemoryMiB": 81920.0}  # fmt: skip

    def _StopDevInstance(self, region: str, params: dict[str, str], body: bytes) -> dict[str, Any]:
        found = self._dev(region, body)
        if found.id in self.refuse_dev_stop:
            raise Refusal(400, *self.refuse_dev_stop[found.id])
        if self.stop_takes_s > 0:
            found.state, found.stops_at = "Stopping", time.monotonic() + self.stop_takes_s
        else:
            found.state = "Stopped"
        return {"Id": found.id}


def _page(rows: list[dict[str, Any]], asked: dict[str, Any], key: str) -> dict[str, Any]:
    """ML Platform's pages: PageNumber from 1, PageSize at most 100, TotalCount."""
    number, size = int(asked.get("PageNumber") or 1), int(asked.get("PageSize") or 10)
    if size > 100:
        raise Refusal(400, "InvalidParameter.PageSize", "PageSize must be at most 100.")
    start = (number - 1) * size
    return {key: rows[start : start + size], "PageNumber": number, "PageSize": size, "TotalCount": len(rows)}


def _check_signature(
    method: str, path: str, params: dict[str, str], headers: dict[str, str], body: bytes, service: str
) -> str:
    """The request's region, once its HMAC-SHA256 signature is what Volcengine's SDK makes with the fake's key."""
    auth = headers.get("authorization", "")
    try:
        scheme, rest = auth.split(" ", 1)
        parts = dict(p.strip().split("=", 1) for p in rest.split(","))
        key_id, date, region, signed_service, terminal = parts["Credential"].split("/")
    except ValueError:
        raise Refusal(401, "MissingAuthenticationToken", "The request is not signed.") from None
    if scheme != "HMAC-SHA256" or terminal != "request" or signed_service != service:
        raise Refusal(401, "InvalidAuthorization", "The Authorization header is malformed.")
    if key_id != KEY_ID:
        raise Refusal(401, "InvalidAccessKey", "The AccessKey does not exist.")
    body_hash = hashlib.sha256(body).hexdigest()
    if headers.get("x-content-sha256") != body_hash:
        raise Refusal(400, "InvalidContentSha256", "X-Content-Sha256 is not the body's.")
    names = parts["SignedHeaders"].split(";")
    signed = "".join(f"{n}:{_header(headers, n)}\n" for n in names)
    query = "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(params.items()))
    canonical = "\n".join([method, path or "/", query, signed, parts["SignedHeaders"], body_hash])
    stamp = headers.get("x-date", "")
    scope = f"{date}/{region}/{service}/request"
    to_sign = "\n".join(["HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    key = KEY_SECRET.encode()
    for part in (date, region, service, "request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    expected = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, parts["Signature"]):
        raise Refusal(401, "SignatureDoesNotMatch", "The request signature we calculated does not match.")
    return region


def _header(headers: dict[str, str], name: str) -> str:
    value = headers.get(name, "")
    if name == "host" and value.endswith((":80", ":443")):
        value = value.rsplit(":", 1)[0]
    return value


@contextmanager
def fake_volcengine() -> Iterator[FakeVolcengine]:
    """A fake Volcengine on 127.0.0.1 for the block; `url` is what GPU_ADVISOR_VOLCENGINE_ENDPOINT takes."""
    fake = FakeVolcengine()
    with running(json_api(fake.answer)) as url:
        fake.url = url
        yield fake
