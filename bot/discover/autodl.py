"""AutoDL's developer API (https://www.autodl.com/docs/common_api/): the wallet balance, with the developer token
(控制台 → 设置 → 开发者Token) in the Authorization header. Amounts are in 厘, a thousandth of a yuan: `assets`
(the balance now), `voucher_balance` (vouchers still to spend), `accumulate` (spent so far).

Only the balance is read here: it is AutoDL's prepaid money, and its runway is what the digest and
`balances:check` watch. AutoDL boxes themselves are found through the agent (its docs give the `--on-stop`
recipe): the Pro instances' own API is not read yet."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from bot.discover.cloud import CloudError

BALANCE = "/api/v1/dev/wallet/balance"
LI_PER_YUAN = 1000


@dataclass(frozen=True)
class Wallet:
    yuan: float  # the balance now (assets)
    vouchers_yuan: float  # vouchers still to spend (voucher_balance)
    spent_yuan: float  # spent so far (accumulate)


class AutoDL:
    name = "autodl"

    def __init__(self, url: str, token: str, client: httpx.Client) -> None:
        self.url, self.token, self.client = url.rstrip("/"), token, client

    def wallet(self) -> Wallet:
        """POST /api/v1/dev/wallet/balance; CloudError in one line."""
        try:
            response = self.client.post(f"{self.url}{BALANCE}", headers={"Authorization": self.token}, timeout=15)
        except httpx.HTTPError as exc:
            raise CloudError(f"AutoDL unreachable: {type(exc).__name__}: {str(exc)[:160]}") from None
        if response.status_code in (401, 403):
            raise CloudError(
                f"AutoDL refused the developer token (HTTP {response.status_code}): check GPU_ADVISOR_AUTODL_TOKEN"
            )
        if response.status_code == 429:
            raise CloudError("throttled by AutoDL (HTTP 429): the next run tries again")
        try:
            body = response.json()
        except ValueError:
            raise CloudError(f"AutoDL answered HTTP {response.status_code} without JSON") from None
        if not isinstance(body, dict) or body.get("code") != "Success":
            code = body.get("code") if isinstance(body, dict) else None
            message = str(body.get("msg", "") if isinstance(body, dict) else "")[:160]
            raise CloudError(f"AutoDL {code or response.status_code}: {message or 'no balance in the answer'}")
        data = body.get("data") or {}
        try:
            return Wallet(
                int(data["assets"]) / LI_PER_YUAN,
                int(data.get("voucher_balance") or 0) / LI_PER_YUAN,
                int(data.get("accumulate") or 0) / LI_PER_YUAN,
            )
        except (KeyError, TypeError, ValueError):
            raise CloudError(f"AutoDL's balance answer has no whole-number assets: {str(data)[:160]}") from None

    def balance(self) -> tuple[float, str]:
        return self.wallet().yuan, "CNY"
