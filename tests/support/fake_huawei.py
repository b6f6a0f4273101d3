"""A fake Huawei Cloud on 127.0.0.1, as its official SDKs (huaweicloudsdkcore 3.1) call it, every service at one host:
requests signed SDK-HMAC-SHA256 (Authorization `SDK-HMAC-SHA256 Access=…, SignedHeaders=…, Signature=…` over the
canonical request: method, the path with a trailing slash, the sorted query, the signed headers, the body's SHA-256;
X-Sdk-Date): the fake checks the signature as the SDK signs and refuses a wrong one as the API gateway does (401,
APIGW.0301). Errors are `{"error_code", "error_msg"}` with their HTTP status; throttling is 429 APIGW.0308.

IAM: GET /v3/auth/domains (the account, for the SDK's global credentials), GET /v3/projects?name=<region>. ECS:
GET /v1/{project}/cloudservers/detail (limit, offset as a page number from 1; count), /cloudservers/flavors (each
flavor's os_extra_specs with `cond:operation:charge:stop`), /cloudservers/{id} (404 once deleted), POST
/cloudservers/action with `os-stop` (a server powering off for `stop_takes_s`, then SHUTOFF). Cloud Eye: GET
/V1.0/{project}/metrics (namespace, metric_name, dim.0=instance_id,<id>) and POST
/V1.0/{project}/batch-query-metric-data (AGT.ECS points per instance_id and gpu/npu). BSS: GET
/v2/accounts/customer-accounts/balances. ModelArts: GET /v1/{project}/notebooks/all (every user's notebooks;
offset, limit 10/20/50; total), /notebooks/flavors (each flavor's `gpu` or `ascend` cards, paged), /notebooks/{id},
POST /notebooks/{id}/stop (STOPPING for `stop_takes_s`, then STOPPED)."""

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
from urllib.parse import parse_qsl, quote, unquote

from tests.support.servers import json_api, running

AK, SK = "HPUAFAKEHUAWEIAK0001", "fake-huawei-secret-key-0001"
ENV = {"HUAWEICLOUD_SDK_AK": AK, "HUAWEICLOUD_SDK_SK": SK}
DOMAIN = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"


class Refusal(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass
class Server:
    id: str
    region: str = "cn-north-4"
    name: str = ""
    flavor: str = "p2s.2xlarge.8"
    status: str = "ACTIVE"
    task_state: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    charging_mode: str = "0"
    created: str = "2026-12-01T01:00:00Z"
    stops_at: float | None = None


@dataclass
class Notebook:
    id: str
    region: str = "cn-north-4"
    name: str = ""
    flavor: str = "modelarts.vm.gpu.t4u8"
    status: str = "RUNNING"
    lease: dict[str, Any] = field(
        default_factory=lambda: {"type": "IDLE", "duration": 3_600_000, "enable": True, "create_at": 1764550800000}
    )
    user: str = "zhang.san"
    tags: dict[str, str] = field(default_factory=dict)
    stops_at: float | None = None

    def raw(self) -> dict[str, Any]:
        if self.stops_at is not None and time.monotonic() >= self.stops_at:
            self.status, self.stops_at = "STOPPED", None
        return {"id": self.id, "name": self.name or self.id, "flavor": self.flavor, "status": self.status,
                "lease": self.lease, "user": {"id": "u-1", "name": self.user}, "feature": "NOTEBOOK",
                "tags": [{"key": k, "value": v} for k, v in self.tags.items()], "billing_items": ["ALL"]}  # fmt: skip


@dataclass
class FakeHuawei:
    url: str = ""
    projects: dict[str, str] = field(
        default_factory=lambda: {
            "cn-north-4": "p0cnnorth4000000000000000000000a",
            "cn-east-3": "p0cneast3000000000000000000000b",
        }
    )
    servers: list[Server] = field(default_factory=list)
    # flavor id -> (GPUs or NPUs: "gpus"/"asic_accelerators", card name, count, memory MiB, keeps billing when stopped)
    flavors: dict[str, tuple[str, str, int, int, bool]] = field(
        default_factory=lambda: {
            "p2s.2xlarge.8": ("gpus", "NVIDIA V100 32GB", 1, 32768, False),
            "s6.large.2": ("gpus", "", 0, 0, False),  # a CPU flavor
        }
    )
    # Cloud Eye AGT.ECS points: (metric, server id, card dimension "gpu"/"npu", card) -> [(unix ms, value)]
    series: dict[tuple[str, str, str, str], list[tuple[int, float]]] = field(default_factory=dict)
    balance: Any = 8765.43
    credit_left: float | None = None  # a credit account's amount left, where the account has one
    debt: float = 0
    stop_takes_s: float = 0.0
    notebooks: list[Notebook] = field(default_factory=list)
    # notebook flavor id -> ("gpu" or "ascend", card type, count)
    notebook_flavors: dict[str, tuple[str, str, int]] = field(
        default_factory=lambda: {
            "modelarts.vm.gpu.t4u8": ("gpu", "T4", 1),
            "modelarts.bm.npu.arm.8snt9b3.d": ("ascend", "Ascend-910B", 8),
            "modelarts.vm.cpu.8u": ("gpu", "", 0),
        }
    )
    refuse_stop: dict[str, tuple[str, str]] = field(default_factory=dict)  # server id -> (error code, message): 400
    throttle: dict[str, int] = field(default_factory=dict)  # path's last word -> how many calls answer 429 first
    calls: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)  # (method, path, query)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **fields: Any) -> Server:
        made = Server(id=str(uuid.uuid4()), **fields)
        self.servers.append(made)
        return made

    def notebook(self, **fields: Any) -> Notebook:
        made = Notebook(id=str(uuid.uuid4()), **fields)
        self.notebooks.append(made)
        return made

    def paths(self) -> list[str]:
        return [path for _, path, _ in self.calls]

    def answer(self, method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> tuple[int, Any]:
        params = dict(parse_qsl(query, keep_blank_values=True))
        try:
            _check_signature(method, path, query, headers, body)
            with self.lock:
                self.calls.append((method, path, params))
                last = path.rstrip("/").rsplit("/", 1)[-1]
                if self.throttle.get(last, 0) > 0:
                    self.throttle[last] -= 1
                    raise Refusal(429, "APIGW.0308", "The throttling threshold has been reached.")
                return 200, self._route(method, path, params, json.loads(body or b"{}"))
        except Refusal as refused:
            return refused.status, {
                "error_code": refused.code,
                "error_msg": refused.message,
                "request_id": uuid.uuid4().hex,
            }

    def _route(self, method: str, path: str, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        parts = path.strip("/").split("/")
        if path == "/v3/auth/domains":
            return {"domains": [{"id": DOMAIN, "name": "fake-account", "enabled": True}]}
        if path == "/v3/projects":
            wanted = params.get("name")
            return {"projects": [{"id": p, "name": r} for r, p in self.projects.items() if r == wanted]}
        if path == "/v2/accounts/customer-accounts/balances":
            cash = {"account_id": "acc-1", "account_type": 1, "amount": self.balance, "currency": "CNY",
                    "designated_amount": 0, "credit_amount": 0, "measure_id": 1}  # fmt: skip
            accounts = [cash]
            if self.credit_left is not None:
                accounts.append({"account_id": "acc-2", "account_type": 2, "amount": self.credit_left,
                                 "currency": "CNY", "designated_amount": 0, "credit_amount": 5000,
                                 "measure_id": 1})  # fmt: skip
            return {"account_balances": accounts, "debt_amount": self.debt, "measure_id": 1, "currency": "CNY"}
        region = next((r for r, p in self.projects.items() if len(parts) > 1 and parts[1] == p), None)
        if region is None:
            raise Refusal(404, "APIGW.0101", f"The API does not exist or has not been published: {path}.")
        if parts[0] == "V1.0":
            return self._ces(region, parts[2], params, body)
        if parts[2] == "notebooks":
            return self._modelarts(method, region, parts[3:], params)
        return self._ecs(method, region, parts[3:], params, body)

    def _ecs(
        self, method: str, region: str, rest: list[str], params: dict[str, str], body: dict[str, Any]
    ) -> dict[str, Any]:
        mine = [s for s in self.servers if s.region == region]
        if rest == ["detail"]:
            limit, page = int(params.get("limit") or 25), int(params.get("offset") or 1)
            shown = mine[(page - 1) * limit : page * limit]
            return {"count": len(mine), "servers": [self._raw(s) for s in shown]}
        if rest == ["flavors"]:
            return {"flavors": [self._flavor(f, full=True) for f in self.flavors]}
        if rest == ["action"] and method == "POST":
            stop = body.get("os-stop") or {}
            for asked in stop.get("servers") or []:
                found = self._server(mine, asked.get("id"))
                if found.id in self.refuse_stop:
                    raise Refusal(400, *self.refuse_stop[found.id])
                if self.stop_takes_s > 0:
                    found.task_state, found.stops_at = "powering-off", time.monotonic() + self.stop_takes_s
                else:
                    found.status = "SHUTOFF"
            return {"job_id": uuid.uuid4().hex}
        return {"server": self._raw(self._server(mine, rest[0]))}

    def _modelarts(self, method: str, region: str, rest: list[str], params: dict[str, str]) -> dict[str, Any]:
        limit, offset = int(params.get("limit") or 10), int(params.get("offset") or 0)
        if rest == ["flavors"]:
            flavors = []
            for flavor, (kind, card, count) in self.notebook_flavors.items():
                row: dict[str, Any] = {"id": flavor, "name": flavor, "category": kind.upper() if count else "CPU"}
                if count:
                    row[kind] = {kind if kind == "gpu" else "npu": count, "type": card}
                flavors.append(row)
            return {"flavors": flavors[offset : offset + limit], "total": len(flavors)}
        mine = [n for n in self.notebooks if n.region == region]
        if not rest:
            raise Refusal(
                404, "ModelArts.0104", "Listing only your own notebooks is not served here: ask /notebooks/all."
            )
        if rest == ["all"]:  # every user's (ListAllNotebooks); ListNotebooks, the key's user's alone, is not served
            if limit not in (10, 20, 50):
                raise Refusal(400, "ModelArts.6404", "limit must be 10, 20 or 50.")
            shown = mine[offset : offset + limit]
            return {"data": [n.raw() for n in shown], "total": len(mine), "current": offset // limit, "size": limit}
        found = next((n for n in mine if n.id == rest[0]), None)
        if found is None:
            raise Refusal(404, "ModelArts.6404", f"The notebook {rest[0]} does not exist.")
        if rest[1:] == ["stop"] and method == "POST":
            if self.stop_takes_s > 0:
                found.status, found.stops_at = "STOPPING", time.monotonic() + self.stop_takes_s
            else:
                found.status = "STOPPED"
        return found.raw()

    @staticmethod
    def _server(mine: list[Server], server_id: object) -> Server:
        found = next((s for s in mine if s.id == server_id), None)
        if found is None:
            raise Refusal(404, "Ecs.0114", f"The server {server_id} does not exist.")
        return found

    def _flavor(self, flavor: str, full: bool = False) -> dict[str, Any]:
        kind, name, count, memory, charges = self.flavors.get(flavor, ("gpus", "", 0, 0, False))
        cards = [{"name": name, "count": count, "memory_mb": memory}] if count else []
        out: dict[str, Any] = {"id": flavor, "name": flavor, "vcpus": "8", "ram": 65536,
                               "gpus": cards if kind == "gpus" else [],
                               "asic_accelerators": cards if kind == "asic_accelerators" else []}  # fmt: skip
        if full:
            out["os_extra_specs"] = {"cond:operation:charge:stop": "charge" if charges else "free"}
        return out

    def _raw(self, server: Server) -> dict[str, Any]:
        if server.stops_at is not None and time.monotonic() >= server.stops_at:
            server.status, server.task_state, server.stops_at = "SHUTOFF", "", None
        return {
            "id": server.id,
            "name": server.name or server.id,
            "status": server.status,
            "OS-EXT-STS:task_state": server.task_state,
            "OS-EXT-STS:vm_state": "active" if server.status == "ACTIVE" else "stopped",
            "flavor": self._flavor(server.flavor),
            "metadata": {"charging_mode": server.charging_mode},
            "tags": [f"{k}={v}" for k, v in server.tags.items()],
            "created": server.created,
            "OS-EXT-AZ:availability_zone": f"{server.region}a",
        }

    def _ces(self, region: str, what: str, params: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
        if what == "metrics":
            server = params.get("dim.0", "").removeprefix("instance_id,")
            if params.get("namespace") != "AGT.ECS":
                return {"metrics": [], "meta_data": {"count": 0, "total": 0}}
            wanted = params.get("metric_name")
            rows = [{"namespace": "AGT.ECS", "metric_name": m, "unit": "%",
                     "dimensions": [{"name": "instance_id", "value": s}, {"name": dim, "value": card}]}
                    for (m, s, dim, card) in sorted(self.series) if s == server and m == wanted]  # fmt: skip
            return {"metrics": rows, "meta_data": {"count": len(rows), "total": len(rows)}}
        if body.get("filter") != "average" or str(body.get("period")) != "1":
            raise Refusal(400, "ces.0014", "The filter or period is not valid.")
        start, end = int(body["from"]), int(body["to"])
        out = []
        for asked in body.get("metrics") or []:
            dims = {d["name"]: d["value"] for d in asked.get("dimensions") or []}
            card_dim = "gpu" if "gpu" in dims else "npu"
            points = self.series.get(
                (asked["metric_name"], dims.get("instance_id", ""), card_dim, dims.get(card_dim, "")), []
            )
            shown = [{"average": v, "timestamp": t} for t, v in points if start <= t <= end]
            out.append({"namespace": asked["namespace"], "metric_name": asked["metric_name"], "unit": "%",
                        "dimensions": asked["dimensions"], "datapoints": shown})  # fmt: skip
        return {"metrics": out}


def _check_signature(method: str, path: str, query: str, headers: dict[str, str], body: bytes) -> None:
    """The request is signed SDK-HMAC-SHA256 with the fake's key, as huaweicloudsdkcore signs."""
    auth = headers.get("authorization", "")
    scheme, _, rest = auth.partition(" ")
    parts = dict(p.strip().split("=", 1) for p in rest.split(",") if "=" in p)
    if scheme != "SDK-HMAC-SHA256" or not {"Access", "SignedHeaders", "Signature"} <= set(parts):
        raise Refusal(401, "APIGW.0301", "Incorrect IAM authentication information: the request is not signed.")
    if parts["Access"] != AK:
        raise Refusal(401, "APIGW.0301", "Incorrect IAM authentication information: the AK does not exist.")
    names = parts["SignedHeaders"].split(";")
    signed = "".join(f"{n}:{headers.get(n, '').strip()}\n" for n in names)
    uri = "/".join(quote(p, safe="~") for p in unquote(path).split("/"))
    uri = uri if uri.endswith("/") else uri + "/"
    pairs = sorted(parse_qsl(query, keep_blank_values=True))
    canonical_query = "&".join(f"{quote(k, safe='~')}={quote(v, safe='~')}" for k, v in pairs)
    payload = headers.get("x-sdk-content-sha256") or hashlib.sha256(body).hexdigest()
    canonical = "\n".join([method, uri, canonical_query, signed, parts["SignedHeaders"], payload])
    to_sign = "\n".join(
        ["SDK-HMAC-SHA256", headers.get("x-sdk-date", ""), hashlib.sha256(canonical.encode()).hexdigest()]
    )
    expected = hmac.new(SK.encode(), to_sign.encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, parts["Signature"]):
        raise Refusal(401, "APIGW.0301", "Incorrect IAM authentication information: verify aksk signature fail.")


@contextmanager
def fake_huawei() -> Iterator[FakeHuawei]:
    """A fake Huawei Cloud on 127.0.0.1 for the block; `url` is what GPU_ADVISOR_HUAWEI_ENDPOINT takes."""
    fake = FakeHuawei()
    with running(json_api(fake.answer)) as url:
        fake.url = url
        yield fake
