"""AutoDL's developer API stood in on 127.0.0.1: POST /api/v1/dev/wallet/balance with the developer token in the
Authorization header, answered as AutoDL documents it ({"code": "Success", "msg": "", "data": {"assets",
"accumulate", "voucher_balance"}}, amounts in 厘); a wrong token gets 401."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from tests.support.servers import Request, serve

TOKEN = "autodl-developer-token-of-the-test"


@dataclass
class FakeAutoDL:
    url: str = ""
    assets_li: int = 320_500  # ¥320.50
    vouchers_li: int = 0
    spent_li: int = 1_000_000
    answer: dict[str, object] | None = None  # answered instead, when set (an error code, a bad shape)
    seen: list[Request] = field(default_factory=list)

    def balance(self, request: Request) -> tuple[int, dict[str, str], bytes]:
        self.seen.append(request)
        if request.method != "POST":
            return 405, {"Content-Type": "text/plain"}, b"method not allowed"
        if request.headers.get("Authorization") != TOKEN:
            return (
                401,
                {"Content-Type": "application/json"},
                json.dumps({"code": "AuthorizeFailed", "msg": "token无效"}).encode(),
            )
        body = self.answer or {
            "code": "Success",
            "msg": "",
            "data": {"assets": self.assets_li, "accumulate": self.spent_li, "voucher_balance": self.vouchers_li},
        }
        return 200, {"Content-Type": "application/json"}, json.dumps(body, ensure_ascii=False).encode()


@contextmanager
def fake_autodl() -> Iterator[FakeAutoDL]:
    fake = FakeAutoDL()
    with serve({"/api/v1/dev/wallet/balance": fake.balance}) as server:
        fake.url = server.base_url
        yield fake
