"""Where every setting comes from: the process environment over a `.env` file in the working folder, names in
any case. One reader for all of them: `Settings` (bot/settings/model.py) reads through it, and so does the terminal's
light start (the language of `--help`, and `advise` without prices, which must not pay for the settings' models:
0.1 s, as much as the rest of the command), so a value in `.env` means the same everywhere.

Only the standard library and python-dotenv (the `.env` parser) are imported."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

ENV_FILE = Path(".env")


def environment(env_file: Path = ENV_FILE, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every variable, names lower-cased: `.env` first, the process environment over it."""
    values: dict[str, str] = {}
    if env_file.is_file():
        from dotenv import dotenv_values

        values = {k.lower(): v for k, v in dotenv_values(env_file).items() if v is not None}
    return values | {k.lower(): v for k, v in (os.environ if environ is None else environ).items()}


def setting(name: str, values: Mapping[str, str] | None = None) -> str | None:
    """The raw value of one variable (`GPU_ADVISOR_LANG`), as Settings reads it; None when unset."""
    return (environment() if values is None else values).get(name.lower())


# The clouds' own SDKs read their credentials from the process environment (boto3, Alibaba's and Tencent's
# credential chains); a key kept in `.env` beside the other settings reaches them through this.
CLOUD_CREDENTIALS = ("AWS_", "ALIBABA_CLOUD_", "TENCENTCLOUD_", "VOLCENGINE_", "HUAWEICLOUD_SDK_")


def export_cloud_credentials(env_file: Path = ENV_FILE) -> list[str]:
    """Put the cloud SDKs' variables found in `.env` into the process environment, where they are not set
    already (the environment wins, as for every setting). Returns the names exported (never the values)."""
    if not env_file.is_file():
        return []
    from dotenv import dotenv_values

    exported = []
    for name, value in dotenv_values(env_file).items():
        if value is not None and name.upper().startswith(CLOUD_CREDENTIALS) and name.upper() not in os.environ:
            os.environ[name.upper()] = value
            exported.append(name.upper())
    return exported
