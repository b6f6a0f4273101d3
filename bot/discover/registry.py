"""The clouds discovery can read, one row each (a cloud is a module of bot/discover/ plus its row here), and
the provider accounts whose prepaid balance their API gives. Apart from the base (cloud.py), so that no cloud's
module and the base import each other."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, Protocol, cast

from bot.discover.cloud import Cloud, CloudError
from bot.settings import Settings


class HasBalance(Protocol):
    def balance(self) -> tuple[float, str]:
        """The account's prepaid balance available now, and its currency (CloudError when it cannot be read)."""
        ...


def _aws(settings: Settings) -> Cloud:
    from bot.discover.aws import Aws

    return Aws(settings.discovery.aws_region_list(), settings.discovery.aws_endpoint_url)


def _aliyun(settings: Settings) -> Cloud:
    from bot.discover.aliyun import Aliyun

    return Aliyun(
        settings.discovery.aliyun_region_list(),
        settings.discovery.aliyun_endpoint,
        backoff_s=settings.discovery.aliyun_retry_backoff_s,
    )


def _aliyun_dsw(settings: Settings) -> Cloud:
    from bot.discover.aliyun_dsw import AliyunDsw

    return AliyunDsw(
        settings.discovery.aliyun_region_list(),
        settings.discovery.aliyun_endpoint,
        backoff_s=settings.discovery.aliyun_retry_backoff_s,
    )


def _tencent(settings: Settings) -> Cloud:
    from bot.discover.tencent import Tencent

    return Tencent(
        settings.discovery.tencent_region_list(),
        settings.discovery.tencent_endpoint,
        backoff_s=settings.discovery.tencent_retry_backoff_s,
    )


def _tencent_hai(settings: Settings) -> Cloud:
    from bot.discover.tencent_hai import TencentHai

    return TencentHai(
        settings.discovery.tencent_region_list(),
        settings.discovery.tencent_endpoint,
        backoff_s=settings.discovery.tencent_retry_backoff_s,
    )


def _volcengine(settings: Settings) -> Cloud:
    from bot.discover.volcengine import Volcengine

    return Volcengine(
        settings.discovery.volcengine_region_list(),
        settings.discovery.volcengine_endpoint,
        backoff_s=settings.discovery.volcengine_retry_backoff_s,
    )


def _volcengine_mlp(settings: Settings) -> Cloud:
    from bot.discover.volcengine_mlp import VolcengineMlp

    return VolcengineMlp(
        settings.discovery.volcengine_region_list(),
        settings.discovery.volcengine_endpoint,
        backoff_s=settings.discovery.volcengine_retry_backoff_s,
    )


def _huawei(settings: Settings) -> Cloud:
    from bot.discover.huawei import Huawei

    return Huawei(
        settings.discovery.huawei_region_list(),
        settings.discovery.huawei_endpoint,
        settings.discovery.huawei_project_map(),
        backoff_s=settings.discovery.huawei_retry_backoff_s,
    )


def _huawei_modelarts(settings: Settings) -> Cloud:
    from bot.discover.huawei_modelarts import HuaweiModelArts

    return HuaweiModelArts(
        settings.discovery.huawei_region_list(),
        settings.discovery.huawei_endpoint,
        settings.discovery.huawei_project_map(),
        backoff_s=settings.discovery.huawei_retry_backoff_s,
    )


def _autodl(settings: Settings, client: Any | None = None) -> Any:
    import httpx

    from bot.discover.autodl import AutoDL
    from bot.tls import shared_context

    token = settings.discovery.autodl_token.get_secret_value() if settings.discovery.autodl_token else ""
    return AutoDL(settings.discovery.autodl_url, token, client or httpx.Client(verify=shared_context()))


@dataclass(frozen=True)
class Row:
    name: str  # as discover --source, the job ids (discover:<name>) and the items' source name it
    on: Callable[[Settings], bool]  # turned on by these settings
    make: Callable[[Settings], Cloud]


CLOUDS: tuple[Row, ...] = (
    Row("aws", lambda s: bool(s.discovery.aws_region_list()), _aws),
    Row("aliyun", lambda s: bool(s.discovery.aliyun_region_list()), _aliyun),
    Row("aliyun-dsw", lambda s: bool(s.discovery.aliyun_region_list()) and s.discovery.aliyun_dsw, _aliyun_dsw),
    Row("tencent", lambda s: bool(s.discovery.tencent_region_list()), _tencent),
    Row("tencent-hai", lambda s: bool(s.discovery.tencent_region_list()) and s.discovery.tencent_hai, _tencent_hai),
    Row("volcengine", lambda s: bool(s.discovery.volcengine_region_list()), _volcengine),
    Row(
        "volcengine-mlp",
        lambda s: bool(s.discovery.volcengine_region_list()) and s.discovery.volcengine_mlp,
        _volcengine_mlp,
    ),
    Row("huawei", lambda s: bool(s.discovery.huawei_region_list()), _huawei),
    Row(
        "huawei-modelarts",
        lambda s: bool(s.discovery.huawei_region_list()) and s.discovery.huawei_modelarts,
        _huawei_modelarts,
    ),
    Row("autodl", lambda s: s.discovery.autodl_token is not None and s.discovery.autodl_pro, _autodl),
)


def clouds(settings: Settings) -> dict[str, Callable[[], Cloud]]:
    """The clouds turned on in `settings`, each made when asked for. Their SDKs' credentials kept in `.env`
    (AWS_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_ID, TENCENTCLOUD_SECRET_ID, ...) reach the SDKs' own chains."""
    from bot.settings.environment import export_cloud_credentials

    export_cloud_credentials()
    return {row.name: partial(row.make, settings) for row in CLOUDS if row.on(settings)}


def balance_readers(settings: Settings, client: Any | None = None) -> dict[str, Callable[[], HasBalance]]:
    """The provider accounts whose prepaid balance their API gives (Alibaba Cloud, Volcengine, Huawei Cloud, AutoDL),
    each made when asked for. `client`: the HTTP client for AutoDL (one is made when not given)."""
    out: dict[str, Callable[[], HasBalance]] = {}
    make_aliyun = clouds(settings).get("aliyun")
    if make_aliyun is not None:
        out["aliyun"] = lambda: cast(HasBalance, make_aliyun())
    make_volcengine = clouds(settings).get("volcengine")
    if make_volcengine is not None:
        out["volcengine"] = lambda: cast(HasBalance, make_volcengine())
    make_huawei = clouds(settings).get("huawei")
    if make_huawei is not None:
        out["huawei"] = lambda: cast(HasBalance, make_huawei())
    if settings.discovery.autodl_token is not None:
        out["autodl"] = lambda: cast(HasBalance, _autodl(settings, client))
    return out


def _believable(amount: object) -> bool:
    """A balance read from an API: finite and within what a typed one may be (BALANCE_MAX), or owed as much."""
    from bot.fields.metering import BALANCE_MAX

    try:
        value = float(amount)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return False
    return math.isfinite(value) and abs(value) <= BALANCE_MAX


def read_balances(
    settings: Settings,
    store: Any,
    team: str,
    now: datetime,
    client: Any | None = None,
    only: tuple[str, ...] | None = None,
) -> dict[str, str]:
    """Read each provider API's balance (or those `only` names) into the team's prepaid balances; each
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
        if not _believable(amount):  # NaN, Infinity, 1e309, forty digits: a broken answer, never a balance
            problems[name] = f"its API answered a balance of {str(amount)[:24]}, not a finite amount within ±1e12"
            continue
        Balances(store).record(team, name, float(amount), currency, now, now, source=f"{name}-api")
    return problems
