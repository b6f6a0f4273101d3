"""The configuration page's tables (docs/configuration.md), made from the Settings model: every setting by area,
with its variable, type, default and meaning. tests/test_docs.py keeps the page equal to what this makes, and
fails when a setting is in no area."""

from __future__ import annotations

import types
import typing
from datetime import date
from enum import Enum
from pathlib import Path

from pydantic import AliasChoices, SecretStr
from pydantic.fields import FieldInfo

from bot.settings import Settings

AREAS: dict[str, tuple[str, ...]] = {
    "Files, language and currency": ("db", "state_db", "database_url", "lang", "policy", "currency"),
    "Price sources": (
        "rate_cards",
        "feed",
        "azure_enabled",
        "azure_base_url",
        "azure_regions",
        "azure_page_cap",
        "ecb_enabled",
        "ecb_url",
        "gpuhunt_providers",
        "gpuhunt_catalog_dir",
        "gpuhunt_catalog_url",
        "usd_cny",
        "usd_cny_date",
        "http_timeout_s",
        "refresh_backoff_s",
        "refresh_ratecard_hours",
        "refresh_azure_hours",
        "refresh_feed_hours",
        "refresh_ecb_hours",
        "refresh_gpuhunt_hours",
        "refresh_aliyun_hours",
        "ttl_ratecard_days",
        "ttl_azure_hours",
        "ttl_feed_hours",
        "ttl_ecb_hours",
        "ttl_gpuhunt_days",
        "ttl_aliyun_hours",
    ),
    "Slack": (
        "slack_bot_token",
        "slack_signing_secret",
        "slack_app_token",
        "slack_client_id",
        "slack_client_secret",
        "slack_redirect_uri",
        "encryption_key",
        "slack_api_url",
        "conversation_ttl_hours",
        "locale_cache_hours",
        "slack_retry_backoff_s",
    ),
    "Feishu/Lark": (
        "feishu_app_id",
        "feishu_app_secret",
        "feishu_verification_token",
        "feishu_encrypt_key",
        "feishu_domain",
        "feishu_mode",
    ),
    "serve: the front door, the work process, replicas, logs": (
        "ack_db_budget_s",
        "max_body_bytes",
        "read_timeout_s",
        "max_pending_bodies",
        "work_process",
        "work_niceness",
        "replica_id",
        "redo_after_s",
        "public_url",
        "log_level",
        "log_format",
    ),
    "Captures, heartbeats and samples": (
        "capture_max_bytes",
        "capture_timeout_s",
        "heartbeat_max_bytes",
        "heartbeat_max_age_hours",
        "samples_raw_days",
        "samples_hourly_days",
        "prometheus_url",
        "prometheus_label",
        "prometheus_every_minutes",
    ),
    "Discovery": (
        "aws_regions",
        "aws_endpoint_url",
        "aliyun_regions",
        "aliyun_endpoint",
        "aliyun_price_types",
        "aliyun_retry_backoff_s",
        "aliyun_dsw",
        "tencent_regions",
        "tencent_endpoint",
        "tencent_retry_backoff_s",
        "tencent_hai",
        "tencent_price_types",
        "refresh_tencent_hours",
        "ttl_tencent_hours",
        "autodl_token",
        "autodl_url",
        "autodl_pro",
        "discover_every_minutes",
        "activity_every_minutes",
        "discover_team",
        "discover_channel",
        "owner_tag",
        "channel_tag",
    ),
    "The digest and reports": (
        "remind_tz",
        "remind_at",
        "remind_days",
        "remind_all_clear",
        "remind_pace_s",
        "report_day",
    ),
}
TYPES: dict[type, str] = {
    bool: "true or false",
    int: "integer",
    float: "number",
    str: "text",
    Path: "path",
    SecretStr: "secret",
    date: "date (YYYY-MM-DD)",
}


def variable(name: str, field: FieldInfo) -> str:
    alias = field.validation_alias
    return str(alias.choices[0]) if isinstance(alias, AliasChoices) else f"GPU_ADVISOR_{name.upper()}"


def kind(field: FieldInfo) -> str:
    """What a setting takes, in words: its type, or an enum's values."""
    annotation = field.annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return " or ".join(str(member.value) for member in annotation)
    return TYPES.get(annotation, str(annotation)) if isinstance(annotation, type) else str(annotation)


def default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return "`~/.local/share/gpu-advisor/gpu-advisor.db`"
    if field.default in (None, ""):
        return "-"
    value = field.default.value if isinstance(field.default, Enum) else field.default
    return f"`{value}`"


def settings_table() -> str:
    """Every setting, one table an area. KeyError names a setting that is in no area (or an area's unknown one)."""
    fields = Settings.model_fields
    placed = [name for names in AREAS.values() for name in names]
    missing = [name for name in fields if name not in placed]
    if missing or len(placed) != len(set(placed)):
        raise KeyError(f"settings in no area (bot/settings/table.py AREAS), or in two: {missing or placed}")
    parts = []
    for area, names in AREAS.items():
        rows = [f"### {area}", "", "| variable | type | default | meaning |", "|---|---|---|---|"]
        rows += [
            f"| `{variable(n, fields[n])}` | {kind(fields[n])} | {default(fields[n])} | {fields[n].description} |"
            for n in names
        ]
        parts.append("\n".join(rows))
    return "\n\n".join(parts)
