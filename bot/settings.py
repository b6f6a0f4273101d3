"""Configuration: one Settings object, built at start-up from the environment (and .env), passed down."""

from __future__ import annotations

import os
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from rules.messages import Lang


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "gpu-advisor" / "gpu-advisor.db"


class Settings(BaseSettings):
    """Every setting reads GPU_ADVISOR_<NAME>; the Slack ones read Slack's usual variable names."""

    model_config = SettingsConfigDict(env_prefix="GPU_ADVISOR_", env_file=".env", extra="ignore")

    db: Path = Field(default_factory=default_db_path, description="SQLite file for prices and conversations")
    lang: Lang = Field(default=Lang.ZH, description="default reply language: zh or en")
    policy: Path | None = Field(default=None, description="a policy YAML file; the bundled one when unset")
    currency: str = Field(default="CNY", pattern="^(CNY|USD)$", description="currency of quotes")

    slack_bot_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "GPU_ADVISOR_SLACK_BOT_TOKEN"))
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "GPU_ADVISOR_SLACK_SIGNING_SECRET"))
    slack_app_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_APP_TOKEN", "GPU_ADVISOR_SLACK_APP_TOKEN"))
    slack_api_url: str = Field(
        default="https://slack.com/api/", validation_alias=AliasChoices("SLACK_API_URL", "GPU_ADVISOR_SLACK_API_URL"))
