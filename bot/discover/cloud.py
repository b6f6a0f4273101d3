"""What discovery, activity and warn-then-stop need of a cloud, whichever it is (AWS, Alibaba Cloud, ...).

Each cloud's module reads its own API with its official SDK and answers in these terms; `clouds(settings)`
gives the clouds a deployment has turned on, by name. Nothing here imports an SDK: a cloud's module is
imported only when that cloud is on (the Alibaba Cloud SDK alone takes half a second to import)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any, Protocol, cast

from bot.settings import Settings
from bot.state.discovered import Found, Scan
from bot.text.problem import Problem
from rules.gpus import canonical_gpu
from rules.samples import Sample

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Stopped:
    """What the cloud says after a stop: its state, and whether the stopped instance's meter keeps running
    (True), stopped (False) or was not said (None)."""

    state: str
    charging: bool | None = None
    how: str = "stop"  # the call that stopped it, for the audit: stop_instances, StopInstances(StopCharging)


class CloudError(Exception):
    """A call to a cloud that failed, said in one line (no credentials, denied, throttled, unreachable, ...).
    `final`: trying again cannot help (the cloud refuses this for this instance): left to people at once."""

    def __init__(self, message: str, final: bool = False) -> None:
        super().__init__(message)
        self.final = final
        self.problem = message  # a Problem where one was given: said in the reader's language where shown


@functools.lru_cache(maxsize=256)
def gpu_named(spec: str) -> str | None:
    """The catalogue's name of the GPU a cloud names ("NVIDIA A10" -> A10-24GB); one it does not know, as named."""
    if not spec:
        return None
    try:
        return canonical_gpu(spec)
    except ValueError:
        return spec


def utc_time(text: Any, zone: tzinfo = UTC) -> datetime | None:
    """A cloud's ISO 8601 time (2026-11-30T08:00Z, 2026-11-30T08:00:00Z, 2026-11-30 08:00:00) as UTC; one without
    an offset is in `zone` (UTC unless the cloud says its own, as CBS gives Beijing time). None when there is none."""
    if not text:
        return None
    try:
        found = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return (found if found.tzinfo else found.replace(tzinfo=zone)).astimezone(UTC)


class Cloud(Protocol):
    name: str  # the items' source and key prefix: aws, aliyun, ...
    metrics: str  # the cloud's metrics service, as its problems are named: cloudwatch, cloudmonitor
    regions: tuple[str, ...]

    def scan(self) -> Scan:
        """Every region's GPU instances and unattached disks; a region that fails is said and skipped."""
        ...

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        """The cloud's own GPU metrics per instance id (CloudError when they cannot be read)."""
        ...

    def stop(self, region: str, instance_id: str) -> Stopped:
        """Stop an instance without releasing it, asking for its meter to stop where the cloud can; then read
        its state again (CloudError when the stop or the read failed)."""
        ...


def scan_regions(
    source: str, regions: tuple[str, ...], read: Callable[[str], Iterable[Found]], *, workers: int = 1
) -> Scan:
    """Each region read with `read` (pages as they come); one that fails (CloudError) is said in one line. What its
    pages gave before the failure is kept (new items added, known ones updated), but the region is not complete:
    nothing in it is released or marked deleted for not being seen, and the next run reads it again.

    `workers` > 1 reads that many regions at once, each in its own thread (a cloud's regions answer apart, and
    most of a page's time is the cloud's): for clouds whose `read` keeps one client per region. The items come
    in the regions' order either way."""

    def one(region: str) -> tuple[list[Found], CloudError | None]:
        got: list[Found] = []
        try:
            for item in read(region):
                got.append(item)
        except CloudError as exc:
            return got, exc
        return got, None

    if workers > 1 and len(regions) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(workers, len(regions)), thread_name_prefix=f"scan-{source}") as pool:
            results = list(pool.map(one, regions))
    else:
        results = [one(region) for region in regions]
    out = Scan(source=source)
    for region, (got, exc) in zip(regions, results, strict=True):
        out.found += got
        if exc is not None:
            out.problems[region] = (
                Problem("cloud.kept_before", problem=exc.problem, count=len(got)) if got else exc.problem
            )
            log.warning("%s discovery in %s failed after %d items: %s", source, region, len(got), exc)
            continue
        out.regions_ok.append(region)
    return out


# regions an Alibaba Cloud or Tencent Cloud scan reads at once (one SDK client per region and product)
REGIONS_AT_ONCE = 8


class HasBalance(Protocol):
    def balance(self) -> tuple[float, str]:
        """The account's prepaid balance available now, and its currency (CloudError when it cannot be read)."""
        ...


def clouds(settings: Settings) -> dict[str, Callable[[], Cloud]]:
    """The clouds turned on in `settings`, each made when asked for. Their SDKs' credentials kept in `.env`
    (AWS_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_ID, TENCENTCLOUD_SECRET_ID, ...) reach the SDKs' own chains."""
    from bot.settings.environment import export_cloud_credentials

    export_cloud_credentials()
    out: dict[str, Callable[[], Cloud]] = {}
    if settings.aws_region_list():

        def aws() -> Cloud:
            from bot.discover.aws import Aws

            return Aws(settings.aws_region_list(), settings.aws_endpoint_url)

        out["aws"] = aws
    if settings.aliyun_region_list():

        def aliyun() -> Cloud:
            from bot.discover.aliyun import Aliyun

            return Aliyun(
                settings.aliyun_region_list(), settings.aliyun_endpoint, backoff_s=settings.aliyun_retry_backoff_s
            )

        out["aliyun"] = aliyun

        def aliyun_dsw() -> Cloud:
            from bot.discover.aliyun_dsw import AliyunDsw

            return AliyunDsw(
                settings.aliyun_region_list(), settings.aliyun_endpoint, backoff_s=settings.aliyun_retry_backoff_s
            )

        if settings.aliyun_dsw:
            out["aliyun-dsw"] = aliyun_dsw
    if settings.tencent_region_list():

        def tencent() -> Cloud:
            from bot.discover.tencent import Tencent

            return Tencent(
                settings.tencent_region_list(), settings.tencent_endpoint, backoff_s=settings.tencent_retry_backoff_s
            )

        out["tencent"] = tencent

        def tencent_hai() -> Cloud:
            from bot.discover.tencent_hai import TencentHai

            return TencentHai(
                settings.tencent_region_list(), settings.tencent_endpoint, backoff_s=settings.tencent_retry_backoff_s
            )

        if settings.tencent_hai:
            out["tencent-hai"] = tencent_hai
    if settings.autodl_token is not None and settings.autodl_pro:

        def autodl() -> Cloud:
            import httpx

            from bot.discover.autodl import AutoDL
            from bot.tls import shared_context

            token = settings.autodl_token.get_secret_value() if settings.autodl_token else ""
            return AutoDL(settings.autodl_url, token, httpx.Client(verify=shared_context()))

        out["autodl"] = autodl
    return out


def balance_readers(settings: Settings, client: Any | None = None) -> dict[str, Callable[[], HasBalance]]:
    """The provider accounts whose prepaid balance their API gives (Alibaba Cloud, AutoDL), each made when
    asked for. `client`: the HTTP client for AutoDL (one is made when not given)."""
    out: dict[str, Callable[[], HasBalance]] = {}
    make_aliyun = clouds(settings).get("aliyun")
    if make_aliyun is not None:
        out["aliyun"] = lambda: cast(HasBalance, make_aliyun())
    if settings.autodl_token is not None:

        def autodl() -> HasBalance:
            import httpx

            from bot.discover.autodl import AutoDL
            from bot.tls import shared_context

            token = settings.autodl_token.get_secret_value() if settings.autodl_token else ""
            return AutoDL(settings.autodl_url, token, client or httpx.Client(verify=shared_context()))

        out["autodl"] = autodl
    return out


def read_balances(
    settings: Settings,
    store: Any,
    team: str,
    now: datetime,
    client: Any | None = None,
    only: tuple[str, ...] | None = None,
) -> dict[str, str]:
    """Read each provider API's balance (or those `only` names) into the workspace's prepaid balances; each
    failure in one line, by provider."""
    from bot.state.balances import Balances

    problems: dict[str, str] = {}
    for name, make in balance_readers(settings, client).items():
        if only is not None and name not in only:
            continue
        try:
            amount, currency = make().balance()
        except CloudError as exc:
            problems[name] = str(exc)
            continue
        Balances(store).record(team, name, amount, currency, now, now, source=f"{name}-api")
    return problems
