"""Reading AWS with boto3: EC2 instances whose type carries GPUs (running, stopped and on the way), every EBS
volume (the unattached ones become items), per region; CloudWatch's NVIDIA metrics for activity.

Credentials come from boto3's own chain (environment, shared profile, instance role); `endpoint_url`
points every client elsewhere (a compatible cloud, moto's server in tests). botocore retries throttling
itself (standard mode); what still fails is one line (aws_problem), never a traceback.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import boto3
import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError
from botocore.loaders import Loader, create_loader

from bot.discover.catalog import VOLUME_USD_GB_MONTH, gpu_types
from bot.discover.cloud import CloudError, Stopped, free_once_stopped, scan_regions, settled
from bot.state.discovered import Found, Scan
from bot.text.problem import Problem
from rules.samples import Sample

log = logging.getLogger(__name__)
# standard retries (throttling, 5xx and read timeouts, with backoff); AWS_MAX_ATTEMPTS sets how many, as for any
# boto3 client. The read timeout is sized for a page (PAGE instances of XML from a slow endpoint took over 30 s),
# and a page that still fails keeps what the pages before it gave.
CONFIG = Config(retries={"mode": "standard"}, connect_timeout=5, read_timeout=90)
ALIVE = ("pending", "running", "stopping", "stopped", "shutting-down", "terminated")
PAGE = 1000  # instances or volumes a describe call returns (EC2's maximum)


def aws_problem(
    exc: Exception, needs: str = "ec2:DescribeInstances/DescribeVolumes or cloudwatch:GetMetricData"
) -> str:
    """One line for what went wrong with AWS: no credentials, access denied (naming the permission `needs`: the
    call's own), throttled, unreachable, ... (a Problem: English as a str, said in the reader's language)."""
    if isinstance(exc, NoCredentialsError):
        return Problem(
            "cloud.no_credentials", cloud="AWS", how="them in the environment, a profile or an instance role"
        )
    if isinstance(exc, NoRegionError):
        return Problem("cloud.no_region")
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code, message = str(error.get("Code", "")), str(error.get("Message", ""))[:160]
        if code in ("AccessDenied", "UnauthorizedOperation", "AccessDeniedException", "AuthFailure"):
            return Problem("cloud.denied", code=code, policy="credentials' policy", needs=needs, message=message)
        if code in ("Throttling", "ThrottlingException", "RequestLimitExceeded"):
            return Problem("cloud.throttled", cloud="AWS", code=code)
        return Problem("cloud.answered", code=code or "error", message=message)
    if isinstance(exc, BotoCoreError):
        return Problem("cloud.unreachable_or_refused", cloud="AWS", why=str(exc)[:200])
    return Problem("cloud.answered", code=type(exc).__name__, message=str(exc)[:200])


@functools.cache
def _models() -> Loader:
    """botocore's service models (EC2's alone is megabytes of JSON), read from its package files once per process
    and shared by every session: a scan or a stop otherwise spent 0.3-0.5 s of CPU decoding them again. Only
    the loader is shared; each Aws keeps its own session (sessions are not thread-safe)."""
    return create_loader()


class Aws:
    name = "aws"
    metrics = "cloudwatch"

    def __init__(self, regions: tuple[str, ...], endpoint_url: str | None = None) -> None:
        self.regions, self.endpoint_url = regions, endpoint_url
        core = botocore.session.Session()
        core.register_component("data_loader", _models())
        self.session = boto3.session.Session(botocore_session=core)

    def client(self, service: str, region: str) -> Any:
        return self.session.client(
            service,
            region_name=region,
            endpoint_url=self.endpoint_url,  # type: ignore[call-overload]
            config=CONFIG,
        )

    def scan(self) -> Scan:
        """Every region's GPU instances and volumes, page by page; a region that fails is said, what its pages gave
        before is kept (cloud.scan_regions)."""
        return scan_regions(self.name, self.regions, self._read)

    def _read(self, region: str) -> Iterator[Found]:
        try:
            ec2 = self.client("ec2", region)
            yield from self._instances(ec2, region)
            yield from self._volumes(ec2, region)
        except (ClientError, BotoCoreError) as exc:
            raise CloudError(aws_problem(exc)) from None

    def _instances(self, ec2: Any, region: str) -> Iterator[Found]:
        table = gpu_types()
        # the table's types by name (EC2 takes up to 200 values a filter; wildcards are not taken everywhere)
        filters = [
            {"Name": "instance-type", "Values": sorted(table)},
            {"Name": "instance-state-name", "Values": list(ALIVE)},
        ]
        for page in ec2.get_paginator("describe_instances").paginate(
            Filters=filters, PaginationConfig={"PageSize": PAGE}
        ):
            for reservation in page.get("Reservations", []):
                for raw in reservation.get("Instances", []):
                    kind = table.get(raw.get("InstanceType", ""))
                    if kind is None:
                        continue  # a family we know, a size without GPUs (none today) or one not in the table
                    tags = _tags(raw)
                    yield Found(
                        f"aws:{raw['InstanceId']}",
                        "instance",
                        region,
                        tags.get("Name") or raw["InstanceId"],
                        raw.get("State", {}).get("Name", "unknown"),
                        tags,
                        kind.instance_type,
                        kind.gpu,
                        kind.gpus,
                        kind.usd_per_hour,
                        raw.get("InstanceLifecycle") == "spot",
                        raw.get("LaunchTime"),
                    )

    def _volumes(self, ec2: Any, region: str) -> Iterator[Found]:
        for page in ec2.get_paginator("describe_volumes").paginate(PaginationConfig={"PageSize": PAGE}):
            for raw in page.get("Volumes", []):
                tags = _tags(raw)
                attached = next(
                    (f"aws:{a['InstanceId']}" for a in raw.get("Attachments", []) if a.get("InstanceId")), None
                )
                yield Found(
                    f"aws:{raw['VolumeId']}",
                    "storage",
                    region,
                    tags.get("Name") or raw["VolumeId"],
                    raw.get("State", "unknown"),
                    tags,
                    size_gb=float(raw.get("Size", 0)),
                    per_gb_month=VOLUME_USD_GB_MONTH.get(raw.get("VolumeType", ""), 0.08),
                    created_at=raw.get("CreateTime"),
                    attached_to=attached,
                )

    def stop(self, region: str, instance_id: str) -> Stopped:
        """stop_instances (never terminate), then a describe. A stopped EC2 instance bills no compute."""
        ec2 = self.client("ec2", region)
        try:
            ec2.stop_instances(InstanceIds=[instance_id])
        except (ClientError, BotoCoreError) as exc:  # refused: the stop itself needs ec2:StopInstances
            raise CloudError(aws_problem(exc, "ec2:StopInstances")) from None

        def read() -> dict[str, Any]:
            try:
                return dict(ec2.describe_instances(InstanceIds=[instance_id])["Reservations"][0]["Instances"][0])
            except (ClientError, BotoCoreError) as exc:
                raise CloudError(aws_problem(exc, "ec2:DescribeInstances")) from None

        found = settled(read, lambda raw: raw["State"]["Name"] == "stopping")  # said stopped once it has stopped
        state = str(found["State"]["Name"])  # its compute bills no more once stopped; still stopping: not said yet
        return Stopped(state, charging=free_once_stopped(state), how="stop_instances")

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """CloudWatch agent's NVIDIA metrics (namespace CWAgent, `nvidia_smi_utilization_gpu` and
        `nvidia_smi_memory_used`, per InstanceId and GPU `index`), one-minute maxima, for `instance_ids`."""
        try:
            return self._gpu_samples(region, instance_ids, since, until)
        except (ClientError, BotoCoreError) as exc:
            raise CloudError(aws_problem(exc)) from None

    def _gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        cloudwatch = self.client("cloudwatch", region)
        wanted, series, seen = set(instance_ids), [], set()
        for metric in ("nvidia_smi_utilization_gpu", "nvidia_smi_memory_used", "nvidia_smi_memory_total"):
            for page in cloudwatch.get_paginator("list_metrics").paginate(Namespace="CWAgent", MetricName=metric):
                for found in page.get("Metrics", []):
                    dims = {d["Name"]: d["Value"] for d in found.get("Dimensions", [])}
                    key = (metric, tuple(sorted(dims.items())))
                    if dims.get("InstanceId") in wanted and key not in seen:
                        seen.add(key)
                        series.append((metric, dims, found))
        values: dict[tuple[str, int, datetime], dict[str, float]] = {}
        for start in range(0, len(series), 500):  # GetMetricData takes 500 queries a call
            batch = series[start : start + 500]
            queries = [
                {"Id": f"m{n}", "MetricStat": {"Metric": m, "Period": 60, "Stat": "Maximum"}, "ReturnData": True}
                for n, (_, _, m) in enumerate(batch)
            ]
            # times on whole minutes, as the API asks: each datapoint then has the same time on every read,
            # so a sample read twice is kept once
            for page in cloudwatch.get_paginator("get_metric_data").paginate(
                MetricDataQueries=queries,
                StartTime=since.replace(second=0, microsecond=0),
                EndTime=until.replace(second=0, microsecond=0) + timedelta(minutes=1),
            ):
                for result in page.get("MetricDataResults", []):
                    name, dims, _ = batch[int(result["Id"][1:])]
                    gpu = int(dims.get("index", "0")) if str(dims.get("index", "0")).isdigit() else 0
                    for at, value in zip(result.get("Timestamps", []), result.get("Values", []), strict=False):
                        values.setdefault((dims["InstanceId"], gpu, at), {})[name] = float(value)
        return _samples(values)


def _samples(values: dict[tuple[str, int, datetime], dict[str, float]]) -> dict[str, list[Sample]]:
    """Readings joined per instance, GPU and minute into samples (memory in MiB, as the agent reports it)."""
    out: dict[str, list[Sample]] = {}
    for (instance, gpu, at), reading in sorted(values.items(), key=lambda kv: kv[0][2]):
        if "nvidia_smi_utilization_gpu" not in reading:
            continue
        used = reading.get("nvidia_smi_memory_used", 0.0)
        total = max(reading.get("nvidia_smi_memory_total", 0.0), used, 1.0)
        out.setdefault(instance, []).append(
            Sample(at, gpu, min(max(reading["nvidia_smi_utilization_gpu"], 0.0), 100.0), used, total)
        )
    return out


def _tags(raw: dict[str, Any]) -> dict[str, str]:
    return {str(t.get("Key", "")): str(t.get("Value", "")) for t in raw.get("Tags", []) or []}
