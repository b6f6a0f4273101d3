"""Configuration: one Settings object, built at start-up from the environment (and .env), passed down, its
settings grouped by area (files, prices, slack, feishu, serve, samples, discovery, digest: one model each). Every
setting keeps its variable (GPU_ADVISOR_<NAME>, Slack's own names for Slack's), and its flat name is still taken by
Settings(...) (Settings(azure_enabled=False) sets prices.azure_enabled): FLAT says where each went."""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, ValidationError
from pydantic.fields import FieldInfo

from bot.settings.areas import (
    Digest,
    Discovery,
    Feishu,
    Files,
    Prices,
    Samples,
    Serve,
    Slack,
    _Area,
    default_db_path,
    state_db_beside,
)
from bot.settings.environment import environment

__all__ = ["AREAS", "CHAT_AREAS", "FLAT", "Settings", "default_db_path", "state_db_beside", "variable_of", "variables"]

AREAS: dict[str, type[_Area]] = {
    "files": Files,
    "prices": Prices,
    "slack": Slack,
    "feishu": Feishu,
    "serve": Serve,
    "samples": Samples,
    "discovery": Discovery,
    "digest": Digest,
}
# each setting's flat name (as the variable names it, and as Settings(...) still takes it): its area and its name there
FLAT: dict[str, tuple[str, str]] = {
    "db": ("files", "db"),
    "state_db": ("files", "state_db"),
    "database_url": ("files", "database_url"),
    "lang": ("files", "lang"),
    "policy": ("files", "policy"),
    "currency": ("files", "currency"),
    "rate_cards": ("prices", "rate_cards"),
    "feed": ("prices", "feed"),
    "azure_enabled": ("prices", "azure_enabled"),
    "azure_base_url": ("prices", "azure_base_url"),
    "azure_regions": ("prices", "azure_regions"),
    "azure_page_cap": ("prices", "azure_page_cap"),
    "ecb_enabled": ("prices", "ecb_enabled"),
    "ecb_url": ("prices", "ecb_url"),
    "gpuhunt_providers": ("prices", "gpuhunt_providers"),
    "gpuhunt_catalog_dir": ("prices", "gpuhunt_catalog_dir"),
    "gpuhunt_catalog_url": ("prices", "gpuhunt_catalog_url"),
    "usd_cny": ("prices", "usd_cny"),
    "usd_cny_date": ("prices", "usd_cny_date"),
    "http_timeout_s": ("prices", "http_timeout_s"),
    "refresh_backoff_s": ("prices", "refresh_backoff_s"),
    "refresh_ratecard_hours": ("prices", "refresh_ratecard_hours"),
    "refresh_azure_hours": ("prices", "refresh_azure_hours"),
    "refresh_feed_hours": ("prices", "refresh_feed_hours"),
    "refresh_ecb_hours": ("prices", "refresh_ecb_hours"),
    "refresh_gpuhunt_hours": ("prices", "refresh_gpuhunt_hours"),
    "refresh_aliyun_hours": ("prices", "refresh_aliyun_hours"),
    "ttl_ratecard_days": ("prices", "ttl_ratecard_days"),
    "ttl_azure_hours": ("prices", "ttl_azure_hours"),
    "ttl_feed_hours": ("prices", "ttl_feed_hours"),
    "ttl_ecb_hours": ("prices", "ttl_ecb_hours"),
    "ttl_gpuhunt_days": ("prices", "ttl_gpuhunt_days"),
    "ttl_aliyun_hours": ("prices", "ttl_aliyun_hours"),
    "slack_bot_token": ("slack", "bot_token"),
    "slack_signing_secret": ("slack", "signing_secret"),
    "slack_app_token": ("slack", "app_token"),
    "slack_client_id": ("slack", "client_id"),
    "slack_client_secret": ("slack", "client_secret"),
    "slack_redirect_uri": ("slack", "redirect_uri"),
    "encryption_key": ("slack", "encryption_key"),
    "slack_api_url": ("slack", "api_url"),
    "conversation_ttl_hours": ("slack", "conversation_ttl_hours"),
    "locale_cache_hours": ("slack", "locale_cache_hours"),
    "slack_retry_backoff_s": ("slack", "retry_backoff_s"),
    "feishu_app_id": ("feishu", "app_id"),
    "feishu_app_secret": ("feishu", "app_secret"),
    "feishu_verification_token": ("feishu", "verification_token"),
    "feishu_encrypt_key": ("feishu", "encrypt_key"),
    "feishu_domain": ("feishu", "domain"),
    "feishu_mode": ("feishu", "mode"),
    "ack_db_budget_s": ("serve", "ack_db_budget_s"),
    "max_body_bytes": ("serve", "max_body_bytes"),
    "read_timeout_s": ("serve", "read_timeout_s"),
    "max_pending_bodies": ("serve", "max_pending_bodies"),
    "work_process": ("serve", "work_process"),
    "work_niceness": ("serve", "work_niceness"),
    "replica_id": ("serve", "replica_id"),
    "redo_after_s": ("serve", "redo_after_s"),
    "public_url": ("serve", "public_url"),
    "board_link_hours": ("serve", "board_link_hours"),
    "log_level": ("serve", "log_level"),
    "log_format": ("serve", "log_format"),
    "capture_max_bytes": ("samples", "capture_max_bytes"),
    "capture_timeout_s": ("samples", "capture_timeout_s"),
    "heartbeat_max_bytes": ("samples", "heartbeat_max_bytes"),
    "heartbeat_max_age_hours": ("samples", "heartbeat_max_age_hours"),
    "samples_raw_days": ("samples", "samples_raw_days"),
    "samples_hourly_days": ("samples", "samples_hourly_days"),
    "prometheus_url": ("samples", "prometheus_url"),
    "prometheus_label": ("samples", "prometheus_label"),
    "prometheus_every_minutes": ("samples", "prometheus_every_minutes"),
    "aws_regions": ("discovery", "aws_regions"),
    "aws_endpoint_url": ("discovery", "aws_endpoint_url"),
    "aliyun_regions": ("discovery", "aliyun_regions"),
    "aliyun_endpoint": ("discovery", "aliyun_endpoint"),
    "aliyun_price_types": ("discovery", "aliyun_price_types"),
    "aliyun_retry_backoff_s": ("discovery", "aliyun_retry_backoff_s"),
    "aliyun_dsw": ("discovery", "aliyun_dsw"),
    "volcengine_regions": ("discovery", "volcengine_regions"),
    "volcengine_endpoint": ("discovery", "volcengine_endpoint"),
    "volcengine_retry_backoff_s": ("discovery", "volcengine_retry_backoff_s"),
    "volcengine_mlp": ("discovery", "volcengine_mlp"),
    "huawei_regions": ("discovery", "huawei_regions"),
    "huawei_endpoint": ("discovery", "huawei_endpoint"),
    "huawei_project_ids": ("discovery", "huawei_project_ids"),
    "huawei_retry_backoff_s": ("discovery", "huawei_retry_backoff_s"),
    "huawei_modelarts": ("discovery", "huawei_modelarts"),
    "tencent_regions": ("discovery", "tencent_regions"),
    "tencent_endpoint": ("discovery", "tencent_endpoint"),
    "tencent_retry_backoff_s": ("discovery", "tencent_retry_backoff_s"),
    "tencent_hai": ("discovery", "tencent_hai"),
    "tencent_price_types": ("discovery", "tencent_price_types"),
    "refresh_tencent_hours": ("discovery", "refresh_tencent_hours"),
    "ttl_tencent_hours": ("discovery", "ttl_tencent_hours"),
    "autodl_token": ("discovery", "autodl_token"),
    "autodl_url": ("discovery", "autodl_url"),
    "autodl_pro": ("discovery", "autodl_pro"),
    "discover_every_minutes": ("discovery", "discover_every_minutes"),
    "activity_every_minutes": ("discovery", "activity_every_minutes"),
    "discover_team": ("discovery", "discover_team"),
    "discover_channel": ("discovery", "discover_channel"),
    "owner_tag": ("discovery", "owner_tag"),
    "channel_tag": ("discovery", "channel_tag"),
    "remind_tz": ("digest", "remind_tz"),
    "remind_at": ("digest", "remind_at"),
    "remind_days": ("digest", "remind_days"),
    "remind_all_clear": ("digest", "remind_all_clear"),
    "remind_pace_s": ("digest", "remind_pace_s"),
    "report_day": ("digest", "report_day"),
}


def _chat_areas() -> dict[str, type[_Area]]:
    """The areas of the chats whose settings are their own (a chat's folder with a settings.py: its NAME and AREA),
    by the chat's name: each setting is GPU_ADVISOR_<NAME>_<SETTING>, and Settings has the area under the name."""
    from bot.settings.chats import chat_packages

    found: dict[str, type[_Area]] = {}
    for package in chat_packages():
        if importlib.util.find_spec(f"{package}.settings") is not None:
            module = importlib.import_module(f"{package}.settings")
            found[module.NAME] = module.AREA
    return found


CHAT_AREAS = _chat_areas()
for _chat, _area in CHAT_AREAS.items():
    AREAS[_chat] = _area
    FLAT.update({f"{_chat}_{name}": (_chat, name) for name in _area.model_fields})


def variables(flat: str, field: FieldInfo) -> tuple[str, ...]:
    """The environment variables a setting is read from, first found wins: GPU_ADVISOR_<NAME>, or its own names."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return tuple(str(choice) for choice in alias.choices)
    return (f"GPU_ADVISOR_{flat.upper()}",)


def variable_of(where: tuple[int | str, ...]) -> str:
    """The variable a validation error's location names (("feishu", "domain") → GPU_ADVISOR_FEISHU_DOMAIN)."""
    area, name = (str(part) for part in (*where, "", "")[:2])
    flat = next((flat for flat, placed in FLAT.items() if placed == (area, name)), None)
    return variables(flat, AREAS[area].model_fields[name])[0] if flat is not None else ".".join(map(str, where))


def from_environment() -> dict[str, dict[str, str]]:
    """Every setting the environment over `.env` gives (bot/settings/environment.py), by area, as text."""
    values = environment()
    found: dict[str, dict[str, str]] = {}
    for flat, (area, name) in FLAT.items():
        for variable in variables(flat, AREAS[area].model_fields[name]):
            if variable.lower() in values:
                found.setdefault(area, {})[name] = values[variable.lower()]
                break
    return found


class Settings:
    """Every setting, by area; read from the process environment over `.env` in the working folder
    (bot/settings/environment.py), under what is given (Settings(files={...}), Settings(azure_enabled=False)).

    Every value given or found in the environment is checked when Settings is made, each area by its own model, and
    every problem is raised at once as one ValidationError whose locations name the area (("feishu", "domain")). An
    area nothing was given for holds its defaults only, so it is made when first read: a command reading two areas
    does not build the other eight models' schemas (about 20 ms of `quote`'s start: bench/cli_startup.py).

    A plain class over the areas' pydantic models, not a model itself nor pydantic-settings' BaseSettings: the
    environment is read by our own reader anyway (the terminal's light start shares it), and a model's fields are
    all built when it is made."""

    if TYPE_CHECKING:  # the areas, made when first read (__getattr__); the chats' own too (settings.dingtalk)
        files: Files
        prices: Prices
        slack: Slack
        feishu: Feishu
        serve: Serve
        samples: Samples
        discovery: Discovery
        digest: Digest

    def __init__(self, **given: Any) -> None:
        merged: dict[str, Any] = dict(from_environment())
        for key, value in given.items():  # an area given as a mapping: over the environment's, one by one
            below = merged.get(key)
            merged[key] = below | value if isinstance(below, dict) and isinstance(value, dict) else value
        problems: list[Any] = []
        for area, value in _by_flat_name(merged).items():
            if area not in AREAS:
                continue  # as a model with extra="ignore": a name that is no setting is left out
            try:
                self.__dict__[area] = AREAS[area].model_validate(value)
            except ValidationError as exc:
                problems += [_placed(area, error) for error in exc.errors()]
        if problems:
            raise ValidationError.from_exception_data("Settings", problems)

    def __getattr__(self, name: str) -> Any:
        """An area nothing was given for: its defaults, made once, when first read."""
        model = AREAS.get(name)
        if model is None:
            raise AttributeError(f"'Settings' object has no attribute {name!r}")
        made = self.__dict__[name] = model()
        return made

    def __repr__(self) -> str:
        return f"Settings({', '.join(sorted(k for k in self.__dict__ if k in AREAS))} read; the rest defaults)"

    def with_flat(self, **values: object) -> Settings:
        """These settings with some given by their flat names (the terminal's flags over the environment)."""
        areas: dict[str, dict[str, object]] = {}
        for key, value in values.items():
            area, name = FLAT[key]
            areas.setdefault(area, {})[name] = value
        copy = object.__new__(Settings)
        copy.__dict__.update(self.__dict__)
        for area, update in areas.items():
            copy.__dict__[area] = getattr(self, area).model_copy(update=update)
        return copy


def _by_flat_name(data: dict[str, Any]) -> dict[str, Any]:
    """A setting given by its flat name (Settings(azure_enabled=False)) goes to its area, over the environment."""
    out: dict[str, Any] = {key: dict(value) if isinstance(value, dict) else value for key, value in data.items()}
    for key, value in data.items():
        if key in FLAT:
            area, name = FLAT[key]
            placed = out.get(area)
            out[area] = (dict(placed) if isinstance(placed, dict) else {}) | {name: value}
            del out[key]
    return out


def _placed(area: str, error: Any) -> Any:
    """One area's validation error as Settings' own: its location starts with the area."""
    found = {"type": error["type"], "loc": (area, *error["loc"]), "input": error["input"]}
    return found | ({"ctx": error["ctx"]} if "ctx" in error else {})
