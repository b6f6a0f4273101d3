"""Volcengine's ML Platform (机器学习平台) dev instances (开发机) with GPUs, with the official SDK
(volcenginesdk-mlplatform20240701, signed HMAC-SHA256 as ECS; the same credentials, regions and endpoint):
ListResourceQueues for each queue's billing and its idle-shutdown rules, ListDevInstances page by page,
GetInstanceType once a type (GPUs, model, memory and the type's price an hour), StopDevInstance, then the instance
read again (GetDevInstance) until it has stopped.

A dev instance runs on a resource queue; the queue's administrator sets its shutdown rules (Rules: GeneralIdleRule,
"idle shutdown": stopped once no command or connection has run for MinutePeriod minutes; GpuUtilizationRule,
"low-utilization shutdown": its GPUs under Threshold % for MinutePeriod minutes, then a notice that can be cancelled
for half an hour before the stop). The shortest rule that is on and covers GPU dev instances (IdleShutdownRuleTypes
empty or naming GPU) is kept with the item as its platform's own idle rule, in minutes (the notice's half hour
added); 0 when none is on, which the digest flags. The product does not race a rule that stops it first.

ML Platform has no GPU metrics API: an agent of ours in the dev instance reports its activity, else it is unknown,
never idle. Money: on a pay-as-you-go queue (ChargeType PostPaid) the instance's type's PriceByHour (CNY); on a
prepaid queue the compute is paid for by the month (billing month), priced only from the price cache's rows for
provider volcengine-mlp. A stopped dev instance bills no compute (its storage is billed apart). No tags: the
creator (CreatorTrn's user) is kept as its Creator; owner and channel are set by claiming it, as any untagged item."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from bot.discover.cloud import (
    Paging,
    Stopped,
    free_once_stopped,
    gpu_named,
    refusal_said,
    scan_regions,
    settled,
    utc_time,
)
from bot.discover.volcengine import Volcengine
from bot.state.discovered import IDLE_TAG, IDLE_THRESHOLD_TAG, Found, Scan
from rules.samples import Sample

PAGE = 100  # ListDevInstances' and ListResourceQueues' PageSize at most
NOTICE_MINUTES = 30  # a low-utilization shutdown is announced, then done half an hour later unless cancelled
STATES = {
    "running": "running",
    "stopped": "stopped",
    "stopping": "stopping",
    "starting": "pending",
    "creating": "pending",
    "pending": "pending",
    "queuing": "pending",
    "restarting": "running",
    "rebuilding": "pending",
    "deleting": "terminated",
    "deleted": "terminated",
    "error": "stopped",
    "failed": "stopped",
}


class VolcengineMlp(Volcengine):
    name = "volcengine-mlp"
    metrics = "agent"  # no GPU metrics API for dev instances

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prices: dict[tuple[str, str], float | None] = {}  # an instance type's PriceByHour, CNY

    def scan(self) -> Scan:
        return scan_regions(self.name, self.regions, self._dev_instances, workers=self.at_once)

    def _dev_instances(self, region: str) -> Iterator[Found]:
        import volcenginesdkmlplatform20240701 as mlp

        queues = self._queues(region)
        page = 1
        paging = Paging("Volcengine", f"ML Platform ListDevInstances in {region}")
        while True:
            request = mlp.ListDevInstancesRequest(page_number=page, page_size=PAGE)
            body = self.call("ml_platform", region, "ListDevInstances", request)
            rows = body.get("list") or []
            paging.rows(rows)
            for raw in rows:
                card = self._card(region, raw)
                if card[1] > 0:  # a CPU dev instance is not the product's business
                    yield dev_instance_found(raw, region, card, queues.get(str(raw.get("resource_queue_id") or "")))
            if not rows or page * PAGE >= int(body.get("total_count") or 0):
                return
            page += 1

    def _queues(self, region: str) -> dict[str, tuple[str, int, float | None]]:
        """Each resource queue's charge type, idle rule in minutes (0: none is on) and its GPU % threshold."""
        import volcenginesdkmlplatform20240701 as mlp

        out: dict[str, tuple[str, int, float | None]] = {}
        page = 1
        paging = Paging("Volcengine", f"ML Platform ListResourceQueues in {region}")
        while True:
            body = self.call("ml_platform", region, "ListResourceQueues",
                             mlp.ListResourceQueuesRequest(page_number=page, page_size=PAGE))  # fmt: skip
            rows = body.get("items") or []
            paging.rows(rows)
            for raw in rows:
                out[str(raw.get("id"))] = (str(raw.get("charge_type") or ""), *idle_rule(raw.get("rules")))
            if not rows or page * PAGE >= int(body.get("total_count") or 0):
                return out
            page += 1

    def _card(self, region: str, raw: dict[str, Any]) -> tuple[str | None, int, float | None]:
        """The dev instance's GPU model, count and its type's price an hour: its type's (asked once a type), else
        what a flexible claim asked for (no price)."""
        claim = raw.get("resource_claim") or {}
        kind = str(claim.get("instance_type_id") or "")
        if kind:
            return self._type(region, kind)
        flexible = claim.get("flexible_resource_claim") or {}
        count = int(float(flexible.get("gpu_count") or 0))
        return (gpu_named(str(flexible.get("gpu_type") or "").strip()) if count else None), count, None

    def _type(self, region: str, kind: str) -> tuple[str | None, int, float | None]:
        import volcenginesdkmlplatform20240701 as mlp

        if (region, kind) not in self._types:
            body = self.call("ml_platform", region, "GetInstanceType", mlp.GetInstanceTypeRequest(id=kind))
            count = int(body.get("gpu_count") or 0)
            named = str(body.get("gpu_type") or "").strip()
            price = body.get("price_by_hour")
            self._types[(region, kind)] = (gpu_named(named) if count and named else None, count)
            self._prices[(region, kind)] = float(price) if isinstance(price, int | float) and price > 0 else None
        gpu, count = self._types[(region, kind)]
        return gpu, count, self._prices.get((region, kind))

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        return {}

    def _read(self, region: str, instance_id: str) -> dict[str, Any]:
        import volcenginesdkmlplatform20240701 as mlp

        return self.call("ml_platform", region, "GetDevInstance", mlp.GetDevInstanceRequest(id=instance_id))

    def stop(self, region: str, instance_id: str) -> Stopped:
        import volcenginesdkmlplatform20240701 as mlp

        with refusal_said("cloud.stop_refused", "cloud.name_volcengine_mlp", instance_id):
            self.call("ml_platform", region, "StopDevInstance", mlp.StopDevInstanceRequest(id=instance_id))
        raw = settled(lambda: self._read(region, instance_id), lambda body: _state(body) == "stopping")
        state = _state(raw)  # a stopped dev instance bills no compute; stopping: not yet
        return Stopped(state, charging=free_once_stopped(state), how="StopDevInstance")


def idle_rule(rules: dict[str, Any] | None) -> tuple[int, float | None]:
    """The queue's shortest idle-shutdown rule that is on and covers GPU dev instances: its minutes (0: none) and,
    for the low-utilization rule, the GPU % under which it counts the instance idle."""
    chosen: list[tuple[int, float | None]] = []
    for name, notice in (("general_idle_rule", 0), ("gpu_utilization_rule", NOTICE_MINUTES)):
        rule = (rules or {}).get(name) or {}
        kinds = [str(k).lower() for k in rule.get("idle_shutdown_rule_types") or []]
        period = int(rule.get("minute_period") or 0)
        if rule.get("enabled") and period > 0 and (not kinds or any("gpu" in k for k in kinds)):
            threshold = rule.get("threshold") if notice else None
            chosen.append((period + notice, float(threshold) if isinstance(threshold, int | float) else None))
    return min(chosen, key=lambda rule: rule[0], default=(0, None))


def _state(raw: dict[str, Any]) -> str:
    said = str((raw.get("status") or {}).get("state") or "unknown")
    return STATES.get(said.lower(), said.lower())


def _creator(trn: str) -> str:
    """The user in a TRN (trn:iam::2100000001:user/alice -> alice); the TRN as given when it names none."""
    return trn.rsplit("/", 1)[-1] if "/" in trn else trn


def dev_instance_found(
    raw: dict[str, Any],
    region: str,
    card: tuple[str | None, int, float | None],
    queue: tuple[str, int, float | None] | None,
) -> Found:
    """A dev instance with GPUs, as ListDevInstances gives it (the SDK's snake_case keys), with its queue's
    (charge type, idle rule minutes, its GPU % threshold)."""
    charge, rule, threshold = queue or ("", 0, None)
    prepaid = charge.lower() == "prepaid"
    gpu, cards, per_hour = card
    tags = {IDLE_TAG: str(rule)}
    if rule and threshold is not None:
        tags[IDLE_THRESHOLD_TAG] = str(threshold)
    if raw.get("creator_trn"):
        tags["Creator"] = _creator(str(raw["creator_trn"]))
    state = _state(raw)
    kind = str((raw.get("resource_claim") or {}).get("instance_type_id") or "")
    return Found(
        f"volcengine-mlp:{raw['id']}",
        "instance",
        region,
        str(raw.get("name") or raw["id"]),
        state,
        tags,
        f"ML Platform {kind}" if kind else "ML Platform",
        gpu,
        cards,
        None if prepaid else per_hour,
        False,
        utc_time(raw.get("create_time")),
        charging=free_once_stopped(state),
        currency="CNY",
        billing="month" if prepaid else "hourly",
    )
