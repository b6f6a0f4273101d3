"""Huawei Cloud's SDK clients as bot/discover/huawei.py uses them, and Cloud Eye's card series. Apart from the reading
and stopping, so that the SDKs' builders and Cloud Eye's two-step query (ListMetrics for the cards' dimensions, then
BatchListMetricData) stay out of the cloud's own module. Each SDK is imported when its client is first made."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.discover.huawei import Huawei

# Cloud Eye's agent metrics for a card: (utilisation %, memory used %) and the dimension naming the card
CARD_METRICS = {"gpu": ("gpu_usage_gpu", "gpu_usage_mem"), "npu": ("npu_util_rate_ai_core", "npu_usage_mem")}
GLOBAL_REGIONS = {"iam": "cn-north-4", "bss": "cn-north-1"}  # where the global services are asked without an endpoint


def make_client(product: str, region: str, ak: str, sk: str, project: str | None, endpoint: str | None) -> Any:
    """The product's client (ecs, ces, modelarts: a region's, with its project; iam, bss: the account's), every call to
    `endpoint` when given. The SDK's retries stay off (its default); a call waits 10 s to connect, 30 s to read."""
    from huaweicloudsdkcore.auth.credentials import BasicCredentials, GlobalCredentials
    from huaweicloudsdkcore.http.http_config import HttpConfig

    if product == "ecs":
        from huaweicloudsdkecs.v2 import EcsClient as Client
        from huaweicloudsdkecs.v2.region.ecs_region import EcsRegion as Regions
    elif product == "ces":
        from huaweicloudsdkces.v1 import CesClient as Client
        from huaweicloudsdkces.v1.region.ces_region import CesRegion as Regions
    elif product == "modelarts":
        from huaweicloudsdkmodelarts.v1 import ModelArtsClient as Client
        from huaweicloudsdkmodelarts.v1.region.modelarts_region import ModelArtsRegion as Regions
    elif product == "bss":
        from huaweicloudsdkbss.v2 import BssClient as Client
        from huaweicloudsdkbss.v2.region.bss_region import BssRegion as Regions
    else:
        from huaweicloudsdkiam.v3 import IamClient as Client
        from huaweicloudsdkiam.v3.region.iam_region import IamRegion as Regions
    config = HttpConfig.get_default_config()
    config.timeout = (10, 30)
    config.retry_times = 0
    credentials = BasicCredentials(ak, sk, project) if project else GlobalCredentials(ak, sk)
    if endpoint:  # the account's id (global credentials) is asked of IAM there too, not of the real IAM
        credentials.iam_endpoint = endpoint if "://" in endpoint else f"https://{endpoint}"
    builder = Client.new_builder().with_credentials(credentials).with_http_config(config)
    if endpoint:
        builder = builder.with_endpoints([endpoint if "://" in endpoint else f"https://{endpoint}"])
    else:
        builder = builder.with_region(Regions.value_of(GLOBAL_REGIONS.get(product, region)))
    return builder.build()


def card_series(
    cloud: Huawei, region: str, server_id: str, since: datetime, until: datetime
) -> dict[str, dict[datetime, dict[str, float]]]:
    """One server's cards' points from Cloud Eye's agent metrics: card ("gpu:slot0", "npu:0") -> time ->
    {"util": %, "mem": % of its memory used}. A server its agent does not report for has none."""
    from huaweicloudsdkces.v1 import (
        BatchListMetricDataRequest,
        BatchListMetricDataRequestBody,
        ListMetricsRequest,
        MetricInfo,
        MetricsDimension,
    )

    series: dict[str, dict[datetime, dict[str, float]]] = {}
    for dimension, (util, mem) in CARD_METRICS.items():
        listed = cloud.call("ces", region, "list_metrics", ListMetricsRequest(
            namespace="AGT.ECS", metric_name=util, dim_0=f"instance_id,{server_id}", limit=100))  # fmt: skip
        cards = sorted({str(d.get("value")) for m in listed.get("metrics") or [] for d in m.get("dimensions") or []
                        if d.get("name") == dimension})  # fmt: skip
        if not cards:
            continue
        metrics = [
            MetricInfo(namespace="AGT.ECS", metric_name=name, dimensions=[
                MetricsDimension(name="instance_id", value=server_id), MetricsDimension(name=dimension, value=card)])
            for card in cards for name in (util, mem)
        ]  # fmt: skip
        body = BatchListMetricDataRequestBody(
            metrics=metrics, period="1", filter="average", _from=int(since.timestamp() * 1000),
            to=int(until.timestamp() * 1000))  # fmt: skip
        answer = cloud.call("ces", region, "batch_list_metric_data", BatchListMetricDataRequest(body=body))
        for result in answer.get("metrics") or []:
            dims = {str(d.get("name")): str(d.get("value")) for d in result.get("dimensions") or []}
            what = "util" if result.get("metric_name") == util else "mem"
            card = f"{dimension}:{dims.get(dimension, '')}"
            for at, value in points_by_time(result.get("datapoints") or [], "average").items():
                series.setdefault(card, defaultdict(dict))[at][what] = value
    return series


def points_by_time(datapoints: list[dict[str, Any]], field: str) -> dict[datetime, float]:
    return {
        datetime.fromtimestamp(int(p["timestamp"]) / 1000, UTC): float(p[field])
        for p in datapoints
        if p.get("timestamp") is not None and p.get(field) is not None
    }
