"""WeCom's settings, its own area of Settings (bot/settings/model.py reads a chat folder's NAME and AREA):
GPU_ADVISOR_WECOM_<SETTING>. Importing this loads pydantic only, never WeCom's SDK."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from bot.settings.origins import is_origin

NAME = "wecom"
DEFAULT_WS_URL = "wss://openws.work.weixin.qq.com"  # the SDK's own address
DEFAULT_API_URL = "https://qyapi.weixin.qq.com"


class WeCom(BaseModel):
    """WeCom (企业微信)"""

    model_config = ConfigDict(populate_by_name=True, extra="ignore", defer_build=True)

    bot_id: str | None = Field(
        default=None, description="WeCom: the intelligent robot's Bot ID; with the secret, serve talks to WeCom"
    )
    bot_secret: SecretStr | None = Field(default=None, description="WeCom: the robot's Secret (long connection)")
    ws_url: str = Field(
        default=DEFAULT_WS_URL,
        description="WeCom: the robot's long connection (wss; a local fake: ws on the loopback)",
    )
    corp_id: str | None = Field(
        default=None, description="WeCom: the organisation's CorpID, to find owners named by address (optional)"
    )
    corp_secret: SecretStr | None = Field(
        default=None, description="WeCom: a self-built app's Secret with contact reading, with the CorpID"
    )
    api_url: str = Field(
        default=DEFAULT_API_URL,
        description="WeCom: the classic API's origin, for owners by address (a local fake: http on the loopback)",
    )

    @field_validator("ws_url")
    @classmethod
    def _ws(cls, value: str) -> str:
        if is_origin(value, secure="wss", plain="ws", path=True):
            return value
        raise ValueError("a wss:// address such as wss://openws.work.weixin.qq.com (ws only on the loopback)")

    @field_validator("api_url")
    @classmethod
    def _api(cls, value: str) -> str:
        if is_origin(value):
            return value.rstrip("/")
        raise ValueError("an origin such as https://qyapi.weixin.qq.com (http only on the loopback)")

    def configured(self) -> bool:
        return bool(self.bot_id and self.bot_secret)

    def secret(self) -> str:
        return self.bot_secret.get_secret_value() if self.bot_secret else ""

    def looks_up_addresses(self) -> bool:
        return bool(self.corp_id and self.corp_secret)


AREA = WeCom
