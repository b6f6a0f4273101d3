"""AutoDL's developer API stood in on 127.0.0.1, the developer token in the Authorization header, answered as AutoDL
documents it ({"code": "Success", "msg": "", "data": ...}); a wrong token gets 401:
- POST /api/v1/dev/wallet/balance: {"assets", "accumulate", "voucher_balance"}, amounts in 厘;
- Pro instances: POST .../pro/list (page_index, page_size: {"list", "result_total"}), GET .../pro/snapshot and
  .../pro/status (instance_uuid in the JSON body, or the query), POST .../pro/power_off and power_on; an unknown
  instance is answered with a non-Success code, as AutoDL answers one."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from tests.support.servers import Request, serve

TOKEN = "autodl-developer-token-of-the-test"


@dataclass
class FakeAutoDL:
    url: str = ""
    assets_li: int = 320_500  # ¥320.50
    endless: bool = False  # a result_total of 10^9, and the same rows on every page
    vouchers_li: int = 0
    spent_li: int = 1_000_000
    answer: dict[str, object] | None = None  # answered instead, when set (an error code, a bad shape)
    seen: list[Request] = field(default_factory=list)
    pro: dict[str, dict[str, Any]] = field(default_factory=dict)  # Pro instances by uuid: list rows, plus "gpu"
    refuse_pro: str | None = None  # a code the Pro calls answer (an unverified account's), when set
    stop_takes_s: float = 0.0  # a power-off is shutting_down this long before shutdown
    _stops_at: dict[str, float] = field(default_factory=dict)

    def add(self, uuid: str, gpu: str = "RTX 4090", status: str = "running", **row: Any) -> None:
        self.pro[uuid] = {
            "uuid": uuid,
            "name": row.pop("name", uuid),
            "status": status,
            "req_gpu_amount": 1,
            "region_name": "西北B区",
            "charge_type": "payg",
            "created_at": {"Time": "2026-12-01T09:00:00+08:00", "Valid": True},
            "gpu_spec_uuid": "4090-24g",
            "gpu": gpu,
            **row,
        }

    def _denied(self, request: Request, method: str) -> tuple[int, dict[str, str], bytes] | None:
        self.seen.append(request)
        if request.method != method:
            return 405, {"Content-Type": "text/plain"}, b"method not allowed"
        if request.headers.get("Authorization") != TOKEN:
            return _json(401, {"code": "AuthorizeFailed", "msg": "token无效"})
        return None

    def balance(self, request: Request) -> tuple[int, dict[str, str], bytes]:
        if (denied := self._denied(request, "POST")) is not None:
            return denied
        body = self.answer or {
            "code": "Success",
            "msg": "",
            "data": {"assets": self.assets_li, "accumulate": self.spent_li, "voucher_balance": self.vouchers_li},
        }
        return _json(200, body)

    def _pro(self, request: Request, method: str) -> tuple[dict[str, Any], Any] | tuple[int, dict[str, str], bytes]:
        if (denied := self._denied(request, method)) is not None:
            return denied
        if self.refuse_pro:
            return _json(200, {"code": self.refuse_pro, "msg": "请先完成实名认证", "data": None})
        body = json.loads(request.body or b"{}") if request.body else {}
        for key, values in parse_qs(request.query).items():
            body.setdefault(key, values[0])
        return body, None

    def listing(self, request: Request) -> tuple[int, dict[str, str], bytes]:
        asked = self._pro(request, "POST")
        if len(asked) == 3:
            return asked  # type: ignore[return-value]
        body = asked[0]
        index, size = int(body.get("page_index", 1)), int(body.get("page_size", 10))
        rows = [{k: v for k, v in row.items() if k != "gpu"} for row in self.pro.values()]
        page = rows[:size] if self.endless else rows[(index - 1) * size : index * size]
        total = 10**9 if self.endless else len(rows)  # endless: the first page again, whatever page is asked
        return _json(200, {"code": "Success", "msg": "", "data": {"list": page, "result_total": total}})

    def one(self, request: Request, what: str) -> tuple[int, dict[str, str], bytes]:
        asked = self._pro(request, "GET" if what in ("snapshot", "status") else "POST")
        if len(asked) == 3:
            return asked  # type: ignore[return-value]
        row = self.pro.get(str(asked[0].get("instance_uuid")))
        if row is None:
            return _json(200, {"code": "InstanceNotFound", "msg": "实例不存在", "data": None})
        stops_at = self._stops_at.get(row["uuid"])
        if stops_at is not None and time.monotonic() >= stops_at:
            row["status"] = "shutdown"
            del self._stops_at[row["uuid"]]
        if what == "power_off" and self.stop_takes_s > 0:
            row["status"] = "shutting_down"
            self._stops_at[row["uuid"]] = time.monotonic() + self.stop_takes_s
        elif what == "power_off":
            row["status"] = "shutdown"
        elif what == "power_on":
            row["status"] = "running"
        data: Any = None
        if what == "snapshot":
            data = {"snapshot_gpu_alias_name": row["gpu"], "payg_price": 1980}
        elif what == "status":
            data = row["status"]
        return _json(200, {"code": "Success", "msg": "", "data": data})


def _json(status: int, body: object) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(body, ensure_ascii=False).encode()


@contextmanager
def fake_autodl() -> Iterator[FakeAutoDL]:
    fake = FakeAutoDL()
    pro = "/api/v1/dev/instance/pro"
    routes = {
        "/api/v1/dev/wallet/balance": fake.balance,
        f"{pro}/list": fake.listing,
        **{
            f"{pro}/{what}": (lambda r, w=what: fake.one(r, w))
            for what in ("snapshot", "status", "power_off", "power_on")
        },
    }
    with serve(routes) as server:
        fake.url = server.base_url
        yield fake
