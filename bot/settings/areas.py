"""The settings' areas, one model each (bot/settings/model.py puts them together as Settings): their fields, what
each means, and the checks of their values."""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, ValidationInfo, field_validator

from bot.text.lang import Lang

if TYPE_CHECKING:
    from rules.remind_schedule import RemindSchedule


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "gpu-advisor" / "gpu-advisor.db"


def state_db_beside(db: Path) -> Path:
    """The bot state's SQLite file when GPU_ADVISOR_STATE_DB is not set: beside the price cache, <name>.state.db."""
    return db.with_name(f"{db.stem}.state{db.suffix or '.db'}")


def _backoff(description: str) -> Any:
    """A cloud's first wait before retrying a throttled call, in seconds: each cloud has one, with the same bounds."""
    return Field(default=0.5, ge=0, le=30, description=description)


class _Area(BaseModel):
    """One area's settings; given by name or by the variable's other names (Slack's own)."""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", defer_build=True)


class Files(_Area):
    """Files, language and currency."""

    db: Path = Field(default_factory=default_db_path, description="SQLite file of the price cache (also --db)")
    state_db: Path | None = Field(
        default=None,
        description="SQLite file of the Slack bot's state; default: beside the price cache, <name>.state.db",
    )
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL of the bot's state database; default: sqlite:/// of the state file"
    )
    lang: Lang = Field(
        default=Lang.ZH,
        description="zh or en: Slack's language for users whose locale is neither; "
        "the terminal's instead of its locale",
    )
    policy: Path | None = Field(
        default=None, description="a policy YAML file (only what it changes); default: the bundled one"
    )
    currency: str = Field(
        default="CNY",
        description="currency of quotes: CNY, USD, EUR or any other the ECB publishes rates for; dollars and yuan "
        "are ordered on it (the dearest first, rankings)",
    )

    @field_validator("currency")
    @classmethod
    def _known_currency(cls, value: str) -> str:
        from pricing.fx import currency_code

        return currency_code(value)

    def state_db_path(self) -> Path:
        return self.state_db or state_db_beside(self.db)

    def state_url(self) -> str:
        """The bot's state database: GPU_ADVISOR_DATABASE_URL, else the SQLite file."""
        return self.database_url or f"sqlite:///{self.state_db_path()}"


class Prices(_Area):
    """Price sources."""

    rate_cards: str = Field(default="", description="team rate-card files (CSV/JSON), comma-separated")
    feed: str | None = Field(default=None, description="a generic price feed: a CSV/JSON file path or URL")
    azure_enabled: bool = Field(default=True, description="refresh prices from the Azure Retail Prices API")
    azure_base_url: str = Field(
        default="https://prices.azure.com/api/retail/prices", description="the Azure Retail Prices API"
    )
    azure_regions: str = Field(default="", description="Azure armRegionName values, comma-separated; empty: all")
    azure_page_cap: int = Field(default=50, ge=1, le=1000, description="most pages read from Azure in one refresh")
    ecb_enabled: bool = Field(default=True, description="refresh USD/CNY from the ECB daily reference rates")
    ecb_url: str = Field(
        default="https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml", description="the ECB daily rates"
    )
    gpuhunt_providers: str = Field(
        default="",
        description="gpuhunt catalogs to load as price sources, comma-"
        "separated (aws, azure, gcp, lambdalabs, runpod, ...); empty: off",
    )
    gpuhunt_catalog_dir: str = Field(
        default="", description="a folder of gpuhunt catalogs (PROVIDER.csv) read instead of downloading them"
    )
    gpuhunt_catalog_url: str = Field(
        default="https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3",
        description="where gpuhunt's catalogs are downloaded from",
    )
    usd_cny: float | None = Field(default=None, gt=0, description="a fixed USD->CNY rate; wins over the ECB")
    usd_cny_date: date | None = Field(default=None, description="the date of the fixed rate")
    http_timeout_s: float = Field(default=20, gt=0, le=300, description="timeout of each price-source request")
    refresh_backoff_s: float = Field(
        default=2,
        ge=0,
        le=60,
        description="first wait before retrying a failed refresh; it doubles (a server's Retry-After wins)",
    )
    refresh_ratecard_hours: float = Field(default=24, gt=0, description="how often serve refreshes the rate card")
    refresh_azure_hours: float = Field(default=6, gt=0, description="how often serve refreshes Azure prices")
    refresh_feed_hours: float = Field(default=6, gt=0, description="how often serve refreshes the feed")
    refresh_ecb_hours: float = Field(default=24, gt=0, description="how often serve refreshes the ECB rates")
    refresh_gpuhunt_hours: float = Field(default=24, gt=0, description="how often serve refreshes gpuhunt's catalogs")
    refresh_aliyun_hours: float = Field(default=6, gt=0, description="how often serve refreshes Alibaba Cloud prices")
    ttl_ratecard_days: float = Field(
        default=365, gt=0, description="a rate-card price is stale this long after its effective date"
    )
    ttl_azure_hours: float = Field(default=24, gt=0, description="an Azure price is stale this long after its fetch")
    ttl_feed_hours: float = Field(default=48, gt=0, description="a feed price is stale this long after its fetch")
    ttl_ecb_hours: float = Field(default=72, gt=0, description="an ECB rate is stale this long after its fetch")
    ttl_gpuhunt_days: float = Field(
        default=14, gt=0, description="a gpuhunt price is stale this long after its catalog's date"
    )
    ttl_aliyun_hours: float = Field(
        default=24, gt=0, description="an Alibaba Cloud price is stale this long after its fetch"
    )

    def rate_card_paths(self) -> list[Path]:
        return [Path(p.strip()) for p in self.rate_cards.split(",") if p.strip()]

    def gpuhunt_provider_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.strip().lower() for p in self.gpuhunt_providers.split(",") if p.strip()))

    def azure_region_list(self) -> tuple[str, ...]:
        return tuple(r.strip() for r in self.azure_regions.split(",") if r.strip())


class Slack(_Area):
    """Slack."""

    bot_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_BOT_TOKEN", "GPU_ADVISOR_SLACK_BOT_TOKEN"),
        description="the Bot User OAuth Token (xoxb-...)",
    )
    signing_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "GPU_ADVISOR_SLACK_SIGNING_SECRET"),
        description="the app's Signing Secret (HTTP mode)",
    )
    app_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_APP_TOKEN", "GPU_ADVISOR_SLACK_APP_TOKEN"),
        description="an App-Level Token (xapp-...): Socket Mode",
    )
    client_id: str | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_CLIENT_ID", "GPU_ADVISOR_SLACK_CLIENT_ID"),
        description="OAuth: the app's Client ID; with SLACK_CLIENT_SECRET (and no SLACK_BOT_TOKEN) the app installs "
        "into many workspaces at /slack/install",
    )
    client_secret: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_CLIENT_SECRET", "GPU_ADVISOR_SLACK_CLIENT_SECRET"),
        description="OAuth: the app's Client Secret",
    )
    redirect_uri: str | None = Field(
        default=None,
        validation_alias=AliasChoices("SLACK_REDIRECT_URI", "GPU_ADVISOR_SLACK_REDIRECT_URI"),
        description="OAuth: the redirect URL (https://YOUR-HOST/slack/oauth_redirect) when the app lists several",
    )
    encryption_key: SecretStr | None = Field(
        default=None,
        description="OAuth: the Fernet key that encrypts installations' tokens at rest (make one with "
        '`python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`)',
    )
    api_url: str = Field(
        default="https://slack.com/api/",
        validation_alias=AliasChoices("SLACK_API_URL", "GPU_ADVISOR_SLACK_API_URL"),
        description="the Slack Web API base URL of every client the app makes",
    )
    conversation_ttl_hours: float = Field(default=24, gt=0, description="a profile left unanswered this long expires")
    locale_cache_hours: float = Field(default=24, gt=0, description="how long a user's Slack locale is cached")
    retry_backoff_s: float = Field(
        default=0.5,
        ge=0,
        le=30,
        description=(
            "first wait before retrying a Slack call that failed with 5xx or a dropped connection; it doubles,"
            " and each wait is up to twice its step (jitter)"
        ),
    )

    def oauth(self) -> bool:
        """Installed through OAuth into many workspaces: a client ID and secret, and no single bot token."""
        return bool(self.client_id and self.client_secret and not self.bot_token)

    def configured(self) -> bool:
        """Talks to Slack: a bot token, or an OAuth client (installs into many workspaces)."""
        return bool(self.bot_token or self.oauth())


class Feishu(_Area):
    """Feishu/Lark."""

    app_id: str | None = Field(
        default=None,
        description="Feishu/Lark: the self-built app's App ID (cli_...); with the secret, serve talks to Feishu",
    )
    app_secret: SecretStr | None = Field(default=None, description="Feishu/Lark: the app's App Secret")
    verification_token: SecretStr | None = Field(
        default=None,
        description="Feishu/Lark: the Verification Token of Events and Callbacks (checked when no encrypt key)",
    )
    encrypt_key: SecretStr | None = Field(
        default=None,
        description="Feishu/Lark: the Encrypt Key; callbacks are then encrypted and signed (X-Lark-Signature)",
    )
    domain: str = Field(
        default="feishu",
        description="Feishu/Lark: feishu (open.feishu.cn), lark (open.larksuite.com) or an origin URL (a local fake)",
    )
    mode: str = Field(
        default="ws",
        pattern="^(ws|http)$",
        description="Feishu/Lark: ws (the SDK's long connection, no public URL) or http (POSTs to /feishu/events)",
    )

    @field_validator("domain")
    @classmethod
    def _feishu_domain(cls, value: str) -> str:
        from bot.settings.origins import is_origin

        if value.lower() in ("feishu", "lark"):
            return value.lower()
        if is_origin(value):
            return value
        raise ValueError("feishu, lark, or an origin such as https://open.example.com (http only on the loopback)")

    def configured(self) -> bool:
        """Talks to Feishu/Lark: an App ID and App Secret are set."""
        return bool(self.app_id and self.app_secret)

    def base_url(self) -> str:
        """The Open API's origin: Feishu's or Lark's, or the URL given (https, or http on the loopback only)."""
        named = {"feishu": "https://open.feishu.cn", "lark": "https://open.larksuite.com"}
        return named.get(self.domain.lower(), self.domain.rstrip("/"))


class Serve(_Area):
    """serve: the front door, the work process, replicas, logs."""

    ack_db_budget_s: float = Field(
        default=1.0,
        gt=0,
        le=2.5,
        description="the longest an acknowledgement waits to "
        "keep a request in the state database; past it Slack is told to try again",
    )
    max_body_bytes: int = Field(
        default=1024 * 1024,
        ge=1024,
        le=64 * 1024 * 1024,
        description="a Slack request body above this is refused (413) before it is read",
    )
    read_timeout_s: float = Field(
        default=10.0,
        gt=0,
        le=300,
        description="a request's body must arrive within this many seconds, else 408 "
        "(a stalled or trickling upload does not hold the process)",
    )
    max_pending_bodies: int = Field(
        default=32,
        ge=1,
        le=10000,
        description="at most this many request bodies not yet authenticated are received at once; past it, 503 "
        "(counted apart for requests whose headers carry a fresh Slack or Feishu signature and the rest)",
    )
    work_process: bool = Field(
        default=True,
        description="serve does the work after each acknowledgement (and the "
        "scheduler's jobs) in a second process, so that work never slows an acknowledgement",
    )
    work_niceness: int = Field(
        default=10,
        ge=0,
        le=19,
        description="the work process's CPU priority below the "
        "front door's once it is ready (nice: 0 the same, 19 the lowest), so acknowledgements go first on busy "
        "CPUs; its start-up runs at the front door's",
    )
    replica_id: str = Field(
        default="",
        max_length=80,
        description="this process's name among replicas sharing one database (default: the "
        "host name); set one per process when several run on one host",
    )
    redo_after_s: float = Field(
        default=120,
        ge=1,
        le=1800,
        description="work acknowledged but not done this long is redone (Slack was "
        "unreachable, or the replica that took it stopped); checked every half of it, at "
        "most every minute",
    )
    public_url: str | None = Field(
        default=None,
        pattern=r"^https?://\S+$",
        description="the bot's public base URL (https://gpu-advisor.example.com): the "
        "agent command `enroll-token` and `/gpu-advise enroll` show points at it, and the board's links",
    )
    board_link_hours: float = Field(
        default=24,
        gt=0,
        le=24 * 366,
        description="how long a link to the board (`gpu-advise board`, `board` in a chat, each digest's) opens "
        "it, in hours (fractions allowed)",
    )
    log_level: str = Field(
        default="INFO",
        pattern="^(DEBUG|INFO|WARNING|ERROR)$",
        description="serve's log level: DEBUG, INFO, WARNING or ERROR",
    )
    log_format: str = Field(
        default="text", pattern="^(text|json)$", description="serve's log lines: text, or json (one object a line)"
    )


class Samples(_Area):
    """Captures, heartbeats and samples."""

    capture_max_bytes: int = Field(
        default=10 * 1024 * 1024,
        ge=1024,
        le=512 * 1024 * 1024,
        description="a capture uploaded to Slack above this is not downloaded "
        "(a day of 1-second dmon samples of 8 GPUs is about 50 MB)",
    )
    capture_timeout_s: float = Field(
        default=60.0,
        gt=0,
        le=600,
        description="a capture's download from Slack must finish within this many "
        "seconds, else the thread is told and nothing is pre-filled",
    )
    heartbeat_max_bytes: int = Field(
        default=4 * 1024 * 1024,
        ge=1024,
        le=256 * 1024 * 1024,
        description="an agent's /api/heartbeat body above this is refused (413)",
    )
    heartbeat_max_age_hours: float = Field(
        default=24,
        gt=0,
        le=24 * 92,
        description="/api/heartbeat keeps samples up "
        "to this many hours old (an agent's buffer, or a backfill for reports); "
        "older ones are counted and dropped",
    )
    samples_raw_days: float = Field(
        default=2,
        ge=1,
        le=366,
        description="agents' GPU samples are kept as sent "
        "this long (the digest looks back a day); each is also folded into its hour within the hour it arrives",
    )
    samples_hourly_days: float = Field(
        default=90, gt=0, le=3660, description="hourly maxima of GPU samples are kept this long"
    )
    prometheus_url: str | None = Field(
        default=None,
        description="a Prometheus with NVIDIA's DCGM exporter: serve pulls GPU samples of tracked instances from it",
    )
    prometheus_label: str = Field(
        default="Hostname", description="the series label whose value is the tracked instance's name"
    )
    prometheus_every_minutes: float = Field(
        default=5, gt=0, le=60, description="how often serve pulls from Prometheus (each pull reads twice that span)"
    )


class Discovery(_Area):
    """Discovery."""

    aws_regions: str = Field(
        default="",
        description="AWS regions to discover GPU instances and unattached volumes "
        "in, comma-separated (us-east-1,us-west-2); empty: AWS discovery is off. Credentials "
        "come from boto3's own chain (environment, profile, instance role)",
    )
    aws_endpoint_url: str | None = Field(
        default=None,
        description="an endpoint for every AWS call instead of "
        "AWS's own (a compatible cloud, or moto's server in tests)",
    )
    aliyun_regions: str = Field(
        default="",
        description="Alibaba Cloud regions to discover GPU instances and unattached disks in, comma-separated "
        "(cn-hangzhou,cn-shanghai); empty: Alibaba Cloud is off. Credentials come from Alibaba Cloud's own chain "
        "(ALIBABA_CLOUD_ACCESS_KEY_ID / ALIBABA_CLOUD_ACCESS_KEY_SECRET, a profile, an instance RAM role)",
    )
    aliyun_endpoint: str | None = Field(
        default=None,
        description="one endpoint for every Alibaba Cloud call (ECS, CloudMonitor, billing) instead of each "
        "product's own, as http://host:port or host (a local fake in tests)",
    )
    aliyun_price_types: str = Field(
        default="",
        description="ECS instance types priced by Alibaba Cloud's DescribePrice beside those discovery finds, "
        "comma-separated (ecs.gn7i-c8g1.2xlarge)",
    )
    aliyun_retry_backoff_s: float = _backoff(
        "first wait before retrying an Alibaba Cloud call that was throttled; it doubles (3 tries)"
    )
    aliyun_dsw: bool = Field(
        default=True,
        description="with GPU_ADVISOR_ALIYUN_REGIONS, also find PAI-DSW notebook instances with GPUs in those "
        "regions (discover:aliyun-dsw), read their GPU metrics and stop idle ones",
    )
    tencent_regions: str = Field(
        default="",
        description="Tencent Cloud regions to discover GPU instances in, comma-separated (ap-guangzhou,ap-shanghai); "
        "empty: Tencent Cloud is off. Credentials: TENCENTCLOUD_SECRET_ID / TENCENTCLOUD_SECRET_KEY, else the "
        "SDK's chain (a profile, a CVM role)",
    )
    tencent_endpoint: str | None = Field(
        default=None,
        description="one endpoint for every Tencent Cloud call (CVM, Cloud Monitor) instead of each product's "
        "own, as http://host:port or host (a local fake in tests)",
    )
    tencent_retry_backoff_s: float = _backoff(
        "first wait before retrying a Tencent Cloud call refused for its rate limit; it doubles (3 tries)"
    )
    tencent_hai: bool = Field(
        default=True,
        description="with GPU_ADVISOR_TENCENT_REGIONS, also find Tencent Cloud's HAI GPU servers in those regions "
        "(discover:tencent-hai) and stop them without charge",
    )
    tencent_price_types: str = Field(
        default="",
        description="CVM GPU instance types priced by Tencent Cloud's DescribeZoneInstanceConfigInfos as source "
        "tencent, each with its GPU (the API does not say it), comma-separated (GN7.2XLARGE32=T4,GNV4.4XLARGE48=A10)",
    )
    refresh_tencent_hours: float = Field(default=6, gt=0, description="how often serve refreshes Tencent Cloud prices")
    ttl_tencent_hours: float = Field(
        default=24, gt=0, description="a Tencent Cloud price is stale this long after its fetch"
    )
    volcengine_regions: str = Field(
        default="",
        description="Volcengine (火山引擎) regions to discover GPU instances in, comma-separated "
        "(cn-beijing,cn-shanghai); empty: Volcengine is off. Credentials: VOLCENGINE_ACCESS_KEY / "
        "VOLCENGINE_SECRET_KEY",
    )
    volcengine_endpoint: str | None = Field(
        default=None,
        description="one endpoint for every Volcengine call (ECS, CloudMonitor, billing, ML Platform) instead of "
        "each product's own, as http://host:port or host (a local fake in tests)",
    )
    volcengine_retry_backoff_s: float = _backoff(
        "first wait before retrying a Volcengine call that was throttled; it doubles (3 tries)"
    )
    huawei_regions: str = Field(
        default="",
        description="Huawei Cloud regions to discover ECS servers with GPUs or Ascend NPUs in, comma-separated "
        "(cn-north-4,cn-east-3); empty: Huawei Cloud is off. Credentials: HUAWEICLOUD_SDK_AK / HUAWEICLOUD_SDK_SK",
    )
    huawei_endpoint: str | None = Field(
        default=None,
        description="one endpoint for every Huawei Cloud call (ECS, Cloud Eye, BSS, IAM) instead of each "
        "service's own, as http://host:port or host (a local fake in tests)",
    )
    huawei_project_ids: str = Field(
        default="",
        description="each region's project id, as region=project_id pairs, comma-separated "
        "(cn-north-4=0a1b…); a region not named here is asked of IAM (KeystoneListProjects)",
    )
    huawei_modelarts: bool = Field(
        default=True,
        description="with GPU_ADVISOR_HUAWEI_REGIONS, also find ModelArts notebooks with GPUs or NPUs in those regions "
        "(discover:huawei-modelarts), with their idle-stop lease, and stop idle ones",
    )
    huawei_retry_backoff_s: float = _backoff(
        "first wait before retrying a Huawei Cloud call that was throttled; it doubles (3 tries)"
    )
    volcengine_mlp: bool = Field(
        default=True,
        description="with GPU_ADVISOR_VOLCENGINE_REGIONS, also find ML Platform (机器学习平台) dev instances with GPUs "
        "in those regions (discover:volcengine-mlp), with their queue's idle-shutdown rule, and stop idle ones",
    )
    autodl_token: SecretStr | None = Field(
        default=None,
        description="AutoDL's developer token (控制台 → 设置 → 开发者Token): its wallet balance is read as the prepaid "
        "balance of provider autodl every GPU_ADVISOR_DISCOVER_EVERY_MINUTES",
    )
    autodl_url: str = Field(
        default="https://api.autodl.com", description="AutoDL's developer API (a local fake in tests)"
    )
    autodl_pro: bool = Field(
        default=True,
        description="with GPU_ADVISOR_AUTODL_TOKEN, find AutoDL Pro container instances and power idle ones off "
        "through its Pro API (which needs the account's real-name verification); false: the wallet balance only",
    )
    discover_every_minutes: float = Field(
        default=30, ge=1, le=1440, description="how often serve discovers (once per slot across replicas)"
    )
    activity_every_minutes: float = Field(
        default=5,
        ge=1,
        le=60,
        description="how often serve reads discovered instances' GPU metrics between scans (CloudWatch, "
        "CloudMonitor, Cloud Monitor), so the idle rule has a fresh sample",
    )
    discover_team: str | None = Field(
        default=None,
        description="the team discovered items belong to (needed with OAuth installs; default: the bot token's)",
    )
    discover_channel: str | None = Field(
        default=None, description="the channel of discovered items without a channel tag (and of Kubernetes items)"
    )
    owner_tag: str = Field(
        default="Owner",
        min_length=1,
        max_length=128,
        description="the cloud tag naming an item's owner: a user id (Slack U…, Feishu ou_…), or an email looked up "
        "in the team's chat",
    )
    channel_tag: str = Field(
        default="ChatChannel",
        min_length=1,
        max_length=128,
        description="the cloud tag naming an item's channel (a Slack channel id, or feishu:oc_… for a Feishu chat); "
        "SlackChannel, its name before, is still read",
    )

    def aws_region_list(self) -> tuple[str, ...]:
        return tuple(r.strip() for r in self.aws_regions.split(",") if r.strip())

    def aliyun_region_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.strip() for r in self.aliyun_regions.split(",") if r.strip()))

    def tencent_region_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.strip() for r in self.tencent_regions.split(",") if r.strip()))

    @field_validator("huawei_project_ids")
    @classmethod
    def _project_pairs(cls, value: str) -> str:
        for pair in (p.strip() for p in value.split(",") if p.strip()):
            region, _, project = pair.partition("=")
            if not (region.strip() and project.strip()):
                raise ValueError(f"{pair!r} is not region=project_id (e.g. cn-north-4=0a1b2c…)")
        return value

    def huawei_region_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.strip() for r in self.huawei_regions.split(",") if r.strip()))

    def huawei_project_map(self) -> dict[str, str]:
        """GPU_ADVISOR_HUAWEI_PROJECT_IDS as region -> project id."""
        pairs = (p.split("=", 1) for p in self.huawei_project_ids.split(",") if "=" in p)
        return {region.strip(): project.strip() for region, project in pairs if region.strip() and project.strip()}

    def volcengine_region_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.strip() for r in self.volcengine_regions.split(",") if r.strip()))

    def aliyun_price_type_list(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.strip() for r in self.aliyun_price_types.split(",") if r.strip()))

    @field_validator(
        "aws_endpoint_url", "aliyun_endpoint", "tencent_endpoint", "volcengine_endpoint", "huawei_endpoint"
    )
    @classmethod
    def _endpoint(cls, value: str | None) -> str | None:
        """A cloud's endpoint: http(s)://host[:port][/path], or host[:port] for the Chinese clouds' SDKs."""
        if value is None or not value.strip():
            return None
        from urllib.parse import urlsplit

        text = value.strip()
        parts = urlsplit(text if "://" in text else f"https://{text}")
        try:
            parts.port  # noqa: B018 (a port that is not a number raises here)
        except ValueError:
            raise ValueError(f"{value!r} has a port that is not a number") from None
        if parts.scheme not in ("http", "https") or not parts.hostname or " " in text:
            raise ValueError(f"{value!r} is not an endpoint: give http://host:port or https://host")
        return text


class Digest(_Area):
    """The digest and reports."""

    remind_tz: str = Field(
        default="Asia/Shanghai",
        description="the time zone whose day a digest belongs to (one digest a channel a local day)",
    )
    remind_at: str = Field(
        default="09:30",
        description="local time of a channel's daily digest, unless `/gpu-advise remind at` sets another",
    )
    remind_days: str = Field(default="mon-fri", description="working days of the digest: mon-fri, mon,wed,fri, daily")
    remind_all_clear: bool = Field(default=False, description='post an "all clear" when a digest has nothing to say')
    remind_pace_s: float = Field(
        default=1.0,
        ge=0,
        le=60,
        description="seconds between two digests in Slack (about one message a second); Feishu's go at its own "
        "limit, 16 a second (960 a minute, under its 1,000)",
    )
    report_day: str = Field(
        default="mon",
        pattern="^(mon|tue|wed|thu|fri|sat|sun)$",
        description="the day of each channel's weekly report (mon ... sun), at its digest's local "
        "time, about the seven days before",
    )

    @field_validator("remind_tz")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"'{value}' is not an IANA time zone (e.g. Asia/Shanghai, America/New_York)") from None
        return value

    @field_validator("remind_at", "remind_days")
    @classmethod
    def _readable_schedule(cls, value: str, info: ValidationInfo) -> str:
        from rules.errors import ParseError
        from rules.remind_schedule import parse_at, parse_days

        try:
            (parse_at if info.field_name == "remind_at" else parse_days)(value)
        except ParseError as exc:
            raise ValueError(f"'{value}' is not readable; accepted: {', '.join(exc.accepted)}") from None
        return value

    def default_schedule(self) -> RemindSchedule:
        """A channel's digest schedule until `/gpu-advise remind at` sets its own."""
        from rules.remind_schedule import RemindSchedule, parse_at, parse_days

        return RemindSchedule(parse_at(self.remind_at), self.remind_tz, parse_days(self.remind_days))
