"""Reading and stopping Huawei Cloud ECS servers with GPUs or Ascend NPUs, with its official SDKs (huaweicloudsdkecs,
-ces for the cards' metrics, -bss for the account's balance, -iam for the projects; requests signed SDK-HMAC-SHA256
by huaweicloudsdkcore): ListServersDetails (100 a page), each server's flavor with its `gpus` or `asic_accelerators`
(name, count, memory), owner, channel and project from its tags ("key=value"); the flavors that keep billing while
stopped (ListFlavors' os_extra_specs `cond:operation:charge:stop` = charge: local-disk, FPGA, bare-metal families);
BatchStopServers (os-stop, SOFT) then the server read again (ShowServer) until it is no longer powering off; the
cards' activity from Cloud Eye (namespace AGT.ECS, reported by its agent on the server: gpu_usage_gpu and
gpu_usage_mem in %, per `gpu`; npu_util_rate_ai_core and npu_usage_mem per `npu`); BSS ShowCustomerAccountBalances.

Credentials: HUAWEICLOUD_SDK_AK / HUAWEICLOUD_SDK_SK (the SDK's own variables). Each region's project: from
`project_ids` (GPU_ADVISOR_HUAWEI_PROJECT_IDS), else asked of IAM (KeystoneListProjects by the region's name) once.
`endpoint` points every product at one host (a local fake in tests). The SDK's own retries are off (its default):
throttling (HTTP 429, APIGW.0308) is retried here with back-off. Prices: the price cache's rows for provider huawei,
else unknown. A server Cloud Eye has no points for (its agent not installed) is judged by an agent of ours, else
unknown, never idle."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

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

PAGE = 100  # ListServersDetails' limit at most (1000), kept to 100 a page
TRIES = 3
THROTTLED = ("APIGW.0308", "Ecs.0020", "Common.0024")
REFUSED = ("APIGW.0301", "APIGW.0303", "APIGW.0101")  # wrong AK/SK or signature, expired request
STATES = {
    "ACTIVE": "running",
    "SHUTOFF": "stopped",
    "BUILD": "pending",
    "REBOOT": "running",
    "HARD_REBOOT": "running",
    "REBUILD": "pending",
    "MIGRATING": "running",
    "RESIZE": "pending",
    "VERIFY_RESIZE": "pending",
    "ERROR": "stopped",
    "DELETED": "terminated",
    "SHELVED": "stopped",
    "SHELVED_OFFLOADED": "stopped",
}
MEASURE = {1: 1.0, 2: 0.1, 3: 0.01}
STOPS = (
    "batch_stop_servers",
    "stop_notebook",
)  # a 4xx refusal of these is final (this one cannot be stopped so)  # BSS measure_id: yuan, jiao, fen


class _NoCredentials(Exception):
    """HUAWEICLOUD_SDK_AK or HUAWEICLOUD_SDK_SK is not set."""


def huawei_problem(exc: Exception, region: str | None = None) -> str:
    """One line for what went wrong with Huawei Cloud: its error code and message (never the request's headers)."""
    if isinstance(exc, _NoCredentials):
        return Problem("cloud.no_credentials", cloud="Huawei Cloud", how="HUAWEICLOUD_SDK_AK and HUAWEICLOUD_SDK_SK")
    code, message, status = _error_of(exc)
    if code in REFUSED or status == 401:
        return Problem("cloud.refused", cloud="Huawei Cloud", code=code or str(status), what="the AK and SK")
    if status == 403:
        needs = (
            "ecs:cloudServers:list/get/stop, ecs:flavors:get, ces:metricData:list, ces:metrics:list, bss:balance:view"
        )
        return Problem("cloud.denied", code=code or "403", policy="IAM policy", needs=needs, message=message)
    if code in THROTTLED or status == 429:
        return Problem("cloud.throttled", cloud="Huawei Cloud", code=code or "429")
    if not code and not status:
        return Problem("cloud.unreachable", cloud="Huawei Cloud", why=message)
    return Problem("cloud.answered", code=code or str(status), message=message)


def _error_of(exc: Exception) -> tuple[str, str, int]:
    """The error code, message and HTTP status Huawei Cloud answered; else no code and the exception's first line."""
    status = int(getattr(exc, "status_code", 0) or 0)
    code = str(getattr(exc, "error_code", "") or "")
    said = str(getattr(exc, "error_msg", "") or exc).strip()
    return code, (said.splitlines()[0][:160] if said else type(exc).__name__), status


class Huawei:
    name = "huawei"
    metrics = "ces"

    def __init__(
        self,
        regions: tuple[str, ...],
        endpoint: str | None = None,
        project_ids: dict[str, str] | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        backoff_s: float = 0.5,
        at_once: int = REGIONS_AT_ONCE,
    ) -> None:
        self.regions, self.endpoint, self.project_ids = regions, endpoint, dict(project_ids or {})
        self.sleep, self.backoff_s, self.at_once = sleep, backoff_s, at_once
        self._clients: dict[tuple[str, str], Any] = {}
        self._charge_stop: dict[str, dict[str, bool]] = {}  # region -> flavor id -> keeps billing while stopped

    def _keys(self) -> tuple[str, str]:
        ak, sk = os.environ.get("HUAWEICLOUD_SDK_AK"), os.environ.get("HUAWEICLOUD_SDK_SK")
        if not (ak and sk):
            raise _NoCredentials()
        from bot.logs import keep_secret

        keep_secret(sk)
        return ak, sk

    def _client(self, product: str, region: str) -> Any:
        """The product's client for `region` (BSS and IAM are global: one each), made once."""
        if (product, region) not in self._clients:
            from bot.discover.huawei_clients import make_client

            ak, sk = self._keys()
            project = self.project_id(region) if product in ("ecs", "ces", "modelarts") else None
            self._clients[(product, region)] = make_client(product, region, ak, sk, project, self.endpoint)
        return self._clients[(product, region)]

    def project_id(self, region: str) -> str:
        """The region's project: as configured, else the one IAM lists by the region's name."""
        if region not in self.project_ids:
            from huaweicloudsdkiam.v3 import KeystoneListProjectsRequest

            body = self.call("iam", "global", "keystone_list_projects", KeystoneListProjectsRequest(name=region))
            projects = body.get("projects") or []
            if not projects:
                raise CloudError(Problem("cloud.bad_region", region=region, code="NoProject",
                                         setting="GPU_ADVISOR_HUAWEI_REGIONS"))  # fmt: skip
            self.project_ids[region] = str(projects[0]["id"])
        return self.project_ids[region]

    def call(self, product: str, region: str, method: str, request: Any, *, missing_ok: bool = False) -> dict[str, Any]:
        """One SDK call; the answer as the API's JSON. Throttling retried with back-off; CloudError.
        `missing_ok`: a 404 (the thing asked for is gone) is an empty answer."""
        from huaweicloudsdkcore.exceptions.exceptions import SdkException

        for attempt in range(TRIES):
            try:
                answer = getattr(self._client(product, region), method)(request)
                return dict(answer.to_json_object() or {})  # the API's own JSON (to_dict is deprecated)
            except _NoCredentials as exc:
                raise CloudError(huawei_problem(exc, region)) from None
            except (SdkException, OSError) as exc:
                code, _, status = _error_of(exc)
                if missing_ok and status == 404:
                    return {}
                if (code in THROTTLED or status == 429) and attempt + 1 < TRIES:
                    self.sleep(self.backoff_s * 2**attempt)
                    continue
                final = method in STOPS and 400 <= status < 500 and status not in (401, 403, 429)
                raise CloudError(huawei_problem(exc, region), final=final) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def scan(self) -> Scan:
        return scan_regions(self.name, self.regions, self._servers, workers=self.at_once)

    def _servers(self, region: str) -> Iterator[Found]:
        from huaweicloudsdkecs.v2 import ListServersDetailsRequest

        paging = Paging("Huawei Cloud", f"ListServersDetails in {region}")
        page = 1
        while True:
            body = self.call("ecs", region, "list_servers_details", ListServersDetailsRequest(limit=PAGE, offset=page))
            rows = body.get("servers") or []
            paging.rows(rows)
            for raw in rows:
                _, cards, _ = card_of(raw.get("flavor") or {})
                if cards > 0:  # a server without GPUs or NPUs is not the product's business
                    flavor = str((raw.get("flavor") or {}).get("id") or "")
                    yield server_found(raw, region, self._charges_stopped(region).get(flavor, False))
            if not rows or page * PAGE >= int(body.get("count") or 0):
                return
            page += 1

    def _charges_stopped(self, region: str) -> dict[str, bool]:
        """Each flavor of the region that keeps billing while stopped (cond:operation:charge:stop = charge)."""
        if region not in self._charge_stop:
            from huaweicloudsdkecs.v2 import ListFlavorsRequest

            flavors = self.call("ecs", region, "list_flavors", ListFlavorsRequest()).get("flavors") or []
            self._charge_stop[region] = {
                str(f.get("id")): str((f.get("os_extra_specs") or {}).get("cond:operation:charge:stop") or "")
                == "charge"
                for f in flavors
            }
        return self._charge_stop[region]

    def describe(self, region: str, server_id: str) -> dict[str, Any] | None:
        """The server as ShowServer gives it; None when it is gone (404)."""
        from huaweicloudsdkecs.v2 import ShowServerRequest

        body = self.call("ecs", region, "show_server", ShowServerRequest(server_id=server_id), missing_ok=True)
        return dict(body["server"]) if body.get("server") else None

    def stop(self, region: str, server_id: str) -> Stopped:
        from huaweicloudsdkecs.v2 import (
            BatchStopServersOption,
            BatchStopServersRequest,
            BatchStopServersRequestBody,
            ServerId,
        )

        option = BatchStopServersOption(servers=[ServerId(id=server_id)], type="SOFT")
        request = BatchStopServersRequest(body=BatchStopServersRequestBody(os_stop=option))
        with refusal_said("cloud.stop_refused", "cloud.name_huawei", server_id):
            self.call("ecs", region, "batch_stop_servers", request)
        raw = settled(lambda: self.describe(region, server_id), _powering_off)
        if raw is None:
            raise CloudError(Problem("cloud.gone_after_stop", instance=server_id, region=region))
        state = state_of(raw)
        flavor = str((raw.get("flavor") or {}).get("id") or "")
        charging = self._charges_stopped(region).get(flavor, False) if state == "stopped" else None
        return Stopped(state, charging=charging, how="BatchStopServers(os-stop, SOFT)")

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """Cloud Eye's agent points as samples, a card per `gpu` (or `npu`) dimension in the order of their values;
        each card's memory from its flavor's (the server read again)."""
        from bot.discover.huawei_clients import card_series

        out: dict[str, list[Sample]] = {}
        for server_id in instance_ids:
            raw = self.describe(region, server_id) or {}
            _, _, card_mib = card_of(raw.get("flavor") or {})
            series = card_series(self, region, server_id, since, until)
            samples: list[Sample] = []
            for card, (_, points) in enumerate(sorted(series.items())):
                samples += [
                    Sample(at, card, got["util"], round(card_mib * got.get("mem", 0.0) / 100, 1), card_mib)
                    for at, got in sorted(points.items())
                    if "util" in got
                ]
            out[server_id] = samples
        return out

    def balance(self) -> tuple[float, str]:
        """The account's balance in CNY (ShowCustomerAccountBalances): the cash account's amount (type 1) plus what is
        left of its credit (type 2), less what it owes (debt_amount), each in its measure: what can still be spent
        before Huawei Cloud freezes the account's pay-as-you-go resources."""
        from huaweicloudsdkbss.v2 import ShowCustomerAccountBalancesRequest

        body = self.call("bss", "global", "show_customer_account_balances", ShowCustomerAccountBalancesRequest())
        accounts = {int(a.get("account_type") or 0): a for a in body.get("account_balances") or []}
        cash = accounts.get(1)
        try:
            amount = _yuan(cash or {}) + (_yuan(accounts[2]) if 2 in accounts else 0.0) - _yuan(body, "debt_amount")
        except (KeyError, ValueError, TypeError):
            value = repr((cash or {}).get("amount"))[:40]
            raise CloudError(Problem("cloud.bad_balance", api="ShowCustomerAccountBalances", value=value)) from None
        return round(amount, 2), str((cash or {}).get("currency") or body.get("currency") or "CNY")


def _yuan(row: dict[str, Any], field: str = "amount") -> float:
    """A BSS amount in yuan, from its measure (measure_id 1 yuan, 2 jiao, 3 fen); an absent debt is none."""
    if field == "debt_amount" and row.get(field) is None:
        return 0.0
    return float(str(row[field]).replace(",", "")) * MEASURE[int(row.get("measure_id") or 1)]


def _powering_off(raw: dict[str, Any] | None) -> bool:
    return raw is not None and str(raw.get("OS-EXT-STS:task_state") or "") == "powering-off"


def state_of(raw: dict[str, Any]) -> str:
    if _powering_off(raw):
        return "stopping"
    said = str(raw.get("status") or "unknown")
    return STATES.get(said, said.lower())


def card_of(flavor: dict[str, Any]) -> tuple[str | None, int, float]:
    """The flavor's card as the catalogue names it, how many, and one card's memory in MiB (GPUs, else NPUs)."""
    cards = [c for c in (flavor.get("gpus") or []) + (flavor.get("asic_accelerators") or []) if c]
    if not cards:
        return None, 0, 0.0
    first = cards[0]
    count = sum(int(c.get("count") or 0) for c in cards)
    return gpu_named(str(first.get("name") or "").strip()), count, float(first.get("memory_mb") or 0)


def tags_of(raw: dict[str, Any]) -> dict[str, str]:
    """A server's tags, "key=value" strings (or "key" alone), as a dict."""
    out: dict[str, str] = {}
    for tag in raw.get("tags") or []:
        key, _, value = str(tag).partition("=")
        out[key.strip()] = value.strip()
    return out


def server_found(raw: dict[str, Any], region: str, charges_stopped: bool) -> Found:
    """An ECS server with GPUs or NPUs, as ListServersDetails gives it."""
    tags = tags_of(raw)
    state = state_of(raw)
    flavor = raw.get("flavor") or {}
    gpu, cards, _ = card_of(flavor)
    mode = str((raw.get("metadata") or {}).get("charging_mode") or "0")  # 0 on demand, 1 prepaid, 2 spot
    return Found(
        f"huawei:{raw['id']}",
        "instance",
        region,
        tags.get("Name") or str(raw.get("name") or "") or str(raw["id"]),
        state,
        tags,
        str(flavor.get("id") or "") or None,
        gpu,
        cards,
        None,  # priced from the price cache (provider huawei), else unknown
        mode == "2",
        utc_time(raw.get("created")),
        charging=charges_stopped if state == "stopped" else None,
        stop_billing="keeps"
        if charges_stopped
        else "stops",  # its flavor says so, before any stop (a resize changes it)
        currency="CNY",
        billing="month" if mode == "1" else "hourly",
    )
