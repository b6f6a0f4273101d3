"""DingTalk's settings, its own area of Settings (bot/settings/model.py reads a chat folder's NAME and AREA):
GPU_ADVISOR_DINGTALK_<SETTING>. Importing this loads pydantic only, never DingTalk's SDKs."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from bot.settings.origins import is_origin

NAME = "dingtalk"
DEFAULT_API_URL = "https://api.dingtalk.com"


class DingTalk(BaseModel):
    """DingTalk (钉钉)"""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", defer_build=True)

    client_id: str | None = Field(
        default=None,
        description="DingTalk: the app's Client ID (AppKey); with the secret, serve talks to DingTalk in Stream mode",
    )
    client_secret: SecretStr | None = Field(default=None, description="DingTalk: the app's Client Secret (AppSecret)")
    robot_code: str | None = Field(
        default=None, description="DingTalk: the robot's code (RobotCode); default: the Client ID"
    )
    api_url: str = Field(
        default=DEFAULT_API_URL,
        description="DingTalk: the OpenAPI origin; the Stream gateway and every API call go there (a local fake: "
        "http on the loopback)",
    )

    @field_validator("api_url")
    @classmethod
    def _origin(cls, value: str) -> str:
        if is_origin(value):
            return value.rstrip("/")
        raise ValueError("an origin such as https://api.dingtalk.com (http only on the loopback)")

    def configured(self) -> bool:
        """Talks to DingTalk: a Client ID and Client Secret are set."""
        return bool(self.client_id and self.client_secret)

    def secret(self) -> str:
        return self.client_secret.get_secret_value() if self.client_secret else ""

    def robot(self) -> str:
        return self.robot_code or self.client_id or ""


AREA = DingTalk
