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
without charge stops in KeepCharging; a refused type answers its error); billing: QueryBalanceAcct."""

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
VERSIONS = {"ecs": "2020-04-01", "billing": "2022-01-01", "cloudmonitor": "2018-01-01"}
SERVICE_OF = {
    "DescribeInstances": "ecs",
    "DescribeInstanceTypes": "ecs",
    "StopInstance": "ecs",
    "QueryBalanceAcct": "billing",
    "GetMetricData": "cloudmonitor",
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
    # CloudMonitor's VCM_ECS/GPU points: (metric, instance id, device name) -> [(unix time, value)]
    series: dict[tuple[str, str, str], list[tuple[int, float]]] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **fields: Any) -> Instance:
        made = Instance(id=f"i-{uuid.uuid4().hex[:18]}", **fields)
        self.instances.append(made)
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
            "ArrearsBalance": "0.00",
            "CreditLimit": "0.00",
            "FreezeAmount": "0.00",
        }


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
