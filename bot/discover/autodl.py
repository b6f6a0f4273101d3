"""AutoDL's developer API (https://www.autodl.com/docs/), with the developer token (控制台 → 设置 → 开发者Token) as the
Authorization header itself, every answer `{"code": "Success", "msg": "", "data": ...}`:

- the wallet: POST /api/v1/dev/wallet/balance, amounts in 厘, a thousandth of a yuan: `assets` (the balance now),
  `voucher_balance` (vouchers still to spend), `accumulate` (spent so far); its runway is what the digest and
  `balances:check` watch;
- Pro container instances (the API needs the account's real-name verification): POST .../instance/pro/list
  (`page_index`, `page_size`; `data.list` of rows with `uuid`, `status`, `req_gpu_amount`, `region_name`,
  `charge_type`, `created_at`/`started_at`), GET .../pro/snapshot (`snapshot_gpu_alias_name`, the card), GET
  .../pro/status (`data` the state), POST .../pro/power_off and power_on (`instance_uuid`). A powered-off Pro
  instance stops billing its GPU (its data disk does not). The GET calls carry `instance_uuid` both in the query
  and as a JSON body, as AutoDL's own document gives it in the body.

Ordinary AutoDL instances are found through the agent (its docs give the `--on-stop` recipe). AutoDL has no GPU
metrics API: a Pro instance's activity comes from an agent on it, else it is unknown (never idle)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx

from bot.discover.cloud import CloudError, Paging, Stopped, free_once_stopped, gpu_named, settled, utc_time
from bot.state.discovered import Found, Scan
from bot.text.problem import Problem
from rules.samples import Sample

BALANCE = "/api/v1/dev/wallet/balance"
PRO = "/api/v1/dev/instance/pro"
LI_PER_YUAN = 1000
PAGE = 100
REGION = "autodl"  # one account-wide listing: the rows' own region_name is kept in the item's tags
BEIJING = timezone(timedelta(hours=8))  # AutoDL's times without an offset are Beijing time
# AutoDL's instance states as the bot keeps them (what it does not know is kept as said, lowercased)
STATES = {"running": "running", "starting": "pending", "shutting_down": "stopping", "shutdown": "stopped"}


@dataclass(frozen=True)
class Wallet:
    yuan: float  # the balance now (assets)
    vouchers_yuan: float  # vouchers still to spend (voucher_balance)
    spent_yuan: float  # spent so far (accumulate)


class AutoDL:
    def __init__(self, url: str, token: str, client: httpx.Client) -> None:
        self.url, self.token, self.client = url.rstrip("/"), token, client

    name = "autodl"
    metrics = "agent"  # no metrics API: activity comes from an agent on the box
    regions: tuple[str, ...] = (REGION,)

    def wallet(self) -> Wallet:
        """POST /api/v1/dev/wallet/balance; CloudError in one line."""
        data = self._call("POST", BALANCE, {}) or {}
        try:
            return Wallet(
                int(data["assets"]) / LI_PER_YUAN,
                int(data.get("voucher_balance") or 0) / LI_PER_YUAN,
                int(data.get("accumulate") or 0) / LI_PER_YUAN,
            )
        except (KeyError, TypeError, ValueError, OverflowError):  # Infinity does not make a whole number either
            raise CloudError(f"AutoDL's balance answer has no whole-number assets: {str(data)[:160]}") from None

    def _call(self, method: str, path: str, body: dict[str, Any]) -> Any:
        """One call; its `data`, or CloudError in one line (the token refused or malformed, throttled, an error)."""
        if not self.token.strip() or any(ch.isspace() or not ch.isprintable() for ch in self.token):
            raise CloudError(Problem("cloud.autodl_token_malformed"))  # a header no HTTP client can send
        query = {"instance_uuid": body["instance_uuid"]} if method == "GET" and "instance_uuid" in body else None
        try:
            response = self.client.request(
                method,
                f"{self.url}{path}",
                params=query,
                json=body,
                headers={"Authorization": self.token},
                timeout=15,
            )
        except httpx.HTTPError as exc:
            raise CloudError(
                Problem("cloud.unreachable", cloud="AutoDL", why=f"{type(exc).__name__}: {str(exc)[:160]}")
            ) from None
        if response.status_code in (401, 403):
            raise CloudError(Problem("cloud.autodl_token", status=response.status_code))
        if response.status_code == 429:
            raise CloudError(Problem("cloud.autodl_throttled"))
        try:
            answer = response.json()
        except ValueError:
            raise CloudError(Problem("cloud.autodl_no_json", status=response.status_code)) from None
        if not isinstance(answer, dict) or answer.get("code") != "Success":
            code = answer.get("code") if isinstance(answer, dict) else None
            message = str(answer.get("msg", "") if isinstance(answer, dict) else "")[:160]
            said = message or "no data in the answer"
            raise CloudError(Problem("cloud.autodl_said", code=code or response.status_code, message=said))
        return answer.get("data")

    def scan(self) -> Scan:
        """Every Pro instance, page by page; a failure is said in one line and what the pages before gave is kept
        (the listing is not complete, so nothing is released for not being seen)."""
        out = Scan(source=self.name)
        try:
            for item in self._instances():
                out.found.append(item)
        except CloudError as exc:
            found = len(out.found)
            out.problems[REGION] = (
                Problem("cloud.kept_before", problem=exc.problem, count=found) if found else exc.problem
            )
            return out
        out.regions_ok.append(REGION)
        return out

    def _instances(self) -> Iterator[Found]:
        page = 1
        paging = Paging("AutoDL", "the Pro instances' list")
        while True:
            data = self._call("POST", f"{PRO}/list", {"page_index": page, "page_size": PAGE}) or {}
            rows = [r for r in data.get("list") or [] if isinstance(r, dict) and r.get("uuid")]
            paging.rows(rows)
            for row in rows:
                yield pro_found(row, self._card(str(row["uuid"])))
            total = int(data.get("result_total") or 0)
            if not rows or page * PAGE >= total:
                return
            page += 1

    def _card(self, uuid: str) -> str | None:
        """The card a Pro instance has, as its snapshot names it (RTX 4090 -> RTX4090-24GB); None when unsaid."""
        try:
            snapshot = self._call("GET", f"{PRO}/snapshot", {"instance_uuid": uuid}) or {}
        except CloudError:
            return None  # the listing stands without it; the item says no GPU model
        return gpu_named(str(snapshot.get("snapshot_gpu_alias_name") or "").strip())

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """AutoDL has no GPU metrics API: nothing (an agent on the box reports its activity)."""
        return {}

    def stop(self, region: str, instance_id: str) -> Stopped:
        """Power the instance off (its GPU stops billing), then read its state again."""
        self._call("POST", f"{PRO}/power_off", {"instance_uuid": instance_id})
        state = settled(
            lambda: self._call("GET", f"{PRO}/status", {"instance_uuid": instance_id}),
            lambda got: _status(got) == "shutting_down",  # said stopped once it has powered off
        )
        said = STATES.get(_status(state), _status(state))  # powered off, its GPU bills no more; shutting down: not yet
        return Stopped(said, charging=free_once_stopped(said), how="power_off")

    def balance(self) -> tuple[float, str]:
        return self.wallet().yuan, "CNY"


def _status(state: Any) -> str:
    """The status the status call answered: a string, or an object holding it."""
    return str(state.get("status") if isinstance(state, dict) else state or "unknown").lower()


def _time(value: Any) -> datetime | None:
    """An AutoDL time: a string, or Go's {"Time": ..., "Valid": true} (Valid false: none)."""
    if isinstance(value, dict):
        value = value.get("Time") if value.get("Valid", True) else None
    return utc_time(value, BEIJING)


def pro_found(row: dict[str, Any], gpu: str | None) -> Found:
    """A Pro instance, as the list gives it, with the card its snapshot names."""
    said = str(row.get("status") or "unknown").lower()
    region = str(row.get("region_name") or "")
    name = str(row.get("name") or row.get("instance_name") or row.get("machine_alias") or row["uuid"])
    charge = str(row.get("charge_type") or "payg").lower()
    return Found(
        f"autodl:{row['uuid']}",
        "instance",
        REGION,
        name,
        STATES.get(said, said),
        {"AutoDLRegion": region} if region else {},
        str(row.get("gpu_spec_uuid") or "") or None,
        gpu,
        max(int(row.get("req_gpu_amount") or 1), 1),
        None,  # priced from the price cache by its card (AutoDL's list prices in the rate card)
        False,
        _time(row.get("started_at")) or _time(row.get("created_at")),
        charging=free_once_stopped(STATES.get(said, "")),
        currency="CNY",
        billing="month" if "month" in charge else "hourly",
    )
